//! Input model of one C1B export: plain data that the service fills from its database.
//!
//! Why plain data: the encoder stays pure (no queries, no clock), so one input always yields the same bytes and
//! the tests can pin them. The encoder is lenient with what it gets (it clips, sorts, folds and truncates, see
//! `timeline` and `text`), because an export must never fail on odd database content.

use std::collections::BTreeMap;

use chrono::NaiveDate;

/// Issuing authority name that says where the file comes from (at most 35 characters fit in a `Name`).
/// The service may pass another text, but it must never name an official card issuing authority.
pub const DEFAULT_ISSUING_AUTHORITY: &str = "ROADLOG - NOT AN OFFICIAL CARD";

/// The "card" of one employee, as shown in EF_Identification (Appendix 1, CardIdentification +
/// DriverCardHolderIdentification).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverCard {
    /// 16 ASCII characters (CardNumber of a driver card); build it with [`roadlog_card_number`].
    /// Other text is folded to ASCII and space-padded or truncated to 16 bytes.
    pub card_number: String,
    pub surname: String,
    pub first_names: String,
    pub birth_date: Option<NaiveDate>,
    /// Shown nowhere in the file (a driver card has no company field); kept for the service's own use.
    pub company_name: String,
    /// Written as cardIssuingAuthorityName; must say the file comes from Roadlog, e.g.
    /// [`DEFAULT_ISSUING_AUTHORITY`].
    pub issuing_authority: String,
    pub card_issue: NaiveDate,
    pub card_validity_begin: NaiveDate,
    pub card_expiry: NaiveDate,
}

/// Card number of an employee: `"RL"` + 12-digit zero-padded employee id (driverIdentification, 14 IA5
/// characters) + replacement index `'0'` + renewal index (`0..9, A..Z`).
///
/// Why this scheme: the spec splits CardNumber into driverIdentification(14) ‖ cardReplacementIndex(1) ‖
/// cardRenewalIndex(1), and readers show the three parts separately, so the employee id must fit in the first 14
/// characters and the last two must be index characters. The id is the database id, so the number is unique per
/// employee and stable; the renewal index lets the service issue a new "card" (e.g. a new card key) to the same
/// employee, exactly as the spec increments it for a renewed card. A leading letter pair marks the number as ours:
/// French driver card numbers (the nation written in the file, see `layout::NATION`) are numeric (e.g. the
/// reference's `C_20180622_1217_D_BOEHLER_10000004823750.C1B`), so no official French card has this number.
///
/// Returns `None` when the id has more than 12 digits or the renewal index is above 35.
pub fn roadlog_card_number(employee_id: u64, renewal_index: u32) -> Option<String> {
    if employee_id > 999_999_999_999 {
        return None;
    }
    let renewal = char::from_digit(renewal_index, 36)?.to_ascii_uppercase();
    Some(format!("RL{employee_id:012}0{renewal}"))
}

/// What the employee did (the service drops cancelled and "off" activities before calling the encoder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActivityKind {
    /// Encoded as DRIVING in the driver slot.
    Drive,
    /// Encoded as WORK in the driver slot.
    Work,
    /// Accompanying driver: co-driver slot, CREW, AVAILABILITY (what a VU records for the co-driver while the
    /// vehicle moves, Annex 1B req. 036).
    Support,
    /// Encoded as AVAILABILITY in the driver slot.
    Transfer,
}

/// One activity, in Unix seconds UTC, minute-aligned (`start < end`). Non-aligned seconds are floored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Activity {
    pub kind: ActivityKind,
    pub start: i64,
    pub end: i64,
}

/// One vehicle record of EF_Vehicles_Used. The spec writes one record per calendar day and per period of use
/// (req. 197): build them with [`super::mission_records`], which cuts uses at 00:00 UTC and interpolates the
/// odometer there; the encoder writes the records as given, sorted by first use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VehicleUse {
    pub registration: String,
    pub first_use: i64,
    pub last_use: i64,
    /// km; missing values are written as 0.
    pub odometer_begin: Option<u32>,
    pub odometer_end: Option<u32>,
}

/// entryTypeDailyWorkPeriod of a place record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceEntryType {
    /// `00`: begin of the daily work period.
    Begin,
    /// `01`: end of the daily work period.
    End,
}

/// One place record of EF_Places (where a daily work period began or ended).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub time: i64,
    pub entry_type: PlaceEntryType,
    pub odometer: Option<u32>,
}

/// Everything needed to produce one employee's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub card: DriverCard,
    /// First exported UTC day (inclusive).
    pub period_start: NaiveDate,
    /// Last exported UTC day (inclusive). Activities are clipped to `[period_start 00:00, period_end + 1 00:00)`.
    pub period_end: NaiveDate,
    /// All non-cancelled activities of the employee in the period, sorted and non-overlapping.
    pub activities: Vec<Activity>,
    pub vehicles: Vec<VehicleUse>,
    pub places: Vec<Place>,
    /// km driven per UTC day (activityDayDistance); days without an entry get 0.
    pub day_distances: BTreeMap<NaiveDate, u16>,
    /// Download time, Unix seconds UTC.
    pub generated_at: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_number_has_the_three_card_number_fields() {
        // driverIdentification = "RL" + 12 digits = 14 chars, then replacement '0', then renewal index.
        assert_eq!(roadlog_card_number(42, 0).as_deref(), Some("RL00000000004200"));
        assert_eq!(roadlog_card_number(42, 10).as_deref(), Some("RL0000000000420A"));
        assert_eq!(
            roadlog_card_number(999_999_999_999, 35).as_deref(),
            Some("RL9999999999990Z")
        );
        assert_eq!(roadlog_card_number(1_000_000_000_000, 0), None);
        assert_eq!(roadlog_card_number(1, 36), None);
        assert_eq!(roadlog_card_number(7, 1).map(|n| n.len()), Some(16));
    }
}
