//! The body of `POST /companies/generate_tachograph_files`, read strictly: every problem is
//! reported per field, as the interface's 404 `details` says. The types, required fields and list
//! sizes are checked by the code generated from the contract (`TachographExportRequest`); the
//! period's defaults, order and length here.

use std::collections::BTreeMap;

use chrono::NaiveDate;

use crate::http::contract::types::TachographExportRequest;

/// Longest exported period, in days between `min_date` and `max_date` (as the reference).
pub const MAX_PERIOD_DAYS: i64 = 64;
/// Default period: `max_date` and the 27 days before it (four weeks).
pub const DEFAULT_PERIOD_DAYS: i64 = 27;
/// Most companies in one export.
pub const MAX_COMPANIES: usize = 100;
/// Most users named in one export.
pub const MAX_USERS: usize = 5_000;

/// A well-formed export request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRequest {
    pub company_ids: Vec<i64>,
    /// Empty: every employee of the companies over the period.
    pub user_ids: Vec<i64>,
    pub min_date: NaiveDate,
    pub max_date: NaiveDate,
    pub with_digital_signatures: bool,
    pub employee_version: bool,
}

/// Field → messages, for the 404 answer.
pub type Details = BTreeMap<String, Vec<String>>;

/// Reads the body: the generated validation of `TachographExportRequest` (JSON, types, required
/// fields, list sizes), then [`from_body`]; `today` is the default `max_date`.
pub fn parse(body: &[u8], today: NaiveDate) -> Result<ExportRequest, Details> {
    let body = TachographExportRequest::from_json(body).map_err(|error| error.details())?;
    from_body(body, today)
}

/// The period of a validated body: defaults, order, length.
pub fn from_body(body: TachographExportRequest, today: NaiveDate) -> Result<ExportRequest, Details> {
    let max_date = body.max_date.unwrap_or(today);
    let min_date = body
        .min_date
        .unwrap_or(max_date - chrono::Duration::days(DEFAULT_PERIOD_DAYS));
    let mut details = Details::new();
    if min_date > max_date {
        details.insert("max_date".into(), vec!["min_date must not be after max_date".into()]);
    } else if (max_date - min_date).num_days() > MAX_PERIOD_DAYS {
        details.insert(
            "max_date".into(),
            vec![format!("The requested period should be at most {MAX_PERIOD_DAYS} days")],
        );
    }
    if !details.is_empty() {
        return Err(details);
    }
    Ok(ExportRequest {
        company_ids: body.company_ids,
        user_ids: body.user_ids.unwrap_or_default(),
        min_date,
        max_date,
        with_digital_signatures: body.with_digital_signatures,
        employee_version: body.employee_version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
    }

    #[test]
    fn defaults_cover_four_weeks_ending_today() {
        let r = parse(br#"{"company_ids": [3]}"#, today()).unwrap();
        assert_eq!(r.company_ids, [3]);
        assert!(r.user_ids.is_empty());
        assert_eq!(r.max_date, today());
        assert_eq!(r.min_date, NaiveDate::from_ymd_opt(2026, 10, 26).unwrap());
        assert!(!r.with_digital_signatures && !r.employee_version);
    }

    #[test]
    fn every_problem_is_reported_per_field() {
        let e = parse(
            br#"{"company_ids": "3", "min_date": "22/11/2026", "employee_version": 1}"#,
            today(),
        )
        .unwrap_err();
        assert_eq!(
            e.keys().collect::<Vec<_>>(),
            ["company_ids", "employee_version", "min_date"]
        );
        assert!(
            parse(br#"{"company_ids": []}"#, today())
                .unwrap_err()
                .contains_key("company_ids")
        );
        assert!(parse(br#"{}"#, today()).unwrap_err().contains_key("company_ids"));
        assert!(parse(b"{nope", today()).unwrap_err().contains_key("json"));
        assert!(parse(b"[1]", today()).unwrap_err().contains_key("json"));
        let many: Vec<i64> = (0..5001).collect();
        let body = serde_json::json!({ "company_ids": [1], "user_ids": many }).to_string();
        assert_eq!(
            parse(body.as_bytes(), today()).unwrap_err()["user_ids"],
            ["Must contain at most 5000 ids."]
        );
        let body = serde_json::json!({ "company_ids": (0..101).collect::<Vec<i64>>() }).to_string();
        assert!(parse(body.as_bytes(), today()).unwrap_err().contains_key("company_ids"));
    }

    #[test]
    fn periods_are_ordered_and_bounded() {
        let e = parse(
            br#"{"company_ids": [1], "min_date": "2026-11-10", "max_date": "2026-11-01"}"#,
            today(),
        )
        .unwrap_err();
        assert_eq!(e["max_date"], ["min_date must not be after max_date"]);
        assert!(
            parse(
                br#"{"company_ids": [1], "min_date": "2026-01-01", "max_date": "2026-03-06"}"#,
                today()
            )
            .is_ok()
        );
        let e = parse(
            br#"{"company_ids": [1], "min_date": "2026-01-01", "max_date": "2026-03-07"}"#,
            today(),
        )
        .unwrap_err();
        assert!(e["max_date"][0].contains("64 days"));
    }
}
