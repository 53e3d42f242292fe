//! One computation of a period: which days are marked computed, which alerts it replaces, and
//! missing or running missions.

use super::*;

#[test]
fn the_day_before_is_recomputed_but_marked_only_when_it_has_work() {
    let work = day_missions(&[("2025-01-15", &[("work", "08:00", "12:00")])]);
    let computation = run(&work, "2025-01-15", "2025-01-15", BusinessType::Shipping);
    assert_eq!(computation.days, (date("2025-01-14"), date("2025-01-15")));
    assert_eq!(computation.weeks, (date("2025-01-13"), date("2025-01-19")));
    assert_eq!(computation.computed, [date("2025-01-13"), date("2025-01-15")]);
    assert!(computation.alerts.is_empty());
    // With work on the day before, it is marked too.
    let work = day_missions(&[
        ("2025-01-14", &[("work", "08:00", "12:00")]),
        ("2025-01-15", &[("work", "08:00", "12:00")]),
    ]);
    let computation = run(&work, "2025-01-15", "2025-01-15", BusinessType::Shipping);
    assert_eq!(
        computation.computed,
        [date("2025-01-13"), date("2025-01-14"), date("2025-01-15")]
    );
}

#[test]
fn a_period_across_weeks_computes_every_week() {
    let computation = run(&[], "2025-01-20", "2025-01-27", BusinessType::Shipping);
    // The day before (the 19th, a Sunday) pulls in the week of the 13th.
    assert_eq!(computation.weeks, (date("2025-01-13"), date("2025-02-02")));
    let mondays: Vec<String> = computation
        .computed
        .iter()
        .filter(|d| chrono::Datelike::weekday(*d) == chrono::Weekday::Mon)
        .map(|d| d.to_string())
        .collect();
    assert_eq!(mondays, ["2025-01-13", "2025-01-20", "2025-01-27"]);
}

#[test]
fn without_missions_days_are_computed_without_alerts() {
    let computation = run(&[], "2025-01-15", "2025-01-16", BusinessType::Shipping);
    assert!(computation.alerts.is_empty());
    assert_eq!(
        computation.computed,
        [date("2025-01-13"), date("2025-01-15"), date("2025-01-16")]
    );
}

#[test]
fn a_running_day_is_left_out_of_the_daily_checks() {
    // A drive running since 06:00, now 20:00: 14 h, but the day is not over.
    let running = missions(&[vec![act("drive", "2025-01-15 06:00", None)]]);
    let computation = run_at(
        &running,
        "2025-01-15",
        "2025-01-15",
        BusinessType::Shipping,
        at("2025-01-15 20:00"),
    );
    assert!(
        computation
            .alerts
            .iter()
            .all(|a| a.check.def().unit == super::super::checks::Unit::Week),
        "{:?}",
        computation.alerts
    );
    // The week still counts the work done so far.
    let ended = missions(&[vec![act("drive", "2025-01-15 06:00", Some("2025-01-15 20:00"))]]);
    let computation = run(&ended, "2025-01-15", "2025-01-15", BusinessType::Shipping);
    assert!(alert(&computation, CheckType::MaximumWorkDayTime, "2025-01-15").is_some());
    assert!(alert(&computation, CheckType::EnoughBreak, "2025-01-15").is_some());
}

#[test]
fn missions_of_other_days_count_as_rest() {
    // A mission that is not given (not validated) leaves its day as rest: 20:00 to 04:00 is only
    // a breach when the mission of the 15th is there.
    let both = day_missions(&[
        ("2025-01-14", &[("work", "06:00", "20:00")]),
        ("2025-01-15", &[("work", "04:00", "08:00")]),
    ]);
    let computation = run(&both, "2025-01-14", "2025-01-14", BusinessType::Shipping);
    assert!(alert(&computation, CheckType::MinimumDailyRest, "2025-01-14").is_some());
    let computation = run(&both[..1], "2025-01-14", "2025-01-14", BusinessType::Shipping);
    assert!(alert(&computation, CheckType::MinimumDailyRest, "2025-01-14").is_none());
}

#[test]
fn the_checks_that_run_are_those_valid_today() {
    let work = day_missions(&[("2025-01-14", &[("drive", "06:00", "13:00")])]);
    let before = compute::compute(&Input {
        tz: PARIS,
        business: BusinessType::Shipping,
        missions: &work,
        period_start: date("2025-01-14"),
        period_end: date("2025-01-14"),
        today: date("2025-01-20"),
        now: at("2025-06-01 00:00"),
        eu_driving_checks: false,
    });
    let types: Vec<&str> = before.alerts.iter().map(|a| a.check.as_str()).collect();
    assert_eq!(types, ["minimumWorkDayBreak", "maximumUninterruptedWorkTime"]);
    let after = run(&work, "2025-01-14", "2025-01-14", BusinessType::Shipping);
    let types: Vec<&str> = after.alerts.iter().map(|a| a.check.as_str()).collect();
    assert_eq!(types, ["enoughBreak"]);
}
