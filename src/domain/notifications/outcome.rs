//! What an admin's validation means for a worker, measured on their activities: the outcome
//! the notification and the e-mail tell (`triggers` finds it, `mails` writes it).

/// The measures a worker compares: first start, last end (`None`: running), work seconds.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Measures {
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub work: i64,
}

/// The measures of a set of activities (type, start, end); `off` counts as work in a holiday
/// mission (the reference counts it in the service of holiday missions).
pub(super) fn measures(activities: &[(String, i64, Option<i64>)], at: i64) -> Measures {
    let holiday = activities.iter().any(|(kind, _, _)| kind == "off");
    let counts = |kind: &str| matches!(kind, "drive" | "work" | "support") || (holiday && kind == "off");
    let start = activities.iter().map(|a| a.1).min();
    let end = if activities.iter().any(|a| a.2.is_none()) {
        None
    } else {
        activities.iter().filter_map(|a| a.2).max()
    };
    let work = activities
        .iter()
        .filter(|(kind, _, _)| counts(kind))
        .map(|(_, start, end)| end.unwrap_or(at).max(*start) - start)
        .sum();
    Measures { start, end, work }
}

/// What an admin's validation means for a worker.
pub(super) enum Outcome {
    /// The worker never acted on the mission and has time in it.
    New { now: Measures, holiday: bool },
    /// The worker's time changed after their last action.
    Changed {
        then: Measures,
        now: Measures,
        holiday: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(kind: &str, start: i64, end: Option<i64>) -> (String, i64, Option<i64>) {
        (kind.to_string(), start, end)
    }

    #[test]
    fn measures_of_a_day() {
        let m = measures(
            &[
                a("drive", 0, Some(100)),
                a("transfer", 100, Some(300)),
                a("work", 300, Some(400)),
            ],
            1000,
        );
        assert_eq!(
            m,
            Measures {
                start: Some(0),
                end: Some(400),
                work: 200
            }
        );
        let running = measures(&[a("drive", 0, Some(100)), a("work", 100, None)], 1000);
        assert_eq!(
            running,
            Measures {
                start: Some(0),
                end: None,
                work: 1000
            }
        );
        let holiday = measures(&[a("off", 0, Some(500))], 1000);
        assert_eq!(holiday.work, 500);
        assert_eq!(
            measures(&[], 0),
            Measures {
                start: None,
                end: None,
                work: 0
            }
        );
    }
}
