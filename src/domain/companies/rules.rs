//! The rules that decide whether a user may hold a new employment, as pure functions over the
//! user's current employments (reference: older primary/secondary behaviour).
//!
//! * two employments of one user in the same company must not overlap (a company records one
//!   attachment at a time; overlapping ones would make "who was employed when" ambiguous);
//! * a user has at most one primary employment at any date (the primary employer is the one
//!   responsible for the working-time rules);
//! * a secondary employment needs a primary one over the same period;
//! * without an explicit choice, a new employment is primary exactly when the user has no
//!   primary employment over that period.
//!
//! The caller runs these checks inside a transaction serialised per user, so that two concurrent
//! requests never both pass them.

use chrono::NaiveDate;

use crate::errors::{AppError, Code};

/// A period of dates, both ends included; `end: None` is open-ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    pub start: NaiveDate,
    pub end: Option<NaiveDate>,
}

impl Period {
    pub fn overlaps(&self, other: &Period) -> bool {
        let ends_after = |p: &Period, day: NaiveDate| p.end.is_none_or(|end| end >= day);
        ends_after(self, other.start) && ends_after(other, self.start)
    }
}

/// An employment of the user that still counts (neither rejected nor dismissed).
#[derive(Clone, Copy, Debug)]
pub struct Held {
    pub id: i64,
    pub company_id: i64,
    pub period: Period,
    pub is_primary: bool,
}

/// Decides whether the new employment is primary, or refuses it.
pub fn admit(held: &[Held], company_id: i64, period: Period, is_primary: Option<bool>) -> Result<bool, AppError> {
    if let Some(same) = held
        .iter()
        .find(|h| h.company_id == company_id && h.period.overlaps(&period))
    {
        return Err(AppError::new(
            Code::OverlappingEmployments,
            "User cannot have two overlapping employments on the same company",
        )
        .with("overlapType", "company")
        .with("conflictingEmploymentId", same.id));
    }
    let primary = held.iter().find(|h| h.is_primary && h.period.overlaps(&period));
    match (is_primary, primary) {
        (None, existing) => Ok(existing.is_none()),
        (Some(true), Some(existing)) => Err(AppError::new(
            Code::OverlappingEmployments,
            "User cannot have two overlapping primary employments",
        )
        .with("overlapType", "primary")
        .with("conflictingEmploymentId", existing.id)),
        (Some(true), None) => Ok(true),
        (Some(false), Some(_)) => Ok(false),
        (Some(false), None) => Err(AppError::new(
            Code::NoPrimaryEmployment,
            "Cannot create a secondary employment for user because there is no primary employment in the same period",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn p(start: &str, end: Option<&str>) -> Period {
        Period {
            start: d(start),
            end: end.map(d),
        }
    }

    fn held(id: i64, company_id: i64, period: Period, is_primary: bool) -> Held {
        Held {
            id,
            company_id,
            period,
            is_primary,
        }
    }

    #[test]
    fn periods_overlap_with_both_ends_included() {
        assert!(p("2026-01-01", Some("2026-01-31")).overlaps(&p("2026-01-31", None)));
        assert!(!p("2026-01-01", Some("2026-01-30")).overlaps(&p("2026-01-31", None)));
        assert!(p("2026-01-01", None).overlaps(&p("2030-01-01", Some("2030-01-02"))));
        assert!(!p("2026-02-01", None).overlaps(&p("2026-01-01", Some("2026-01-31"))));
    }

    #[test]
    fn first_employment_is_primary_by_default() {
        assert!(admit(&[], 1, p("2026-01-01", None), None).unwrap());
    }

    #[test]
    fn later_employment_elsewhere_is_secondary_by_default() {
        let existing = [held(1, 1, p("2026-01-01", None), true)];
        assert!(!admit(&existing, 2, p("2026-03-01", None), None).unwrap());
        // After the primary ends, a new one is primary again.
        let ended = [held(1, 1, p("2026-01-01", Some("2026-02-28")), true)];
        assert!(admit(&ended, 2, p("2026-03-01", None), None).unwrap());
    }

    #[test]
    fn same_company_overlap_is_refused() {
        let existing = [held(7, 1, p("2026-01-01", Some("2026-06-30")), true)];
        let error = admit(&existing, 1, p("2026-06-30", None), None).unwrap_err();
        assert_eq!(error.code, Code::OverlappingEmployments);
        assert!(admit(&existing, 1, p("2026-07-01", None), None).is_ok());
    }

    #[test]
    fn two_primaries_may_not_overlap() {
        let existing = [held(1, 1, p("2026-01-01", None), true)];
        let error = admit(&existing, 2, p("2027-01-01", None), Some(true)).unwrap_err();
        assert_eq!(error.code, Code::OverlappingEmployments);
        assert_eq!(error.extensions[0], ("overlapType", serde_json::json!("primary")));
    }

    #[test]
    fn secondary_needs_a_primary() {
        let error = admit(&[], 1, p("2026-01-01", None), Some(false)).unwrap_err();
        assert_eq!(error.code, Code::NoPrimaryEmployment);
        let existing = [held(1, 1, p("2026-01-01", None), true)];
        assert!(!admit(&existing, 2, p("2026-01-01", None), Some(false)).unwrap());
        let secondary_only = [held(1, 1, p("2026-01-01", None), false)];
        assert_eq!(
            admit(&secondary_only, 2, p("2026-01-01", None), Some(false))
                .unwrap_err()
                .code,
            Code::NoPrimaryEmployment
        );
    }
}
