//! `maximumWorkDayTime`: 12 h (goods), 10 h (passengers), 9 h past the amplitude trigger
//! (13 h for regular lines, 12 h for taxis, VTC, LOTI, none for occasional services), 10 h with
//! night work, and the reference's quirks.

use serde_json::json;

use super::*;

const DAY: &str = "2025-01-14";

#[test]
fn limits_per_business_with_hand_computed_work() {
    // (business, spans on 2025-01-14, expected limit when an alert fires)
    type Case<'a> = (BusinessType, &'a [(&'a str, &'a str, &'a str)], Option<i64>);
    let twelve_hours: &[(&str, &str, &str)] = &[("drive", "06:00", "12:00"), ("work", "12:45", "18:45")];
    let twelve_h_01: &[(&str, &str, &str)] = &[("drive", "06:00", "12:00"), ("work", "12:45", "18:46")];
    let ten_h_01: &[(&str, &str, &str)] = &[("drive", "06:00", "11:00"), ("work", "11:45", "16:46")];
    let ten_hours: &[(&str, &str, &str)] = &[("drive", "06:00", "11:00"), ("work", "11:45", "16:45")];
    // 9 h 30 of work over 13 h 30 (06:00–19:30) and over 12 h 30 (06:00–18:30).
    let amplitude_13_30: &[(&str, &str, &str)] = &[("drive", "06:00", "10:45"), ("work", "14:45", "19:30")];
    let amplitude_12_30: &[(&str, &str, &str)] = &[("drive", "06:00", "10:45"), ("work", "13:45", "18:30")];
    let cases: &[Case] = &[
        (BusinessType::Shipping, twelve_hours, None),
        (BusinessType::Shipping, twelve_h_01, Some(12)),
        (BusinessType::LongDistance, twelve_h_01, Some(12)),
        (BusinessType::ShortDistance, twelve_hours, None),
        (BusinessType::ShortDistance, ten_h_01, None),
        (BusinessType::Frequent, ten_hours, None),
        (BusinessType::Frequent, ten_h_01, Some(10)),
        (BusinessType::Frequent, amplitude_13_30, Some(9)),
        (BusinessType::Frequent, amplitude_12_30, None),
        (BusinessType::TaxiGeneral, amplitude_12_30, Some(9)),
        (BusinessType::TaxiRegulated, amplitude_12_30, Some(9)),
        (BusinessType::Vtc, amplitude_12_30, Some(9)),
        (BusinessType::Loti, ten_h_01, Some(10)),
        (BusinessType::Infrequent, amplitude_13_30, None),
        (BusinessType::Infrequent, ten_h_01, Some(10)),
    ];
    for (business, spans, expected) in cases {
        let computation = run(&day_missions(&[(DAY, spans)]), DAY, DAY, *business);
        let found = alert(&computation, CheckType::MaximumWorkDayTime, DAY);
        assert_eq!(
            found.map(|a| extra(a, "max_work_range_in_hours")),
            expected.map(|h| json!(h)),
            "{business:?} {spans:?}"
        );
    }
}

#[test]
fn the_extra_is_the_references_string() {
    let computation = run(
        &day_missions(&[(DAY, &[("drive", "06:00", "12:00"), ("work", "12:45", "18:46")])]),
        DAY,
        DAY,
        BusinessType::Shipping,
    );
    assert_eq!(
        alerts(&computation, CheckType::MaximumWorkDayTime),
        [(
            DAY.to_string(),
            r#"{"night_work": false, "sanction_code": "NATINF 11292", "work_range_end": "2025-01-14T17:46:00", "work_range_start": "2025-01-14T05:00:00", "work_range_in_seconds": 43260.0, "max_work_range_in_hours": 12}"#
                .to_string()
        )]
    );
    let explanation = &alert(&computation, CheckType::MaximumWorkDayTime, DAY)
        .unwrap()
        .explanation;
    assert_eq!(
        explanation.summary_en,
        "12 h 01 min of work between 2025-01-14 06:00 and 2025-01-14 18:46, more than the 12 h allowed."
    );
    assert_eq!(
        explanation.summary_fr,
        "12 h 01 de travail entre le 14/01/2025 06:00 et le 14/01/2025 18:46, plus que les 12 h autorisées."
    );
    assert_eq!(explanation.evidence.len(), 2);
    assert_eq!(
        explanation.evidence[1].en,
        "work from 2025-01-14 12:45 to 2025-01-14 18:46 (6 h 01 min)"
    );
}

#[test]
fn night_work_lowers_the_limit_to_ten_hours() {
    // 10 h 01 of work from 04:00: one hour before 05:00 is night work.
    let computation = run(
        &day_missions(&[(DAY, &[("drive", "04:00", "09:00"), ("work", "09:45", "14:46")])]),
        DAY,
        DAY,
        BusinessType::LongDistance,
    );
    let found = alert(&computation, CheckType::MaximumWorkDayTime, DAY).expect("an alert");
    assert_eq!(extra(found, "night_work"), json!(true));
    assert_eq!(extra(found, "sanction_code"), json!("NATINF 32083"));
    assert_eq!(extra(found, "max_work_range_in_hours"), json!(10));
    assert!(found.explanation.summary_en.contains("between midnight and 05:00"));
}

#[test]
fn work_ending_at_midnight_counts_as_night_work_as_in_the_reference() {
    // The reference's day window for night work ends at 23:59:59: the last second before
    // midnight is "night", so 11 h of work ending at 24:00 is judged against 10 h.
    let computation = run(
        &missions(&[vec![
            act("work", "2025-01-14 12:00", Some("2025-01-14 17:00")),
            act("work", "2025-01-14 18:00", Some("2025-01-15 00:00")),
        ]]),
        DAY,
        DAY,
        BusinessType::Shipping,
    );
    let found = alert(&computation, CheckType::MaximumWorkDayTime, DAY).expect("an alert");
    assert_eq!(extra(found, "night_work"), json!(true));
    assert_eq!(extra(found, "work_range_in_seconds"), json!(39600.0));
}

#[test]
fn a_day_across_midnight_is_judged_on_both_days() {
    // One drive of 11 h from 14:00 to 01:00: the work day of the 15th starts at midnight, so the
    // 14th includes it; the activity carries the figures of the 15th (night work, its start).
    let computation = run(
        &missions(&[vec![act("drive", "2025-01-14 14:00", Some("2025-01-15 01:00"))]]),
        DAY,
        "2025-01-15",
        BusinessType::Shipping,
    );
    let found = alerts(&computation, CheckType::MaximumWorkDayTime);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].0, "2025-01-14");
    assert_eq!(
        found[0].1,
        r#"{"night_work": true, "sanction_code": "NATINF 32083", "work_range_end": "2025-01-15T00:00:00", "work_range_start": "2025-01-14T23:00:00", "work_range_in_seconds": 39600.0, "max_work_range_in_hours": 10}"#
    );
    assert_eq!(found[1].0, "2025-01-15");
}

#[test]
fn a_rest_of_ten_hours_starts_a_new_work_period() {
    // 8 h, 10 h of rest, then 8 h on the same calendar day: no period exceeds 12 h.
    let spans: &[(&str, &str, &str)] = &[
        ("work", "00:00", "04:00"),
        ("work", "04:15", "08:15"),
        ("drive", "18:15", "23:00"),
    ];
    let computation = run(&day_missions(&[(DAY, spans)]), DAY, DAY, BusinessType::Shipping);
    assert!(alert(&computation, CheckType::MaximumWorkDayTime, DAY).is_none());
    // Without the long rest, the same work is one period of 12 h 45.
    let spans: &[(&str, &str, &str)] = &[
        ("work", "00:00", "04:00"),
        ("work", "04:15", "08:15"),
        ("drive", "17:00", "21:45"),
    ];
    let computation = run(&day_missions(&[(DAY, spans)]), DAY, DAY, BusinessType::Shipping);
    let found = alert(&computation, CheckType::MaximumWorkDayTime, DAY).expect("an alert");
    assert_eq!(extra(found, "work_range_in_seconds"), json!(45900.0));
}

#[test]
fn transfers_do_not_count_as_work() {
    let spans: &[(&str, &str, &str)] = &[
        ("drive", "06:00", "12:00"),
        ("transfer", "12:00", "14:00"),
        ("work", "14:00", "20:00"),
    ];
    let computation = run(&day_missions(&[(DAY, spans)]), DAY, DAY, BusinessType::Shipping);
    assert!(alert(&computation, CheckType::MaximumWorkDayTime, DAY).is_none());
}

#[test]
fn the_window_an_alert_names_contains_the_work_it_counts() {
    // A 26-hour mission: on its second day the work counted is the whole drive from 19:30 the
    // day before, 14 h 30; the reference stores the range from the day's start.
    let work = missions(&[vec![
        act("work", "2026-11-02 08:00", Some("2026-11-02 12:00")),
        act("drive", "2026-11-02 12:30", Some("2026-11-02 19:00")),
        act("drive", "2026-11-02 19:30", Some("2026-11-03 10:00")),
    ]]);
    let computation = run(&work, "2026-11-03", "2026-11-03", BusinessType::Shipping);
    let found = alert(&computation, CheckType::MaximumWorkDayTime, "2026-11-03").expect("an alert");
    assert_eq!(extra(found, "work_range_in_seconds"), json!(52200.0));
    assert_eq!(extra(found, "work_range_start"), json!("2026-11-02T23:00:00"));
    assert!(
        found
            .explanation
            .summary_en
            .starts_with("14 h 30 min of work between 2026-11-02 19:30 and 2026-11-03 10:00,"),
        "{}",
        found.explanation.summary_en
    );
    assert!(
        found
            .explanation
            .summary_fr
            .starts_with("14 h 30 de travail entre le 02/11/2026 19:30 et le 03/11/2026 10:00,"),
        "{}",
        found.explanation.summary_fr
    );
    let (from, to) = (at("2026-11-02 19:30"), at("2026-11-03 10:00"));
    assert!(
        found
            .explanation
            .evidence
            .iter()
            .all(|e| e.start >= from && e.end <= to)
    );
}
