//! The inspector: decodes a whole gen-1 driver card download, checks its structure, and verifies the certificate
//! chain and every EF signature against a given root key.
//!
//! Why it exists: §9 item 7 of the format reference: every generated file should pass a checker that applies the
//! TLV rules, the sizes announced by EF_Application_Identification, the activity buffer invariants and the
//! signature scheme. Structural problems are a [`Violation`] (the file is broken for some reader); signature
//! results are reported per EF, because an unsigned or foreign-signed file is still a readable file; and what a
//! reader would flag in a well-formed file (an odometer going backwards, activity before the card's issue…) is
//! listed in the report's `findings` (see `inspect_findings`).
//!
//! The EFs' fields are decoded by `inspect_records`, the activity data by `inspect_activity`, the certificate
//! chain by `inspect_chain`.

use super::input::ActivityKind;
use super::inspect_activity;
use super::inspect_chain::check_chain;
use super::inspect_findings::findings;
use super::inspect_records::*;
use super::keys::parse_ec_pk;
use super::layout::*;
use super::primitives::{format_time_real, get_u32, hex};
use super::report::*;
use super::signature::verify;
use super::tlv::{self, APPENDIX_DATA, APPENDIX_SIGNATURE};

/// One EF found in the file, with its signature if one follows.
struct Found<'a> {
    fid: u16,
    spec: &'static EfSpec,
    value: &'a [u8],
    signature: Option<&'a [u8]>,
}

/// Decodes and checks `bytes`. With `root_key_ec_pk` (144 bytes, EC_PK.bin layout) the certificate chain and the
/// EF signatures are verified; without it they are reported as not checked.
pub fn inspect(bytes: &[u8], root_key_ec_pk: Option<&[u8]>) -> Result<Report, Violation> {
    let root = match root_key_ec_pk {
        Some(b) => Some(parse_ec_pk(b).ok_or_else(|| Violation::file("the root key must be 144 bytes (EC_PK.bin)"))?),
        None => None,
    };
    let found = split(bytes)?;
    let get = |fid: u16| found.iter().find(|f| f.fid == fid).map(|f| f.value);
    for spec in FILE_ORDER.iter().filter(|s| s.mandatory) {
        if get(spec.fid).is_none() {
            return Err(Violation::ef(spec.fid, format!("mandatory {} is missing", spec.name)));
        }
    }
    let position = |fid: u16| found.iter().position(|f| f.fid == fid);
    let application_at = position(EF_APPLICATION_IDENTIFICATION);
    for fid in [
        EF_EVENTS_DATA,
        EF_FAULTS_DATA,
        EF_DRIVER_ACTIVITY_DATA,
        EF_VEHICLES_USED,
        EF_PLACES,
    ] {
        if position(fid) < application_at {
            return Err(Violation::ef(
                fid,
                "comes before EF_Application_Identification, which sizes it",
            ));
        }
    }

    let application_value = get(EF_APPLICATION_IDENTIFICATION).unwrap_or_default();
    let (application, params) = decode_application(application_value)?;
    for f in &found {
        let expected = params.ef_size(f.fid).expect("known EF");
        if f.value.len() != expected {
            return Err(Violation::ef(
                f.fid,
                format!("{} is {} bytes, {expected} expected", f.spec.name, f.value.len()),
            ));
        }
    }

    let (certificates, card_key) = check_chain(
        root.as_ref(),
        get(EF_CA_CERTIFICATE).unwrap_or_default(),
        get(EF_CARD_CERTIFICATE).unwrap_or_default(),
        get(EF_ICC),
    );
    let files = found
        .iter()
        .map(|f| EfReport {
            fid: format!("{:04X}", f.fid),
            name: f.spec.name,
            length: f.value.len(),
            signed: f.signature.is_some(),
            signature: match (f.signature, &card_key) {
                (None, _) => SignatureStatus::Unsigned,
                (Some(_), None) => SignatureStatus::NotChecked,
                (Some(sig), Some(key)) if verify(key, f.value, sig) => SignatureStatus::Valid,
                (Some(_), Some(_)) => SignatureStatus::Invalid,
            },
        })
        .collect();

    let mut report = Report {
        file_size: bytes.len(),
        files,
        card_extended_serial_number: get(EF_ICC).map(|v| hex(&v[1..9])),
        application,
        identification: decode_identification(get(EF_IDENTIFICATION).unwrap_or_default())?,
        last_card_download: get(EF_CARD_DOWNLOAD).and_then(|v| format_time_real(get_u32(v, 0))),
        events: decode_event_records(get(EF_EVENTS_DATA).unwrap_or_default()),
        faults: decode_event_records(get(EF_FAULTS_DATA).unwrap_or_default()),
        activity: inspect_activity::decode(
            get(EF_DRIVER_ACTIVITY_DATA).unwrap_or_default(),
            params.activity_structure_length,
        )?,
        vehicles: decode_vehicles(get(EF_VEHICLES_USED).unwrap_or_default(), params.vehicle_records)?,
        places: decode_places(get(EF_PLACES).unwrap_or_default(), params.place_records)?,
        current_usage: get(EF_CURRENT_USAGE).map(decode_current_usage),
        control_activity: get(EF_CONTROL_ACTIVITY_DATA).and_then(decode_control),
        specific_conditions: decode_specific_conditions(get(EF_SPECIFIC_CONDITIONS).unwrap_or_default()),
        certificates,
        findings: Vec::new(),
    };
    report.findings = findings(&report);
    Ok(report)
}

/// Activity intervals `(kind, start, end)` (Unix seconds) of an inspected file, for comparing with the input.
pub fn activity_intervals(report: &Report) -> Vec<(ActivityKind, i64, i64)> {
    inspect_activity::intervals(&report.activity)
}

/// Pairs data TLVs with the signature TLV that must directly follow them.
fn split(bytes: &[u8]) -> Result<Vec<Found<'_>>, Violation> {
    let mut found: Vec<Found<'_>> = Vec::new();
    for t in tlv::parse(bytes)? {
        match t.appendix {
            APPENDIX_DATA => {
                let spec = spec(t.fid)
                    .ok_or_else(|| Violation::file(format!("unknown EF {:04X} at offset {}", t.fid, t.offset)))?;
                if found.iter().any(|f| f.fid == t.fid) {
                    return Err(Violation::ef(t.fid, format!("{} appears twice", spec.name)));
                }
                found.push(Found {
                    fid: t.fid,
                    spec,
                    value: t.value,
                    signature: None,
                });
            }
            APPENDIX_SIGNATURE => {
                let last = found
                    .last_mut()
                    .filter(|f| f.fid == t.fid && f.signature.is_none())
                    .ok_or_else(|| {
                        Violation::ef(
                            t.fid,
                            format!("signature at offset {} does not directly follow its EF", t.offset),
                        )
                    })?;
                if !last.spec.signed {
                    return Err(Violation::ef(t.fid, format!("{} is never signed", last.spec.name)));
                }
                if t.value.len() != SIGNATURE_LEN {
                    return Err(Violation::ef(
                        t.fid,
                        format!("signature is {} bytes, 128 expected", t.value.len()),
                    ));
                }
                last.signature = Some(t.value);
            }
            0x02 | 0x03 => {
                return Err(Violation::ef(
                    t.fid,
                    "generation-2 TLV (appendix 02/03): only generation-1 downloads are supported",
                ));
            }
            other => return Err(Violation::ef(t.fid, format!("unknown appendix byte {other:02X}"))),
        }
    }
    Ok(found)
}
