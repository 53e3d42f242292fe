//! What the inspector returns: a JSON-serialisable [`Report`] of a whole file, or the first structural
//! [`Violation`] found.
//!
//! Why a separate output model: the service prints the report as JSON for people and tests compare its fields, so
//! it holds readable values (hex identifiers, RFC 3339 times, named activities) rather than raw structs; the raw
//! activity word and record time are kept where a round trip needs them.

use std::fmt;

use serde::Serialize;

/// A structural violation: the file is not a well-formed gen-1 driver card download.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// FID of the EF concerned (`"0504"`), if any.
    pub ef: Option<String>,
    pub message: String,
}

impl Violation {
    pub fn file(message: impl Into<String>) -> Self {
        Violation {
            ef: None,
            message: message.into(),
        }
    }

    pub fn ef(fid: u16, message: impl Into<String>) -> Self {
        Violation {
            ef: Some(format!("{fid:04X}")),
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.ef {
            Some(fid) => write!(f, "EF {fid}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Violation {}

/// Result of checking one EF signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignatureStatus {
    /// Verified with the card key, itself certified up to the given root key.
    Valid,
    /// A signature is present but does not verify with the certified card key.
    Invalid,
    /// No signature TLV follows the EF.
    Unsigned,
    /// A signature is present but no certified card key is available (no root key given, or the certificate
    /// chain did not verify).
    NotChecked,
}

/// Result of opening one certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CertificateStatus {
    /// Opened with the issuer's key: framing and hash are right.
    Valid,
    /// The issuer's key does not open it (wrong signer, altered bytes, or no matching issuer).
    Invalid,
    /// The issuer's key is not known (no root key given, or the issuer's certificate is not valid).
    NotChecked,
    /// 194 zero bytes (what unsigned exports carried before they carried the chain).
    Empty,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub file_size: usize,
    /// EFs in file order.
    pub files: Vec<EfReport>,
    /// cardExtendedSerialNumber of EF_ICC, hex.
    pub card_extended_serial_number: Option<String>,
    pub application: ApplicationReport,
    pub identification: IdentificationReport,
    pub last_card_download: Option<String>,
    pub events: Vec<EventFaultReport>,
    pub faults: Vec<EventFaultReport>,
    pub activity: ActivityReport,
    pub vehicles: Vec<VehicleReport>,
    pub places: Vec<PlaceReport>,
    pub current_usage: Option<CurrentUsageReport>,
    pub control_activity: Option<ControlReport>,
    pub specific_conditions: Vec<SpecificConditionReport>,
    pub certificates: CertificatesReport,
    /// What a reader would flag although the file is well formed (odometers going backwards, a day distance
    /// that its vehicle records do not add up to, data outside the card's validity, an open session in a
    /// vehicle whose use has ended); empty for a consistent file.
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EfReport {
    /// `"0504"`.
    pub fid: String,
    pub name: &'static str,
    /// Value length in bytes.
    pub length: usize,
    /// A signature TLV follows.
    pub signed: bool,
    pub signature: SignatureStatus,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplicationReport {
    pub card_type: u8,
    /// cardStructureVersion, hex.
    pub structure_version: String,
    pub events_per_type: usize,
    pub faults_per_type: usize,
    pub activity_structure_length: usize,
    pub vehicle_records: usize,
    pub place_records: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IdentificationReport {
    pub issuing_member_state: u8,
    pub card_number: String,
    pub issuing_authority: String,
    pub card_issue: Option<String>,
    pub card_validity_begin: Option<String>,
    pub card_expiry: Option<String>,
    pub surname: String,
    pub first_names: String,
    /// `YYYY-MM-DD`.
    pub birth_date: Option<String>,
    pub preferred_language: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventFaultReport {
    /// EventFaultType, hex.
    pub kind: String,
    pub begin: Option<String>,
    pub end: Option<String>,
    pub vehicle: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActivityReport {
    pub oldest_record_offset: usize,
    pub newest_record_offset: usize,
    /// Day records, oldest first.
    pub days: Vec<DayReport>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayReport {
    /// `YYYY-MM-DD` (UTC).
    pub date: String,
    /// activityRecordDate as stored (Unix seconds).
    pub record_time: i64,
    /// Byte offset of the record in the cyclic string.
    pub offset: usize,
    pub length: usize,
    pub presence_counter: u16,
    pub distance_km: u16,
    pub changes: Vec<ChangeReport>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeReport {
    /// Minutes since 00:00 UTC of the record's day.
    pub minute: u16,
    /// `HH:MM`.
    pub time: String,
    /// `break_rest`, `availability`, `work`, `driving`.
    pub activity: &'static str,
    /// `driver` or `co_driver`.
    pub slot: &'static str,
    /// Card inserted (`p` = 0).
    pub card_inserted: bool,
    /// Meaning of the `c` bit: `single` / `crew` when inserted, `unknown` / `known` when not.
    pub status: &'static str,
    /// The raw 16-bit ActivityChangeInfo.
    pub raw: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VehicleReport {
    pub odometer_begin: u32,
    pub odometer_end: u32,
    pub first_use: Option<String>,
    pub last_use: Option<String>,
    pub registration_nation: u8,
    pub registration: String,
    pub vu_data_block_counter: u16,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlaceReport {
    pub time: Option<String>,
    /// `begin`, `end`, `begin_manual`, `end_manual`, `begin_assumed`, `end_assumed` or the hex value.
    pub entry_type: String,
    pub country: u8,
    pub region: u8,
    pub odometer: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CurrentUsageReport {
    /// Some byte is not zero: the card claims to be inserted in a vehicle (all zero after card removal).
    pub open_session: bool,
    pub session_open_time: Option<String>,
    pub vehicle_nation: u8,
    pub vehicle: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ControlReport {
    /// controlType, hex.
    pub control_type: String,
    pub time: Option<String>,
    pub control_card_number: String,
    pub vehicle: String,
    pub download_period_begin: Option<String>,
    pub download_period_end: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecificConditionReport {
    pub time: Option<String>,
    /// SpecificConditionType, hex.
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertificatesReport {
    /// KID of the root key given to the inspector, hex.
    pub root_key_id: Option<String>,
    pub ca: CertificateReport,
    pub card: CertificateReport,
    /// EF_ICC cardExtendedSerialNumber equals the card certificate's CHR (only known once the card certificate
    /// is opened).
    pub card_serial_matches_chr: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertificateReport {
    pub status: CertificateStatus,
    /// CAR′ appended in clear at the end of the certificate, hex.
    pub authority_reference: String,
    /// Fields recovered from the certificate (only when it opened).
    pub holder_reference: Option<String>,
    pub holder_authorisation: Option<String>,
    pub end_of_validity: Option<String>,
}
