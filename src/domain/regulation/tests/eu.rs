//! The EU driving-time checks (Roadlog extension, Regulation (EC) No 561/2006), hand-computed:
//! daily driving 9 h / 10 h twice a week, breaks after 4 h 30 (15 + 30 splittable), weekly 56 h,
//! two weeks 90 h, daily rest 11 h / 9 h, weekly rest 45 h / 24 h.

use serde_json::json;

use super::*;

fn run_eu(missions: &[Mission], from: &str, to: &str, eu: bool) -> Computation {
    compute::compute(&Input {
        tz: PARIS,
        business: BusinessType::LongDistance,
        missions,
        period_start: date(from),
        period_end: date(to),
        today: date("2025-06-02"),
        now: at("2025-12-31 12:00"),
        eu_driving_checks: eu,
    })
}

fn eu_alerts(computation: &Computation, check: CheckType) -> Vec<String> {
    computation
        .alerts
        .iter()
        .filter(|a| a.check == check)
        .map(|a| a.day.to_string())
        .collect()
}

/// The same spans on `count` consecutive days from `first`.
fn days(first: &str, count: i64, spans: &[(&str, &str, &str)]) -> Vec<Mission> {
    let list: Vec<Vec<_>> = (0..count)
        .map(|i| {
            let d = (date(first) + chrono::Duration::days(i)).to_string();
            spans
                .iter()
                .map(|(k, f, t)| act(k, &format!("{d} {f}"), Some(&format!("{d} {t}"))))
                .collect()
        })
        .collect();
    missions(&list)
}

const NINE_HOURS: &[(&str, &str, &str)] = &[("drive", "06:00", "10:30"), ("drive", "11:15", "15:45")];
const NINE_THIRTY: &[(&str, &str, &str)] = &[
    ("drive", "06:00", "10:30"),
    ("drive", "11:15", "15:45"),
    ("drive", "16:30", "17:00"),
];

#[test]
fn daily_driving_nine_hours_ten_twice_a_week() {
    // 9 h: fine.
    let c = run_eu(&days("2025-01-13", 1, NINE_HOURS), "2025-01-13", "2025-01-13", true);
    assert!(eu_alerts(&c, CheckType::EuDailyDriving).is_empty());
    // 9 h 30 on three days of one week: the first two are the week's extensions.
    let c = run_eu(&days("2025-01-13", 3, NINE_THIRTY), "2025-01-13", "2025-01-15", true);
    assert_eq!(eu_alerts(&c, CheckType::EuDailyDriving), ["2025-01-15"]);
    let third = alert(&c, CheckType::EuDailyDriving, "2025-01-15").unwrap();
    assert_eq!(extra(third, "driving_in_seconds"), json!(34200));
    assert_eq!(extra(third, "max_driving_in_seconds"), json!(32400));
    assert_eq!(extra(third, "extensions_in_week"), json!(3));
    // 10 h 01 is never allowed.
    let spans: &[(&str, &str, &str)] = &[
        ("drive", "06:00", "10:30"),
        ("drive", "11:15", "15:45"),
        ("drive", "16:30", "17:31"),
    ];
    let c = run_eu(&days("2025-01-13", 1, spans), "2025-01-13", "2025-01-13", true);
    let found = alert(&c, CheckType::EuDailyDriving, "2025-01-13").expect("an alert");
    assert_eq!(extra(found, "max_driving_in_seconds"), json!(36000));
    // Work that is not driving does not count.
    let spans: &[(&str, &str, &str)] = &[
        ("drive", "06:00", "10:30"),
        ("drive", "11:15", "15:45"),
        ("work", "15:45", "19:00"),
    ];
    let c = run_eu(&days("2025-01-13", 1, spans), "2025-01-13", "2025-01-13", true);
    assert!(eu_alerts(&c, CheckType::EuDailyDriving).is_empty());
}

#[test]
fn breaks_after_four_hours_thirty_split_fifteen_then_thirty() {
    type Case<'a> = (&'a [(&'a str, &'a str, &'a str)], bool);
    let cases: &[Case] = &[
        // 4 h 30 then 45 min: fine.
        (&[("drive", "06:00", "10:30"), ("drive", "11:15", "15:45")], false),
        // 4 h 31 in a row.
        (&[("drive", "06:00", "10:31")], true),
        // 2 h, 15 min, 2 h, 30 min, 2 h: the split break counts.
        (
            &[
                ("drive", "06:00", "08:00"),
                ("drive", "08:15", "10:15"),
                ("drive", "10:45", "12:45"),
            ],
            false,
        ),
        // 30 min first, then 15 min: not a split break; 4 h 45 of driving.
        (
            &[
                ("drive", "06:00", "08:00"),
                ("drive", "08:30", "10:30"),
                ("drive", "10:45", "11:30"),
            ],
            true,
        ),
        // Other work is not a break.
        (
            &[
                ("drive", "06:00", "08:30"),
                ("work", "08:30", "09:30"),
                ("drive", "09:30", "11:31"),
            ],
            true,
        ),
    ];
    for (spans, expected) in cases {
        let c = run_eu(&days("2025-01-14", 1, spans), "2025-01-14", "2025-01-14", true);
        assert_eq!(!eu_alerts(&c, CheckType::EuBreak).is_empty(), *expected, "{spans:?}");
    }
    let c = run_eu(
        &days("2025-01-14", 1, &[("drive", "06:00", "10:31")]),
        "2025-01-14",
        "2025-01-14",
        true,
    );
    let found = alert(&c, CheckType::EuBreak, "2025-01-14").unwrap();
    // 10:30 in Paris is 09:30 UTC.
    assert_eq!(extra(found, "limit_reached_at"), json!("2025-01-14T09:30:00"));
    assert_eq!(extra(found, "driving_without_break_in_seconds"), json!(16260));
}

#[test]
fn weekly_and_two_week_driving() {
    // Six days of 9 h 30 = 57 h in the week of 2025-01-13.
    let c = run_eu(&days("2025-01-13", 6, NINE_THIRTY), "2025-01-13", "2025-01-18", true);
    assert_eq!(eu_alerts(&c, CheckType::EuWeeklyDriving), ["2025-01-13"]);
    // 45 h then 47 h 30: 92 h 30 over two weeks, each week within 56 h.
    let mut both = days("2025-01-06", 5, NINE_HOURS);
    both.extend(days("2025-01-13", 5, NINE_THIRTY).into_iter().map(|mut m| {
        m.id += 100;
        for a in &mut m.activities {
            a.id += 1000;
            a.mission_id = m.id;
        }
        m
    }));
    let c = run_eu(&both, "2025-01-13", "2025-01-17", true);
    assert!(eu_alerts(&c, CheckType::EuWeeklyDriving).is_empty());
    assert_eq!(eu_alerts(&c, CheckType::EuTwoWeekDriving), ["2025-01-13"]);
    let found = alert(&c, CheckType::EuTwoWeekDriving, "2025-01-13").unwrap();
    assert_eq!(extra(found, "driving_in_seconds"), json!(92 * 3600 + 1800));
    assert_eq!(extra(found, "previous_week_driving_in_seconds"), json!(45 * 3600));
}

#[test]
fn daily_rests_eleven_hours_or_nine_reduced() {
    // Drive until 17:00, start again at 02:00 (9 h: reduced), 04:00 (11 h) or 01:00 (8 h).
    let cases = [("02:00", false), ("04:00", false), ("01:00", true)];
    for (next, expected) in cases {
        let list = vec![
            vec![
                act("drive", "2025-01-14 08:00", Some("2025-01-14 12:00")),
                act("drive", "2025-01-14 13:00", Some("2025-01-14 17:00")),
            ],
            vec![act(
                "drive",
                &format!("2025-01-15 {next}"),
                Some(&format!(
                    "2025-01-15 {}",
                    if next == "01:00" { "05:00" } else { "06:00" }
                )),
            )],
        ];
        let c = run_eu(&missions(&list), "2025-01-14", "2025-01-14", true);
        assert_eq!(
            eu_alerts(&c, CheckType::EuDailyRest) == ["2025-01-14"],
            expected,
            "next start {next}"
        );
    }
    // Four reduced rests in a row (no weekly rest between): the fourth is refused.
    let c = run_eu(
        &days(
            "2025-01-13",
            5,
            &[("drive", "08:00", "12:00"), ("work", "12:00", "23:00")],
        ),
        "2025-01-13",
        "2025-01-17",
        true,
    );
    assert_eq!(eu_alerts(&c, CheckType::EuDailyRest), ["2025-01-16"]);
}

#[test]
fn weekly_rests_forty_five_or_twenty_four_hours() {
    // Every day 08:00–18:00 for two weeks and a day: no rest of 24 h.
    let every_day: &[(&str, &str, &str)] = &[("drive", "08:00", "12:00"), ("work", "12:45", "18:00")];
    let c = run_eu(&days("2025-01-06", 15, every_day), "2025-01-13", "2025-01-19", true);
    assert_eq!(eu_alerts(&c, CheckType::EuWeeklyRest), ["2025-01-13"]);
    let found = alert(&c, CheckType::EuWeeklyRest, "2025-01-13").unwrap();
    assert_eq!(extra(found, "longest_rest_in_seconds"), json!(14 * 3600));
    // Sunday 5th, then Monday to Saturday twice, then Monday 20th: each week's longest rest is
    // 38 h (Saturday 18:00 to Monday 08:00), so two reduced weekly rests in a row.
    let mut list = days("2025-01-05", 7, every_day);
    for (n, (first, count)) in [("2025-01-13", 6), ("2025-01-20", 1)].into_iter().enumerate() {
        list.extend(days(first, count, every_day).into_iter().map(|mut m| {
            m.id += 100 * (n as i64 + 1);
            for a in &mut m.activities {
                a.id += 1000 * (n as i64 + 1);
                a.mission_id = m.id;
            }
            m
        }));
    }
    list.retain(|m| m.activities[0].start != at("2025-01-12 08:00"));
    let c = run_eu(&list, "2025-01-13", "2025-01-19", true);
    assert_eq!(eu_alerts(&c, CheckType::EuWeeklyRest), ["2025-01-13"]);
    let found = alert(&c, CheckType::EuWeeklyRest, "2025-01-13").unwrap();
    assert_eq!(extra(found, "longest_rest_in_seconds"), json!(38 * 3600));
    assert_eq!(extra(found, "previous_week_longest_rest_in_seconds"), json!(38 * 3600));
    assert_eq!(extra(found, "min_weekly_rest_in_seconds"), json!(45 * 3600));
}

#[test]
fn only_companies_that_opt_in_get_eu_alerts() {
    let c = run_eu(
        &days("2025-01-13", 1, &[("drive", "06:00", "17:00")]),
        "2025-01-13",
        "2025-01-13",
        false,
    );
    assert!(c.alerts.iter().all(|a| !a.check.def().extension));
    let c = run_eu(
        &days("2025-01-13", 1, &[("drive", "06:00", "17:00")]),
        "2025-01-13",
        "2025-01-13",
        true,
    );
    let types: Vec<&str> = c
        .alerts
        .iter()
        .filter(|a| a.check.def().extension)
        .map(|a| a.check.as_str())
        .collect();
    assert_eq!(types, ["euDailyDriving", "euBreak"]);
    let found = alert(&c, CheckType::EuBreak, "2025-01-13").unwrap();
    assert!(found.explanation.threshold_en.contains("561/2006"));
    assert!(found.explanation.summary_fr.contains("sans pause de 45 min"));
}
