//! Weekly checks: 56 h / 52 h / 48 h of work in a calendar week, at most 6 worked days and a
//! 34 h rest inside the week; weeks across the clock changes of 2025.

use serde_json::json;

use super::*;

/// A day's date and its spans `(kind, from, to)`.
type OwnedDay = (String, Vec<(String, String, String)>);

/// A mission per day from `monday` on, each with the same spans.
fn week_of(monday: &str, count: u32, spans: &[(&str, &str, &str)]) -> Vec<OwnedDay> {
    let first = date(monday);
    (0..count)
        .map(|i| {
            let day = (first + chrono::Duration::days(i64::from(i))).to_string();
            let spans = spans
                .iter()
                .map(|(k, f, t)| (k.to_string(), f.to_string(), t.to_string()))
                .collect();
            (day, spans)
        })
        .collect()
}

fn to_missions(days: &[OwnedDay]) -> Vec<Mission> {
    let list: Vec<Vec<_>> = days
        .iter()
        .map(|(day, spans)| {
            spans
                .iter()
                .map(|(k, f, t)| act(k, &format!("{day} {f}"), Some(&format!("{day} {t}"))))
                .collect()
        })
        .collect();
    missions(&list)
}

const TEN_HOURS: &[(&str, &str, &str)] = &[("drive", "06:00", "11:00"), ("work", "11:45", "16:45")];
const ELEVEN_HOURS: &[(&str, &str, &str)] = &[("drive", "06:00", "11:30"), ("work", "12:15", "17:45")];

#[test]
fn weekly_work_limits_per_business() {
    // 5 days of 10 h = 50 h; 5 days of 11 h = 55 h.
    let cases = [
        (BusinessType::Shipping, TEN_HOURS, Some(48)),
        (BusinessType::ShortDistance, TEN_HOURS, None),
        (BusinessType::ShortDistance, ELEVEN_HOURS, Some(52)),
        (BusinessType::LongDistance, ELEVEN_HOURS, None),
        (BusinessType::Frequent, TEN_HOURS, Some(48)),
        (BusinessType::Vtc, TEN_HOURS, Some(48)),
    ];
    for (business, spans, expected) in cases {
        let days = week_of("2025-01-13", 5, spans);
        let computation = run(&to_missions(&days), "2025-01-13", "2025-01-17", business);
        let found = alert(&computation, CheckType::MaximumWorkInCalendarWeek, "2025-01-13");
        assert_eq!(
            found.map(|a| extra(a, "max_weekly_work_in_seconds")),
            expected.map(|h| json!(h * 3600)),
            "{business:?}"
        );
    }
}

#[test]
fn the_weekly_work_extra_is_dated_on_monday() {
    let days = week_of("2025-01-13", 5, TEN_HOURS);
    let computation = run(&to_missions(&days), "2025-01-15", "2025-01-15", BusinessType::Shipping);
    assert_eq!(
        alerts(&computation, CheckType::MaximumWorkInCalendarWeek),
        [(
            "2025-01-13".to_string(),
            r#"{"sanction_code": "NATINF 11289", "work_range_end": "2025-01-17T15:45:00", "work_range_start": "2025-01-13T05:00:00", "work_duration_in_seconds": 180000, "max_weekly_work_in_seconds": 172800}"#
                .to_string()
        )]
    );
}

#[test]
fn seven_worked_days_and_short_weekly_rests() {
    // Seven days of 08:00–10:00: the longest rest is 22 h (10:00 to 08:00).
    let days = week_of("2025-01-13", 7, &[("work", "08:00", "10:00")]);
    let computation = run(&to_missions(&days), "2025-01-13", "2025-01-19", BusinessType::Shipping);
    assert_eq!(
        alerts(&computation, CheckType::MaximumWorkedDaysInWeek),
        [(
            "2025-01-13".to_string(),
            r#"{"sanction_code": "NATINF 13152", "too_many_days": true, "rest_duration_s": 79200.0, "min_weekly_break_in_hours": 34, "max_nb_days_worked_by_week": 6}"#
                .to_string()
        )]
    );
    // Six days and a free Sunday: 14 h + 24 h = 38 h of rest.
    let days = week_of("2025-01-13", 6, &[("work", "08:00", "10:00")]);
    let computation = run(&to_missions(&days), "2025-01-13", "2025-01-19", BusinessType::Shipping);
    assert!(alerts(&computation, CheckType::MaximumWorkedDaysInWeek).is_empty());
}

#[test]
fn rest_after_sunday_midnight_does_not_count() {
    // Saturday until 23:00 and a free Sunday: 25 h inside the week, whatever follows Monday.
    let mut days = week_of("2025-01-13", 5, &[("work", "08:00", "10:00")]);
    days.push((
        "2025-01-18".into(),
        vec![("work".into(), "08:00".into(), "23:00".into())],
    ));
    let computation = run(&to_missions(&days), "2025-01-13", "2025-01-19", BusinessType::Shipping);
    let found = alert(&computation, CheckType::MaximumWorkedDaysInWeek, "2025-01-13").expect("an alert");
    assert_eq!(extra(found, "too_many_days"), json!(false));
    assert_eq!(extra(found, "rest_duration_s"), json!(90000.0));
    assert!(found.explanation.summary_en.contains("25 h 00 min, less than 34 h"));
}

#[test]
fn a_holiday_is_not_a_worked_day() {
    // Seven missions, one of them `off` only (a holiday): six worked days.
    let mut days = week_of("2025-01-13", 6, &[("work", "08:00", "10:00")]);
    days.push((
        "2025-01-19".into(),
        vec![("off".into(), "08:00".into(), "18:00".into())],
    ));
    let computation = run(&to_missions(&days), "2025-01-13", "2025-01-19", BusinessType::Shipping);
    assert!(alerts(&computation, CheckType::MaximumWorkedDaysInWeek).is_empty());
}

#[test]
fn a_week_across_the_spring_clock_change_counts_real_hours() {
    // Five days of 10 h, then Saturday 20:00 to Sunday 06:00 across 02:00→03:00 on 2025-03-30:
    // 9 real hours (4 h on Saturday, 5 h on Sunday): 59 h > 56 h.
    let mut list: Vec<Vec<_>> = to_missions(&week_of("2025-03-24", 5, TEN_HOURS))
        .into_iter()
        .map(|m| m.activities.iter().map(|a| (a.kind, a.start, a.end)).collect())
        .collect();
    list.push(vec![act("drive", "2025-03-29 20:00", Some("2025-03-30 06:00"))]);
    let computation = run(&missions(&list), "2025-03-24", "2025-03-30", BusinessType::LongDistance);
    let found = alert(&computation, CheckType::MaximumWorkInCalendarWeek, "2025-03-24").expect("an alert");
    assert_eq!(extra(found, "work_duration_in_seconds"), json!(59 * 3600));
    assert_eq!(extra(found, "work_range_end"), json!("2025-03-30T04:00:00"));
    // Sunday 2025-03-30 is 23 hours long: it ends at Monday's local midnight.
    assert_eq!(
        super::super::time::iso(super::super::time::day_end(PARIS, date("2025-03-30"))),
        "2025-03-30T22:00:00"
    );
}

#[test]
fn a_week_across_the_autumn_clock_change_counts_real_hours() {
    // Saturday 20:00 (UTC+2) to Sunday 06:00 (UTC+1) on 2025-10-26: 11 real hours.
    let computation = run(
        &missions(&[vec![act("drive", "2025-10-25 20:00", Some("2025-10-26 06:00"))]]),
        "2025-10-25",
        "2025-10-26",
        BusinessType::Shipping,
    );
    let found = alert(&computation, CheckType::MaximumWorkDayTime, "2025-10-25");
    // 11 h of night work (past midnight) against 10 h.
    assert_eq!(found.map(|a| extra(a, "work_range_in_seconds")), Some(json!(39600.0)));
}

#[test]
fn the_last_hour_of_the_autumn_sunday_belongs_to_the_sunday() {
    // Sunday 2025-10-26 lasts 25 hours, to Monday's local midnight; work from 23:15 to 23:45
    // counts on it (the reference's 24-hour window ends at 23:00 and leaves it out).
    let work = missions(&[vec![act("work", "2025-10-26 23:15", Some("2025-10-26 23:45"))]]);
    let days = super::super::workdays::build(
        PARIS,
        &work,
        date("2025-10-20"),
        date("2025-10-27"),
        at("2025-12-31 12:00"),
    );
    assert_eq!(days.len(), 1);
    assert_eq!(days[0].day, date("2025-10-26"));
    assert_eq!(days[0].total_work_duration, 1800);
    assert_eq!(days[0].end_of_day - days[0].start_of_day, 25 * 3600);
    let computation = run(&work, "2025-10-26", "2025-10-26", BusinessType::Shipping);
    assert!(computation.alerts.is_empty());
    // Computed days: the Monday of the week, and Sunday itself.
    assert_eq!(computation.computed, [date("2025-10-20"), date("2025-10-26")]);
}
