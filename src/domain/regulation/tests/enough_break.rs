//! `enoughBreak` (NATINF 35187): 30 min of breaks past 6 h of work, 45 min past 9 h, only
//! breaks of at least 15 min count, and no run of work over 6 h.

use serde_json::json;

use super::*;

const DAY: &str = "2025-01-14";

#[test]
fn breaks_and_runs_with_hand_computed_totals() {
    // (spans, not_enough_break, too_much_uninterrupted_work_time, min_break_time_in_minutes)
    type Case<'a> = (&'a [(&'a str, &'a str, &'a str)], Option<(bool, bool)>, Option<i64>);
    let cases: &[Case] = &[
        // 6 h of work exactly needs no break.
        (&[("drive", "06:00", "09:00"), ("work", "09:00", "12:00")], None, None),
        // 7 h with 30 min: fine.
        (&[("drive", "06:00", "09:30"), ("work", "10:00", "13:30")], None, None),
        // 7 h with 20 min: 30 min required.
        (
            &[("drive", "06:00", "09:30"), ("work", "09:50", "13:20")],
            Some((true, false)),
            Some(30),
        ),
        // 7 h with two 10-minute gaps: gaps under 15 min are not breaks.
        (
            &[
                ("drive", "06:00", "08:20"),
                ("work", "08:30", "10:50"),
                ("drive", "11:00", "13:20"),
            ],
            Some((true, false)),
            Some(30),
        ),
        // 9 h 30 with 40 min: 45 min required.
        (
            &[("drive", "06:00", "10:45"), ("work", "11:25", "16:10")],
            Some((true, false)),
            Some(45),
        ),
        // 9 h 30 with 45 min: fine.
        (&[("drive", "06:00", "10:45"), ("work", "11:30", "16:15")], None, None),
        // 6 h 01 without a gap: too long a run, and no break for more than 6 h of work.
        (
            &[("drive", "06:00", "09:00"), ("work", "09:00", "12:01")],
            Some((true, true)),
            Some(30),
        ),
        // A transfer splits the run but is not a break.
        (
            &[
                ("drive", "06:00", "09:00"),
                ("transfer", "09:00", "09:10"),
                ("work", "09:10", "12:11"),
            ],
            Some((true, false)),
            Some(30),
        ),
        // A one-minute gap splits the run: 5 h + 1 h 30, and 6 h 30 of work needs 30 min.
        (
            &[("drive", "06:00", "11:00"), ("work", "11:01", "12:31")],
            Some((true, false)),
            Some(30),
        ),
        // 6 h 30 run with a 30 min break before it: only the run.
        (
            &[("work", "05:00", "05:30"), ("drive", "06:00", "12:30")],
            Some((false, true)),
            None,
        ),
    ];
    for (spans, flags, minutes) in cases {
        let computation = run(&day_missions(&[(DAY, spans)]), DAY, DAY, BusinessType::Shipping);
        let found = alert(&computation, CheckType::EnoughBreak, DAY);
        assert_eq!(
            found.map(|a| (
                extra(a, "not_enough_break") == json!(true),
                extra(a, "too_much_uninterrupted_work_time") == json!(true)
            )),
            *flags,
            "{spans:?}"
        );
        if let Some(a) = found {
            assert_eq!(extra(a, "sanction_code"), json!("NATINF 35187"));
            assert_eq!(
                extra(a, "min_break_time_in_minutes"),
                minutes.map(|m| json!(m)).unwrap_or_default()
            );
        }
    }
}

#[test]
fn the_extra_merges_both_halves() {
    let computation = run(
        &day_missions(&[(DAY, &[("drive", "06:00", "09:30"), ("work", "09:50", "13:20")])]),
        DAY,
        DAY,
        BusinessType::Vtc,
    );
    assert_eq!(
        alerts(&computation, CheckType::EnoughBreak),
        [(
            DAY.to_string(),
            r#"{"sanction_code": "NATINF 35187", "work_range_end": "2025-01-14T12:20:00", "not_enough_break": true, "work_range_start": "2025-01-14T05:00:00", "work_range_in_seconds": 25200, "min_break_time_in_minutes": 30, "total_break_time_in_seconds": 1200.0, "max_uninterrupted_work_in_hours": 6, "too_much_uninterrupted_work_time": false}"#
                .to_string()
        )]
    );
}

#[test]
fn the_run_is_reported_with_its_bounds() {
    let computation = run(
        &day_missions(&[(DAY, &[("work", "05:00", "05:30"), ("drive", "06:00", "12:30")])]),
        DAY,
        DAY,
        BusinessType::Shipping,
    );
    let found = alert(&computation, CheckType::EnoughBreak, DAY).expect("an alert");
    assert_eq!(extra(found, "longest_uninterrupted_work_in_seconds"), json!(23400.0));
    assert_eq!(
        extra(found, "longest_uninterrupted_work_start"),
        json!("2025-01-14T05:00:00")
    );
    assert_eq!(
        extra(found, "longest_uninterrupted_work_end"),
        json!("2025-01-14T11:30:00")
    );
    assert_eq!(
        found.explanation.summary_en,
        "6 h 30 min of work without a break from 2025-01-14 06:00 to 2025-01-14 12:30, more than 6 h."
    );
    assert_eq!(found.explanation.evidence[0].activity_ids.len(), 1);
}
