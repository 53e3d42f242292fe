//! What checks answer: a check's outcome on one day or week (success, the reference's `extra`,
//! the explanation) and the alert a failed one becomes. Shared by the daily, weekly and EU
//! checks and by the computation that gathers them.

use chrono::NaiveDate;
use serde_json::{Map, Value};

use super::check_type::CheckType;
use super::explain::Explanation;
use super::pyjson;

/// The sanction code of the checks `enoughBreak` replaced.
pub const SANCTION_CODE: &str = "Non-respect du Code des transports";

/// What a check answers: success, the reference's `extra` and, on failure, why.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub success: bool,
    pub extra: Map<String, Value>,
    pub explanation: Explanation,
}

impl Outcome {
    pub fn ok(extra: Map<String, Value>) -> Outcome {
        Outcome {
            success: true,
            extra,
            explanation: Explanation::default(),
        }
    }
}

/// One failed check.
#[derive(Clone, Debug)]
pub struct Alert {
    /// The day, or the Monday of the week.
    pub day: NaiveDate,
    pub check: CheckType,
    pub extra: Map<String, Value>,
    pub explanation: Explanation,
}

impl Alert {
    /// `RegulatoryAlert.extra` as the reference prints it.
    pub fn extra_text(&self) -> String {
        pyjson::dumps(&Value::Object(self.extra.clone()))
    }
}
