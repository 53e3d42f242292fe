//! A computation's alerts as they are stored: each alert's columns, with the digest that stands
//! for them when a stored alert is compared with a computed one.

use crate::domain::alerts::read::AlertContent;
use crate::domain::companies::date_text;
use crate::domain::regulation::business::BusinessType;
use crate::domain::regulation::checks::CheckType;
use crate::domain::regulation::compute::{Alert, Computation};
use crate::errors::{AppError, AppResult};

impl AlertContent {
    /// What is compared with a stored alert instead of its texts: a SHA-256 (first 128 bits,
    /// hex) of every stored field, each prefixed by its length so that no two alerts share an
    /// input. Comparing digests spares reading the alerts' explanation texts back.
    fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new();
        let numbers = [
            self.business_id,
            self.night_work,
            self.not_enough_break,
            self.too_much_uninterrupted_work_time,
        ];
        for part in [&self.day, &self.check_type, &self.extra, &self.explanation] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part.as_bytes());
        }
        for number in numbers {
            hash.update(number.to_le_bytes());
        }
        hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// One alert ready to be stored: its columns, its digest and its unit (`day` or `week`).
pub(super) type Ready = (AlertContent, String, &'static str);

/// A computation's alerts as they are stored, each with its digest and unit: pure work (the
/// explanations serialised and hashed), which the rebuild does on every core.
pub struct Prepared {
    pub(super) alerts: Vec<Ready>,
}

/// Prepares `computation`'s alerts for `business`.
pub fn prepare(computation: &Computation, business: BusinessType) -> AppResult<Prepared> {
    let alerts = computation
        .alerts
        .iter()
        .map(|alert| {
            let stored = stored(alert, business)?;
            let digest = stored.digest();
            Ok((stored, digest, alert.check.def().unit.as_str()))
        })
        .collect::<AppResult<Vec<_>>>()?;
    Ok(Prepared { alerts })
}

/// Whether the alert's `extra` holds `key` as `true`, as a column's 0 or 1.
fn flag(alert: &Alert, key: &str) -> i64 {
    i64::from(alert.extra.get(key).and_then(serde_json::Value::as_bool) == Some(true))
}

fn stored(alert: &Alert, business: BusinessType) -> AppResult<AlertContent> {
    let explanation = serde_json::to_string(&alert.explanation)
        .map_err(|e| AppError::internal(format!("explanation not serialisable: {e}")))?;
    let night_work = alert.check == CheckType::MaximumWorkDayTime && flag(alert, "night_work") == 1;
    Ok(AlertContent {
        day: date_text(alert.day),
        check_type: alert.check.as_str().to_string(),
        business_id: business.id(),
        extra: alert.extra_text(),
        explanation,
        night_work: i64::from(night_work),
        not_enough_break: flag(alert, "not_enough_break"),
        too_much_uninterrupted_work_time: flag(alert, "too_much_uninterrupted_work_time"),
    })
}
