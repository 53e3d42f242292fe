//! The body of `POST /companies/generate_tachograph_files`, read strictly: every problem is
//! reported per field, as the interface's 404 `details` says.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde_json::Value;

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

fn ids(value: Option<&Value>, field: &str, required: bool, most: usize, details: &mut Details) -> Vec<i64> {
    let mut complain = |m: &str| details.entry(field.to_string()).or_default().push(m.to_string());
    match value {
        None | Some(Value::Null) => {
            if required {
                complain("Missing data for required field.");
            }
            Vec::new()
        }
        Some(Value::Array(items)) if items.len() > most => {
            complain(&format!("Must contain at most {most} ids."));
            Vec::new()
        }
        Some(Value::Array(items)) => {
            let parsed: Option<Vec<i64>> = items.iter().map(Value::as_i64).collect();
            match parsed {
                Some(list) if required && list.is_empty() => {
                    complain("Must contain at least one id.");
                    list
                }
                Some(list) => list,
                None => {
                    complain("Must be a list of integers.");
                    Vec::new()
                }
            }
        }
        Some(_) => {
            complain("Must be a list of integers.");
            Vec::new()
        }
    }
}

fn date(value: Option<&Value>, field: &str, details: &mut Details) -> Option<NaiveDate> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => match NaiveDate::parse_from_str(s, "%Y-%m-%d") {
            Ok(d) if s.len() == 10 => Some(d),
            _ => {
                details
                    .entry(field.into())
                    .or_default()
                    .push("Not a valid date: use YYYY-MM-DD.".into());
                None
            }
        },
        Some(_) => {
            details
                .entry(field.into())
                .or_default()
                .push("Not a valid date: use YYYY-MM-DD.".into());
            None
        }
    }
}

fn flag(value: Option<&Value>, field: &str, details: &mut Details) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            details
                .entry(field.into())
                .or_default()
                .push("Not a valid boolean.".into());
            false
        }
    }
}

/// Reads the body; `today` is the default `max_date`.
pub fn parse(body: &[u8], today: NaiveDate) -> Result<ExportRequest, Details> {
    let mut details = Details::new();
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            details.insert("json".into(), vec![format!("Invalid JSON: {e}")]);
            return Err(details);
        }
    };
    let Value::Object(fields) = value else {
        details.insert("json".into(), vec!["The body must be a JSON object.".into()]);
        return Err(details);
    };
    let company_ids = ids(
        fields.get("company_ids"),
        "company_ids",
        true,
        MAX_COMPANIES,
        &mut details,
    );
    let user_ids = ids(fields.get("user_ids"), "user_ids", false, MAX_USERS, &mut details);
    let max = date(fields.get("max_date"), "max_date", &mut details);
    let min = date(fields.get("min_date"), "min_date", &mut details);
    let with_digital_signatures = flag(
        fields.get("with_digital_signatures"),
        "with_digital_signatures",
        &mut details,
    );
    let employee_version = flag(fields.get("employee_version"), "employee_version", &mut details);
    if !details.is_empty() {
        return Err(details);
    }
    let max_date = max.unwrap_or(today);
    let min_date = min.unwrap_or(max_date - chrono::Duration::days(DEFAULT_PERIOD_DAYS));
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
        company_ids,
        user_ids,
        min_date,
        max_date,
        with_digital_signatures,
        employee_version,
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
