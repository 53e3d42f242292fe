//! The reference's chunking cases (its `test_export_chunking.py`), replayed.

use super::*;

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn worker(id: i64, first_name: &str, last_name: &str) -> Worker {
    Worker {
        id,
        first_name: first_name.to_string(),
        last_name: last_name.to_string(),
    }
}

/// `n` workers with distinct names sorting in id order.
fn many(n: i64) -> Vec<Worker> {
    (1..=n).map(|i| worker(i, "Prénom", &format!("Nom{i:04}"))).collect()
}

fn suffixes(plan: &Plan) -> Vec<&str> {
    plan.chunks.iter().map(|c| c.file_suffix.as_str()).collect()
}

#[test]
fn days_are_counted_inclusively() {
    assert_eq!(days(day(2024, 3, 1), day(2024, 3, 1)), 1);
    assert_eq!(days(day(2024, 1, 1), day(2024, 12, 31)), 366);
    assert_eq!(days(day(2024, 3, 2), day(2024, 3, 1)), 0);
}

#[test]
fn the_default_period_is_the_year_before_today() {
    let today = day(2026, 11, 29);
    let (min, max) = effective_dates(None, None, today);
    assert_eq!((min, max), (day(2025, 11, 30), today));
    assert_eq!(days(min, max), 365);
    // Only `max_date` given: still 364 days before today, so a year ending today.
    let plan = plan(&many(2), min, effective_dates(None, Some(today), today).1, false).unwrap();
    assert_eq!(plan.strategy, Strategy::Over365Days);
}

#[test]
fn a_year_exactly_is_split_per_worker_and_year() {
    let workers = [worker(1, "John", "Doe")];
    let plan = plan(&workers, day(2023, 1, 1), day(2023, 12, 31), false).unwrap();
    assert_eq!(plan.strategy, Strategy::Over365Days);
    assert_eq!(suffixes(&plan), ["Doe_John_2023"]);
}

#[test]
fn years_are_sliced_at_their_ends_worker_by_worker() {
    let workers = [worker(7, "Jane", "Roe"), worker(3, "John", "Doe")];
    let plan = plan(&workers, day(2023, 6, 15), day(2025, 3, 10), false).unwrap();
    assert_eq!(plan.chunks.len(), 6);
    assert_eq!(
        suffixes(&plan),
        [
            "Doe_John_2023",
            "Doe_John_2024",
            "Doe_John_2025",
            "Roe_Jane_2023",
            "Roe_Jane_2024",
            "Roe_Jane_2025"
        ]
    );
    let first = &plan.chunks[0];
    assert_eq!(
        (first.min_date, first.max_date, first.user_ids.as_slice()),
        (day(2023, 6, 15), day(2023, 12, 31), &[3][..])
    );
    let middle = &plan.chunks[1];
    assert_eq!((middle.min_date, middle.max_date), (day(2024, 1, 1), day(2024, 12, 31)));
    let last = &plan.chunks[2];
    assert_eq!((last.min_date, last.max_date), (day(2025, 1, 1), day(2025, 3, 10)));
}

#[test]
fn months_are_sliced_at_their_ends() {
    let plan = plan(&many(3), day(2024, 10, 1), day(2025, 2, 28), false).unwrap();
    assert_eq!(plan.strategy, Strategy::Over31Days);
    assert_eq!(
        suffixes(&plan),
        [
            "2024-10_octobre_2024",
            "2024-11_novembre_2024",
            "2024-12_decembre_2024",
            "2025-01_janvier_2025",
            "2025-02_fevrier_2025"
        ]
    );
    assert!(plan.chunks.iter().all(|c| c.user_ids == [1, 2, 3]));
    // Partial months at both ends, a leap February in between.
    let plan = super::plan(&many(1), day(2024, 1, 15), day(2024, 3, 2), false).unwrap();
    let dates: Vec<_> = plan.chunks.iter().map(|c| (c.min_date, c.max_date)).collect();
    assert_eq!(
        dates,
        [
            (day(2024, 1, 15), day(2024, 1, 31)),
            (day(2024, 2, 1), day(2024, 2, 29)),
            (day(2024, 3, 1), day(2024, 3, 2))
        ]
    );
    // 32 days: two months.
    assert_eq!(
        super::plan(&many(1), day(2024, 5, 1), day(2024, 6, 1), false)
            .unwrap()
            .chunks
            .len(),
        2
    );
}

#[test]
fn months_with_many_workers_are_batched_month_first() {
    let plan = plan(&many(250), day(2024, 1, 1), day(2024, 2, 29), false).unwrap();
    assert_eq!(plan.strategy, Strategy::Over31Days);
    let sizes: Vec<usize> = plan.chunks.iter().map(|c| c.user_ids.len()).collect();
    assert_eq!(sizes, [100, 100, 50, 100, 100, 50]);
    assert_eq!(plan.chunks[1].file_suffix, "2024-01_batch_2_janvier_2024");
    assert_eq!(plan.chunks[3].file_suffix, "2024-02_batch_1_fevrier_2024");
    assert_eq!(plan.strategy.message(250), Strategy::Over31Days.message(101));
    assert!(plan.strategy.message(250).contains("tranche de 100"));
    assert!(!Strategy::Over31Days.message(100).contains("tranche"));
}

#[test]
fn more_than_a_hundred_workers_are_batched() {
    let plan = plan(&many(101), day(2024, 1, 1), day(2024, 1, 15), false).unwrap();
    assert_eq!(plan.strategy, Strategy::Over100Users);
    assert_eq!(suffixes(&plan), ["batch_1", "batch_2"]);
    assert_eq!(plan.chunks[1].user_ids, [101]);
    assert_eq!(
        super::plan(&many(250), day(2024, 1, 1), day(2024, 1, 20), false)
            .unwrap()
            .chunks
            .len(),
        3
    );
    // Exactly 31 days is not over 31.
    assert_eq!(
        super::plan(&many(101), day(2024, 1, 1), day(2024, 1, 31), false)
            .unwrap()
            .strategy,
        Strategy::Over100Users
    );
    // Exactly 100 workers is one file.
    let plan = super::plan(&many(100), day(2024, 1, 1), day(2024, 1, 15), false).unwrap();
    assert_eq!(
        (plan.strategy, suffixes(&plan)),
        (Strategy::SingleOrConsolidated, vec!["consolide"])
    );
}

#[test]
fn a_short_period_is_one_file_or_one_per_worker() {
    let workers = [
        worker(9, "Ann", "White"),
        worker(2, "Bob", "smith"),
        worker(5, "Cy", "Jones"),
    ];
    let plan = plan(&workers, day(2024, 1, 1), day(2024, 1, 15), false).unwrap();
    assert_eq!(plan.chunks.len(), 1);
    assert_eq!(
        plan.chunks[0].user_ids,
        [2, 5, 9],
        "the consolidated file keeps the ids' order"
    );
    let plan = super::plan(&workers, day(2024, 1, 1), day(2024, 1, 15), true).unwrap();
    assert_eq!(
        suffixes(&plan),
        ["Jones_Cy", "smith_Bob", "White_Ann"],
        "by name, ignoring case"
    );
    // Ignored over 31 days.
    let plan = super::plan(&workers, day(2024, 1, 1), day(2024, 3, 1), true).unwrap();
    assert_eq!((plan.strategy, plan.chunks.len()), (Strategy::Over31Days, 3));
}

#[test]
fn no_worker_is_one_empty_file() {
    let plan = plan(&[], day(2024, 1, 1), day(2024, 1, 15), false).unwrap();
    assert_eq!(plan.chunks.len(), 1);
    assert!(plan.chunks[0].user_ids.is_empty());
}

#[test]
fn names_are_cleaned_and_nameless_workers_named_by_id() {
    let workers = [worker(4, "", ""), worker(8, "Jean-Éric", "d'Arc Dupré")];
    let plan = plan(&workers, day(2024, 1, 1), day(2024, 1, 15), true).unwrap();
    assert_eq!(suffixes(&plan), ["user_4", "dArcDupré_JeanÉric"]);
}

#[test]
fn two_years_of_many_workers_is_per_worker_and_year() {
    let plan = plan(&many(200), day(2023, 1, 1), day(2024, 12, 31), false).unwrap();
    assert_eq!((plan.strategy, plan.chunks.len()), (Strategy::Over365Days, 400));
}

#[test]
fn a_split_into_too_many_files_is_refused_before_it_is_listed() {
    assert_eq!(
        plan(&many(1), day(1, 1, 1), day(9999, 12, 31), false)
            .unwrap()
            .chunks
            .len(),
        9999
    );
    let too_long = plan(&many(2), day(1, 1, 1), day(9999, 12, 31), false).unwrap_err();
    assert_eq!(too_long.chunks, 19_998);
    let centuries = plan(&many(1), NaiveDate::MIN, NaiveDate::MAX, false).unwrap_err();
    assert!(centuries.chunks > 500_000);
    // 5,000 workers over 26 years: 130,000 files.
    assert!(plan(&many(5_000), day(2000, 1, 1), day(2025, 12, 31), false).is_err());
    // 5,000 workers over 11 months: 550 files, but 55,000 ids; 200 months: 1,000,000 ids.
    assert!(plan(&many(5_000), day(2024, 1, 1), day(2024, 11, 30), false).is_ok());
    assert!(plan(&many(5_000), day(2000, 1, 1), day(2016, 8, 31), false).is_err());
}

#[test]
fn a_period_that_ends_before_it_starts_is_one_file() {
    let plan = plan(&many(2), day(2024, 3, 10), day(2024, 3, 1), false).unwrap();
    assert_eq!(plan.strategy, Strategy::SingleOrConsolidated);
    assert_eq!(plan.chunks.len(), 1);
}
