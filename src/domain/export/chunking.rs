//! How an Excel activity report is split into files, as the reference splits it: a strategy
//! chosen from the period's length and the number of workers, then the chunks (workers, dates
//! and a file-name suffix each) in the order the files are built. `validate_export_params`
//! answers with the plan; `download_activity_report` queues exactly these chunks.

use chrono::{Datelike, Duration, Months, NaiveDate};

/// A period of at least this many days is split per worker and calendar year.
pub const MAX_DAYS_FOR_YEAR_SPLIT: i64 = 365;
/// A period of more than this many days is split per calendar month.
pub const MAX_DAYS_FOR_MONTH_SPLIT: i64 = 31;
/// Most workers in one file.
pub const MAX_USERS_PER_BATCH: usize = 100;
/// Most files one export may be split into (not in the reference, which has no bound: a period
/// of centuries would list millions of chunks).
pub const MAX_CHUNKS: usize = 10_000;
/// Most worker ids all the chunks of one export may list together.
pub const MAX_CHUNKED_IDS: usize = 500_000;

/// How an export is split (`strategy`, with the reference's values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// A period of a year or more: a file per worker and calendar year.
    Over365Days,
    /// A period of more than 31 days: a file per calendar month and batch of 100 workers.
    Over31Days,
    /// More than 100 workers: a file per batch of 100 workers, the whole period.
    Over100Users,
    /// One file, or one per worker when asked (`one_file_by_employee`).
    SingleOrConsolidated,
}

impl Strategy {
    /// The strategy of a period of `days` days (inclusive count) for `users` workers: the first
    /// that applies, in this order.
    pub fn of(days: i64, users: usize) -> Strategy {
        if days >= MAX_DAYS_FOR_YEAR_SPLIT {
            Strategy::Over365Days
        } else if days > MAX_DAYS_FOR_MONTH_SPLIT {
            Strategy::Over31Days
        } else if users > MAX_USERS_PER_BATCH {
            Strategy::Over100Users
        } else {
            Strategy::SingleOrConsolidated
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Over365Days => "over_365_days",
            Strategy::Over31Days => "over_31_days",
            Strategy::Over100Users => "over_100_users",
            Strategy::SingleOrConsolidated => "single_or_consolidated",
        }
    }

    /// The reference's explanation of the split, in French, word for word.
    pub fn message(self, users: usize) -> &'static str {
        match self {
            Strategy::Over365Days => {
                "La période sélectionnée étant d'au moins 1 an, le téléchargement sera divisé en plusieurs fichiers pour des raisons techniques. Vous recevrez un fichier par année et par salarié."
            }
            Strategy::Over31Days if users > MAX_USERS_PER_BATCH => {
                "Le nombre de salariés sélectionnés étant supérieur à 100 et la période supérieure à 31 jours, le téléchargement sera divisé en plusieurs fichiers pour des raisons techniques. Vous recevrez un fichier par mois et par tranche de 100 salariés."
            }
            Strategy::Over31Days => {
                "La période sélectionnée étant supérieure à 31 jours, le téléchargement sera divisé en plusieurs fichiers pour des raisons techniques. Vous recevrez un fichier par mois."
            }
            Strategy::Over100Users => {
                "Le nombre de salariés sélectionnés étant supérieur à 100, le téléchargement sera divisé en plusieurs fichiers pour des raisons techniques. Vous recevrez un fichier par tranche de 100 salariés."
            }
            Strategy::SingleOrConsolidated => {
                "Vous pouvez choisir un fichier consolidé ou un fichier par salarié en utilisant le paramètre 'one_file_by_employee' (true pour un fichier par salarié, false ou omis pour un fichier consolidé)."
            }
        }
    }
}

/// A worker of the export, with the names its files are sorted and named by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worker {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
}

/// One file of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub user_ids: Vec<i64>,
    pub min_date: NaiveDate,
    pub max_date: NaiveDate,
    pub file_suffix: String,
}

/// An export's split: its strategy and its chunks in the order the files are built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub strategy: Strategy,
    pub users: usize,
    pub chunks: Vec<Chunk>,
}

/// Why an export cannot be split: it would be too many files or list too many ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    pub chunks: usize,
    pub ids: usize,
}

/// The period an Excel export covers: `min_date` (default: 364 days before today, whatever
/// `max_date` is, as the reference) to `max_date` (default: today), both included.
pub fn effective_dates(min: Option<NaiveDate>, max: Option<NaiveDate>, today: NaiveDate) -> (NaiveDate, NaiveDate) {
    (min.unwrap_or(today - Duration::days(364)), max.unwrap_or(today))
}

/// Days from `min` to `max`, both included (negative when `min` is after `max`).
pub fn days(min: NaiveDate, max: NaiveDate) -> i64 {
    (max - min).num_days() + 1
}

/// The split of an export of `workers` (any order) from `min` to `max`.
pub fn plan(workers: &[Worker], min: NaiveDate, max: NaiveDate, one_file_by_employee: bool) -> Result<Plan, TooLarge> {
    let strategy = Strategy::of(days(min, max), workers.len());
    // Counted before anything is listed: a period of centuries is refused, not built.
    let months = |d: NaiveDate| i64::from(d.year()) * 12 + i64::from(d.month0());
    let slice_count = match strategy {
        Strategy::Over365Days => i64::from(max.year()) - i64::from(min.year()) + 1,
        Strategy::Over31Days => months(max) - months(min) + 1,
        _ => 1,
    };
    let slice_count = usize::try_from(slice_count).unwrap_or(0);
    let batches = workers.len().div_ceil(MAX_USERS_PER_BATCH);
    let (chunks, ids) = match strategy {
        Strategy::Over365Days => (workers.len() * slice_count, workers.len() * slice_count),
        Strategy::Over31Days => (batches * slice_count, workers.len() * slice_count),
        Strategy::Over100Users => (batches, workers.len()),
        Strategy::SingleOrConsolidated if one_file_by_employee => (workers.len(), workers.len()),
        Strategy::SingleOrConsolidated => (1, workers.len()),
    };
    if chunks > MAX_CHUNKS || ids > MAX_CHUNKED_IDS {
        return Err(TooLarge { chunks, ids });
    }
    let slices = match strategy {
        Strategy::Over365Days => slices(min, max, |d| d.with_month(12).and_then(|d| d.with_day(31))),
        Strategy::Over31Days => slices(min, max, last_of_month),
        _ => vec![(min, max)],
    };
    let sorted = by_name(workers);
    let chunk = |user_ids: Vec<i64>, (min_date, max_date): (NaiveDate, NaiveDate), file_suffix: String| Chunk {
        user_ids,
        min_date,
        max_date,
        file_suffix,
    };
    let ids_of = |batch: &[&Worker]| batch.iter().map(|w| w.id).collect::<Vec<_>>();
    let chunks = match strategy {
        Strategy::Over365Days => sorted
            .iter()
            .flat_map(|w| {
                slices
                    .iter()
                    .map(move |&slice| chunk(vec![w.id], slice, format!("{}_{}", name_part(w), slice.0.year())))
            })
            .collect(),
        Strategy::Over31Days => {
            let several = batches > 1;
            slices
                .iter()
                .flat_map(|&slice| {
                    sorted.chunks(MAX_USERS_PER_BATCH).enumerate().map(move |(i, batch)| {
                        let month = slice.0;
                        let batch_part = if several {
                            format!("batch_{}_", i + 1)
                        } else {
                            String::new()
                        };
                        let suffix = format!(
                            "{}-{:02}_{batch_part}{}_{}",
                            month.year(),
                            month.month(),
                            MONTHS[month.month0() as usize],
                            month.year()
                        );
                        chunk(ids_of(batch), slice, suffix)
                    })
                })
                .collect()
        }
        Strategy::Over100Users => {
            let one = batches == 1;
            sorted
                .chunks(MAX_USERS_PER_BATCH)
                .enumerate()
                .map(|(i, batch)| {
                    let suffix = if one {
                        "export".to_string()
                    } else {
                        format!("batch_{}", i + 1)
                    };
                    chunk(ids_of(batch), (min, max), suffix)
                })
                .collect()
        }
        Strategy::SingleOrConsolidated if one_file_by_employee => sorted
            .iter()
            .map(|w| chunk(vec![w.id], (min, max), name_part(w)))
            .collect(),
        Strategy::SingleOrConsolidated => {
            let mut ids: Vec<i64> = workers.iter().map(|w| w.id).collect();
            ids.sort_unstable();
            vec![chunk(ids, (min, max), "consolide".to_string())]
        }
    };
    Ok(Plan {
        strategy,
        users: workers.len(),
        chunks,
    })
}

/// The months' names in file names: French, without accents.
const MONTHS: [&str; 12] = [
    "janvier",
    "fevrier",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "aout",
    "septembre",
    "octobre",
    "novembre",
    "decembre",
];

fn last_of_month(day: NaiveDate) -> Option<NaiveDate> {
    day.with_day(1)?.checked_add_months(Months::new(1))?.pred_opt()
}

/// `[min, max]` cut at the ends `end` gives (the last day of a day's year or month): the first
/// slice from `min`, whole ones, the last one to `max`. Empty when `min` is after `max`.
fn slices(min: NaiveDate, max: NaiveDate, end: impl Fn(NaiveDate) -> Option<NaiveDate>) -> Vec<(NaiveDate, NaiveDate)> {
    let mut slices = vec![];
    let mut from = min;
    while from <= max {
        let to = end(from).unwrap_or(max).min(max);
        slices.push((from, to));
        match to.succ_opt() {
            Some(next) => from = next,
            None => break,
        }
    }
    slices
}

/// The workers in the files' order: by last then first name, ignoring case, equal names by id.
fn by_name(workers: &[Worker]) -> Vec<&Worker> {
    let mut sorted: Vec<&Worker> = workers.iter().collect();
    sorted.sort_by_cached_key(|w| (w.last_name.to_lowercase(), w.first_name.to_lowercase(), w.id));
    sorted
}

/// A worker's part of a file name: `Last_First`, letters and digits only (case kept), or
/// `user_<id>` when neither name has any.
fn name_part(worker: &Worker) -> String {
    let clean = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).collect::<String>();
    let (last, first) = (clean(&worker.last_name), clean(&worker.first_name));
    if last.is_empty() && first.is_empty() {
        format!("user_{}", worker.id)
    } else {
        format!("{last}_{first}")
    }
}

#[cfg(test)]
mod tests;
