//! C1B export: EU digital tachograph **generation-1 driver card download** files (Annex 1B, Appendix 7 §3),
//! encoder, inspector and signer.
//!
//! Why this module is shaped the way it is:
//! * It is pure logic: no database, no clock (except when a key is generated), no I/O. The service fills the
//!   [`Export`] input model from its database and gets bytes back, so the same input always gives the same file
//!   and every byte can be pinned by a unit test.
//! * It is written to move verbatim into a larger service (as the module `export::c1b` of that crate): every path
//!   inside the tree is relative (`super::…`, `self::…`), never rooted at the crate.
//! * One file per purpose (one elementary file, or one family of them, per file) so that each file can be checked
//!   against one table of the format reference.
//! * The files it produces are honest: a self-issued, clearly non-official certificate chain, a card number and an
//!   issuing authority that cannot be mistaken for an official card (see `keys.rs` and `input.rs`).
//! * `docs/src/reference/c1b.md` maps recorded data to the format field by field and lists the known reader behaviours.

mod activity_word;
mod certificate;
mod code_pages;
mod ef_activity;
mod ef_application;
mod ef_chip;
mod ef_control;
mod ef_events_faults;
mod ef_identification;
mod ef_places;
mod ef_session;
mod ef_vehicles;
mod encode;
mod input;
mod inspect;
mod inspect_activity;
mod inspect_chain;
mod inspect_findings;
mod inspect_records;
mod key_format;
mod keys;
mod layout;
mod missions;
mod primitives;
mod report;
#[cfg(test)]
mod round_trip_tests;
mod signature;
#[cfg(test)]
mod testkit;
mod text;
mod timeline;
mod tlv;

pub use self::certificate::{CertificateBody, CertificateError, open as open_certificate};
pub use self::encode::{Signatures, encode, file_name};
pub use self::input::{
    Activity, ActivityKind, DEFAULT_ISSUING_AUTHORITY, DriverCard, Export, Place, PlaceEntryType, VehicleUse,
    roadlog_card_number,
};
pub use self::inspect::{activity_intervals, inspect};
pub use self::keys::{CaKey, CardKey, CardSigner, KeyError, KeyId, RootKey, root_public_key_ec_pk};
pub use self::missions::{Mission, MissionRecords, mission_records};
pub use self::report::{
    ActivityReport, ApplicationReport, CertificateReport, CertificateStatus, CertificatesReport, ChangeReport,
    ControlReport, CurrentUsageReport, DayReport, EfReport, EventFaultReport, IdentificationReport, PlaceReport,
    Report, SignatureStatus, SpecificConditionReport, VehicleReport, Violation,
};
pub use self::signature::PublicKey;
pub use self::text::transliterate;
