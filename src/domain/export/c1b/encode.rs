//! Assembles a whole C1B file (the 16 EFs of a gen-1 driver card download, §9 of the format reference) and names
//! it.
//!
//! Why this order and framing: it is the order of a real card file (EF_ICC first, which some readers use to
//! recognise card files; EF_Application_Identification before the EFs it sizes); each signed EF is followed
//! directly by its 128-byte signature TLV (appendix `01`), as DDP_041–046 require. Without a signer the file
//! keeps both certificate EFs as 194 zero bytes and carries no signature TLV at all (a reader then reports the
//! data as unsigned, not as forged).

use chrono::DateTime;

use super::ef_activity::driver_activity_data;
use super::ef_application::application_identification;
use super::ef_chip::{ic, icc};
use super::ef_control::{control_activity_data, specific_conditions};
use super::ef_events_faults::{events_data, faults_data};
use super::ef_identification::{driving_licence_info, identification};
use super::ef_places::places;
use super::ef_session::{card_download, current_usage};
use super::ef_vehicles::vehicles_used;
use super::input::Export;
use super::keys::CardSigner;
use super::layout::*;
use super::signature::sign;
use super::text::ascii_fold;
use super::timeline::{day_activities, normalize};
use super::tlv::{APPENDIX_DATA, APPENDIX_SIGNATURE, put};

/// Encodes the download file of `export`, signed with `signer` when given.
pub fn encode(export: &Export, signer: Option<&CardSigner>) -> Vec<u8> {
    let p = CardParameters::MAX;
    let days = day_activities(&normalize(&export.activities, export.period_start, export.period_end));
    let mut out = Vec::with_capacity(26_700);
    for ef in FILE_ORDER {
        let value = match ef.fid {
            EF_ICC => icc(signer.map_or([0; 8], |s| s.card_key.key_id())),
            EF_IC => ic(),
            EF_APPLICATION_IDENTIFICATION => application_identification(&p),
            EF_CARD_CERTIFICATE => signer.map_or(vec![0; CERTIFICATE_LEN], |s| s.card_certificate.to_vec()),
            EF_CA_CERTIFICATE => signer.map_or(vec![0; CERTIFICATE_LEN], |s| s.ca_certificate.to_vec()),
            EF_IDENTIFICATION => identification(&export.card),
            EF_CARD_DOWNLOAD => card_download(export.generated_at),
            EF_DRIVING_LICENCE_INFO => driving_licence_info(),
            EF_EVENTS_DATA => events_data(&p),
            EF_FAULTS_DATA => faults_data(&p),
            EF_DRIVER_ACTIVITY_DATA => driver_activity_data(&days, &export.day_distances, p.activity_structure_length),
            EF_VEHICLES_USED => vehicles_used(&export.vehicles, p.vehicle_records),
            EF_PLACES => places(&export.places, p.place_records),
            EF_CURRENT_USAGE => current_usage(export.generated_at),
            EF_CONTROL_ACTIVITY_DATA => control_activity_data(),
            EF_SPECIFIC_CONDITIONS => specific_conditions(),
            other => unreachable!("EF {other:04X} is not in FILE_ORDER"),
        };
        debug_assert_eq!(Some(value.len()), p.ef_size(ef.fid), "size of EF {:04X}", ef.fid);
        put(&mut out, ef.fid, APPENDIX_DATA, &value);
        if let (true, Some(signer)) = (ef.signed, signer) {
            put(
                &mut out,
                ef.fid,
                APPENDIX_SIGNATURE,
                &sign(signer.card_key.rsa(), &value),
            );
        }
    }
    out
}

/// `C_<YYYYMMDD>_<HHMM>_<first-name initial>_<SURNAME>_<card number>.C1B` (the de-facto convention for driver
/// files, French `.C1B` extension), download time in UTC, ASCII only; `…_employee.C1B` for the employee's own
/// version. Characters that are not letters or digits become `-` (never `_`, the field separator).
pub fn file_name(export: &Export, employee_version: bool) -> String {
    let time = DateTime::from_timestamp(export.generated_at, 0).unwrap_or_default();
    let initial: String = ascii_fold(&export.card.first_names)
        .chars()
        .find(|c| c.is_ascii_alphanumeric())
        .into_iter()
        .collect();
    let surname = file_name_part(&export.card.surname);
    let card_number = file_name_part(&export.card.card_number);
    let suffix = if employee_version { "_employee" } else { "" };
    format!(
        "C_{}_{}_{}_{}{}.C1B",
        time.format("%Y%m%d_%H%M"),
        initial.to_ascii_uppercase(),
        surname,
        card_number,
        suffix
    )
}

/// Upper-case ASCII letters and digits; runs of anything else become one `-`, trimmed at both ends.
fn file_name_part(text: &str) -> String {
    let mut out = String::new();
    for c in ascii_fold(text).chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_string()
}

#[cfg(test)]
mod tests {
    use super::super::testkit;
    use super::super::tlv::parse;
    use super::*;

    #[test]
    fn unsigned_file_layout() {
        // 16 EFs, 24 959 value bytes + 16 × 5 header bytes = 25 039 bytes, no signature TLV.
        let file = encode(&testkit::export(3, testkit::busy_activities(3, 6, 60)), None);
        assert_eq!(file.len(), 25_039);
        assert_eq!(&file[..5], &[0x00, 0x02, 0x00, 0x00, 0x19]); // EF_ICC, 25 bytes
        let tlvs = parse(&file).unwrap();
        let fids: Vec<u16> = tlvs.iter().map(|t| t.fid).collect();
        assert_eq!(fids, FILE_ORDER.iter().map(|e| e.fid).collect::<Vec<_>>());
        assert!(tlvs.iter().all(|t| t.appendix == APPENDIX_DATA));
        // Certificates are 194 zero bytes.
        assert!(tlvs[3].value.iter().chain(tlvs[4].value).all(|&b| b == 0));
    }

    #[test]
    fn signed_file_layout() {
        // 26 635 bytes exactly like a real max-size card: each signed EF followed by FID ‖ 01 ‖ 00 80 ‖ sig.
        let keys = testkit::keys();
        let file = encode(
            &testkit::export(3, testkit::busy_activities(3, 6, 60)),
            Some(&keys.signer),
        );
        assert_eq!(file.len(), 26_635);
        let tlvs = parse(&file).unwrap();
        assert_eq!(tlvs.len(), 28);
        let mut i = 0;
        for ef in FILE_ORDER {
            assert_eq!((tlvs[i].fid, tlvs[i].appendix), (ef.fid, 0));
            i += 1;
            if ef.signed {
                assert_eq!((tlvs[i].fid, tlvs[i].appendix, tlvs[i].value.len()), (ef.fid, 1, 128));
                i += 1;
            }
        }
        // EF_ICC carries the card key's serial number (the card certificate's CHR).
        assert_eq!(&tlvs[0].value[1..9], &keys.card.key_id());
        let value = |fid: u16| tlvs.iter().find(|t| t.fid == fid).unwrap().value;
        assert_eq!(value(EF_CARD_CERTIFICATE), &keys.signer.card_certificate[..]);
        assert_eq!(value(EF_CA_CERTIFICATE), &keys.ca.certificate()[..]);
    }

    #[test]
    fn file_names() {
        // generated_at of testkit::export(3, …) = 2024-03-04 08:00 UTC.
        let export = testkit::export(3, Vec::new());
        assert_eq!(
            file_name(&export, false),
            "C_20240304_0800_E_DUPONT-LEFEVRE_RL00000000432100.C1B"
        );
        assert_eq!(
            file_name(&export, true),
            "C_20240304_0800_E_DUPONT-LEFEVRE_RL00000000432100_employee.C1B"
        );
        let mut odd = export.clone();
        odd.card.surname = " O’Brien  de_la Peña ".into();
        odd.card.first_names = "  ".into();
        assert_eq!(
            file_name(&odd, false),
            "C_20240304_0800__O-BRIEN-DE-LA-PENA_RL00000000432100.C1B"
        );
    }

    /// Timing of one file (28 days × 6 activities a day), signed and unsigned, inspection, and 1 000 signed files
    /// on 2 threads. Run with
    /// `cargo test --release -- --ignored --nocapture timing`.
    #[test]
    #[ignore]
    fn timing() {
        use std::time::Instant;
        let keys = testkit::keys();
        let export = testkit::export(28, testkit::busy_activities(28, 6, 75));
        let rounds = 200;
        for (label, signer) in [("unsigned", None), ("signed", Some(&keys.signer))] {
            let _ = encode(&export, signer);
            let t = Instant::now();
            let mut size = 0;
            for _ in 0..rounds {
                size += encode(&export, signer).len();
            }
            let per_file = t.elapsed() / rounds;
            println!(
                "encode {label}: {per_file:?} per file ({} bytes)",
                size / rounds as usize
            );
        }
        let file = encode(&export, Some(&keys.signer));
        let ec_pk = super::super::keys::root_public_key_ec_pk(&keys.root);
        let t = Instant::now();
        for _ in 0..rounds {
            super::super::inspect::inspect(&file, Some(&ec_pk)).unwrap();
        }
        println!("inspect + verify: {:?} per file", t.elapsed() / rounds);
        let t = Instant::now();
        let _ = super::super::keys::CardKey::generate();
        println!("card key generation: {:?}", t.elapsed());
        // The service's load: 1 000 employees × 28 days, signed, on the machine's 2 cores.
        let t = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    (0..500)
                        .map(|_| encode(&export, Some(&keys.signer)).len())
                        .sum::<usize>()
                });
            }
        });
        println!("1 000 signed files on 2 threads: {:?}", t.elapsed());
    }
}
