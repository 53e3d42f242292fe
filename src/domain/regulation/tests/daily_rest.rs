//! `minimumDailyRest`: every activity of the day must be followed, within 14 h of its start, by
//! the beginning of a rest of at least 10 h (10 h in every 24 h), whatever the business.

use serde_json::json;

use super::*;

#[test]
fn rests_shorter_than_ten_hours_fire_for_every_business() {
    // (rest between the 14th's end at 20:00 and the 15th's start, alert expected on the 14th)
    let cases = [("04:00", true), ("05:59", true), ("06:00", false), ("08:00", false)];
    for business in BusinessType::ALL {
        for (next_start, expected) in cases {
            let computation = run(
                &day_missions(&[
                    ("2025-01-14", &[("work", "06:00", "12:00"), ("drive", "12:30", "20:00")]),
                    ("2025-01-15", &[("drive", next_start, "12:00")]),
                ]),
                "2025-01-14",
                "2025-01-15",
                business,
            );
            let found = alerts(&computation, CheckType::MinimumDailyRest);
            let days: Vec<&str> = found.iter().map(|(d, _)| d.as_str()).collect();
            let want: &[&str] = if expected { &["2025-01-14"] } else { &[] };
            assert_eq!(days, want, "{business:?} next start {next_start}");
        }
    }
}

#[test]
fn the_extra_names_the_breach_and_its_longest_rest() {
    let computation = run(
        &day_missions(&[
            ("2025-01-14", &[("work", "06:00", "12:00"), ("drive", "12:30", "20:00")]),
            ("2025-01-15", &[("drive", "04:00", "12:00")]),
        ]),
        "2025-01-14",
        "2025-01-15",
        BusinessType::Shipping,
    );
    // The rest from 20:00 to 04:00 (8 h) is the longest of the 24 h from 06:00.
    assert_eq!(
        alerts(&computation, CheckType::MinimumDailyRest),
        [(
            "2025-01-14".to_string(),
            r#"{"sanction_code": "NATINF 20525", "breach_period_end": "2025-01-15T05:00:00", "breach_period_start": "2025-01-14T05:00:00", "min_daily_break_in_hours": 10, "breach_period_max_break_in_seconds": 28800}"#
                .to_string()
        )]
    );
    let found = alert(&computation, CheckType::MinimumDailyRest, "2025-01-14").unwrap();
    let rest = found.explanation.evidence.last().unwrap();
    assert_eq!(rest.en, "rest from 2025-01-14 20:00 to 2025-01-15 04:00 (8 h 00 min)");
    assert_eq!(rest.fr, "repos du 14/01/2025 20:00 au 15/01/2025 04:00 (8 h 00)");
    assert!(found.explanation.threshold_fr.contains("R. 3312-53"));
}

#[test]
fn a_night_across_midnight_followed_by_a_rest_is_fine() {
    let computation = run(
        &missions(&[vec![act("drive", "2025-01-14 20:00", Some("2025-01-15 04:00"))]]),
        "2025-01-14",
        "2025-01-15",
        BusinessType::Shipping,
    );
    assert!(alerts(&computation, CheckType::MinimumDailyRest).is_empty());
    assert!(alerts(&computation, CheckType::MaximumWorkDayTime).is_empty());
}

#[test]
fn a_long_rest_inside_the_day_covers_the_work_before_it() {
    // 02:00–06:00, 10 h of rest, 16:00–22:00, then the next day from 08:00 (10 h after 22:00).
    let computation = run(
        &day_missions(&[
            ("2025-01-14", &[("work", "02:00", "06:00"), ("work", "16:00", "22:00")]),
            ("2025-01-15", &[("work", "08:00", "12:00")]),
        ]),
        "2025-01-14",
        "2025-01-15",
        BusinessType::Frequent,
    );
    assert!(alerts(&computation, CheckType::MinimumDailyRest).is_empty());
    // With only 9 h 59 after 22:00, the work from 16:00 is not covered.
    let computation = run(
        &day_missions(&[
            ("2025-01-14", &[("work", "02:00", "06:00"), ("work", "16:00", "22:00")]),
            ("2025-01-15", &[("work", "07:59", "12:00")]),
        ]),
        "2025-01-14",
        "2025-01-15",
        BusinessType::Frequent,
    );
    let found = alert(&computation, CheckType::MinimumDailyRest, "2025-01-14").expect("an alert");
    assert_eq!(extra(found, "breach_period_start"), json!("2025-01-14T15:00:00"));
}

#[test]
fn a_holiday_is_rest_not_work() {
    // The breach above, with the next morning a holiday (`off`, as logHoliday records it)
    // instead of driving: the rest goes on through the holiday, and a holiday of 23 h is no
    // long working day.
    for business in BusinessType::ALL {
        let computation = run(
            &day_missions(&[
                ("2025-01-14", &[("work", "06:00", "12:00"), ("drive", "12:30", "20:00")]),
                ("2025-01-15", &[("off", "00:30", "23:30")]),
            ]),
            "2025-01-14",
            "2025-01-15",
            business,
        );
        assert!(
            alerts(&computation, CheckType::MinimumDailyRest).is_empty(),
            "{business:?}"
        );
        let on_holiday: Vec<_> = computation
            .alerts
            .iter()
            .filter(|a| a.day == date("2025-01-15"))
            .map(|a| (a.check, a.extra_text()))
            .collect();
        assert!(on_holiday.is_empty(), "{business:?} {on_holiday:?}");
    }
}
