//! The recap's groups: its lines sorted into the kinds the API lists, daily and weekly, each
//! with its count of alerts, its days and (when asked for) a detail per worker and day.

use chrono::NaiveDate;

use crate::domain::companies::parse_date;
use crate::domain::regulation::checks::{CHECKS, CheckType, Unit};

use super::details::Details;
use super::lines::AlertLine;
use super::{Detail, Group};

/// A kind of alerts (`alertsType`) and its lines.
pub(super) type Kind<'a> = (String, Vec<&'a AlertLine>);

/// The lines sorted into the daily and the weekly kinds.
#[derive(Default)]
pub(super) struct Kinds<'a> {
    pub daily: Vec<Kind<'a>>,
    pub weekly: Vec<Kind<'a>>,
}

/// The index of kind `name` in `kinds`, added last when missing: the kinds keep the order of
/// the checks.
fn kind(kinds: &mut Vec<Kind<'_>>, name: &str) -> usize {
    match kinds.iter().position(|k| k.0 == name) {
        Some(i) => i,
        None => {
            kinds.push((name.to_string(), vec![]));
            kinds.len() - 1
        }
    }
}

/// Sorts the lines of a recap starting on `from`: a kind per check, in the checks' order,
/// without `noLic`, and the EU extensions (after the others) only when `eu` (the company opted
/// in). A weekly check is listed when it is in force on `from`.
pub(super) fn sorted(lines: &[AlertLine], eu: bool, from: NaiveDate) -> Kinds<'_> {
    let mut kinds = Kinds::default();
    for check in CHECKS
        .iter()
        .filter(|c| c.check_type != CheckType::NoLic && (eu || !c.extension))
    {
        let of_check: Vec<&AlertLine> = lines
            .iter()
            .filter(|l| l.check_type == check.check_type.as_str())
            .collect();
        match (check.unit, check.check_type) {
            (Unit::Week, _) => {
                if check.valid_on(from) {
                    let i = kind(&mut kinds.weekly, check.check_type.as_str());
                    kinds.weekly[i].1.extend(of_check);
                }
            }
            (Unit::Day, CheckType::MaximumWorkDayTime) => by_night_work(&mut kinds.daily, of_check),
            (Unit::Day, CheckType::EnoughBreak)
            | (Unit::Day, CheckType::MinimumWorkDayBreak)
            | (Unit::Day, CheckType::MaximumUninterruptedWorkTime) => {
                by_half(&mut kinds.daily, check.check_type, &of_check)
            }
            (Unit::Day, other) => {
                let i = kind(&mut kinds.daily, other.as_str());
                kinds.daily[i].1.extend(of_check);
            }
        }
    }
    kinds
}

/// `maximumWorkDayTime` alerts are listed as `maximumNightWorkDayTime` when the day's work
/// was night work.
fn by_night_work<'a>(daily: &mut Vec<Kind<'a>>, lines: Vec<&'a AlertLine>) {
    let day = kind(daily, "maximumWorkDayTime");
    let night = kind(daily, "maximumNightWorkDayTime");
    for line in lines {
        daily[if line.night_work == 1 { night } else { day }].1.push(line);
    }
}

/// The break checks fill two kinds: `not_enough_break` and `too_much_uninterrupted_work_time`.
/// `enoughBreak` checks both at once and lists its alert under each half that failed (both when
/// both did); the older `minimumWorkDayBreak` and `maximumUninterruptedWorkTime` fill their
/// own half.
fn by_half<'a>(daily: &mut Vec<Kind<'a>>, check: CheckType, lines: &[&'a AlertLine]) {
    let both = check == CheckType::EnoughBreak;
    if both || check == CheckType::MinimumWorkDayBreak {
        let i = kind(daily, "not_enough_break");
        daily[i]
            .1
            .extend(lines.iter().filter(|l| !both || l.not_enough_break == 1));
    }
    if both || check == CheckType::MaximumUninterruptedWorkTime {
        let i = kind(daily, "too_much_uninterrupted_work_time");
        daily[i].1.extend(
            lines
                .iter()
                .filter(|l| !both || l.too_much_uninterrupted_work_time == 1),
        );
    }
}

/// The kinds as the API's groups: their alerts, their days in order, and with `details` a
/// detail per day and worker, in that order.
pub(super) fn built(kinds: Vec<Kind<'_>>, details: Option<&Details>) -> Vec<Group> {
    kinds
        .into_iter()
        .map(|(alerts_type, lines)| {
            let mut days: Vec<NaiveDate> = lines.iter().filter_map(|l| parse_date(&l.day)).collect();
            days.sort();
            days.dedup();
            Group {
                alerts_type,
                nb_alerts: lines.iter().map(|l| l.alerts).sum(),
                days,
                details: details.map_or_else(Vec::new, |details| detailed(&lines, details)),
            }
        })
        .collect()
}

/// A detail per day and worker of the lines.
fn detailed(lines: &[&AlertLine], details: &Details) -> Vec<Detail> {
    let mut sorted = lines.to_vec();
    sorted.sort_by(|a, b| a.day.cmp(&b.day).then(a.user_id.cmp(&b.user_id)));
    // Sorted by (day, worker): a repeated pair follows its first line.
    sorted.dedup_by(|a, b| a.day == b.day && a.user_id == b.user_id);
    sorted.into_iter().filter_map(|line| details.of(line)).collect()
}
