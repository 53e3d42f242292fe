//! Assembles a whole C1B file (the 16 EFs of a gen-1 driver card download, §9 of the format reference) and names
//! it.
//!
//! Why this order and framing: it is the order of a real card file (EF_ICC first, which some readers use to
//! recognise card files; EF_Application_Identification before the EFs it sizes); each signed EF is followed
//! directly by its 128-byte signature TLV (appendix `01`), as DDP_041–046 require.
//!
//! Why an unsigned file still carries certificates: EF_Card_Certificate and EF_CA_Certificate are mandatory
//! (a reader validating signatures throws without them), and 194 zero bytes are a chain no reader can open, which
//! one reader reports as every signature failed. An unsigned file therefore carries exactly the chain and EF_ICC
//! serial number a signed export of the same employee carries, and omits only the signature TLVs: readers verify
//! the chain (against our published root) and report the EFs as not signed.

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
use super::text::transliterate;
use super::timeline::{day_activities, normalize};
use super::tlv::{APPENDIX_DATA, APPENDIX_SIGNATURE, put};

/// Whether the EFs are followed by their signatures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signatures {
    Included,
    Omitted,
}

/// Encodes the download file of `export` with the card's certificate chain, signed by the card key when
/// `signatures` are included.
pub fn encode(export: &Export, card: &CardSigner, signatures: Signatures) -> Vec<u8> {
    let p = CardParameters::MAX;
    let days = day_activities(&normalize(&export.activities, export.period_start, export.period_end));
    let mut out = Vec::with_capacity(26_700);
    for ef in FILE_ORDER {
        let value = match ef.fid {
            EF_ICC => icc(card.card_key.key_id()),
            EF_IC => ic(),
            EF_APPLICATION_IDENTIFICATION => application_identification(&p),
            EF_CARD_CERTIFICATE => card.card_certificate.to_vec(),
            EF_CA_CERTIFICATE => card.ca_certificate.to_vec(),
            EF_IDENTIFICATION => identification(&export.card),
            EF_CARD_DOWNLOAD => card_download(export.generated_at),
            EF_DRIVING_LICENCE_INFO => driving_licence_info(),
            EF_EVENTS_DATA => events_data(&p),
            EF_FAULTS_DATA => faults_data(&p),
            EF_DRIVER_ACTIVITY_DATA => driver_activity_data(&days, &export.day_distances, p.activity_structure_length),
            EF_VEHICLES_USED => vehicles_used(&export.vehicles, p.vehicle_records),
            EF_PLACES => places(&export.places, p.place_records),
            EF_CURRENT_USAGE => current_usage(),
            EF_CONTROL_ACTIVITY_DATA => control_activity_data(),
            EF_SPECIFIC_CONDITIONS => specific_conditions(),
            other => unreachable!("EF {other:04X} is not in FILE_ORDER"),
        };
        debug_assert_eq!(Some(value.len()), p.ef_size(ef.fid), "size of EF {:04X}", ef.fid);
        put(&mut out, ef.fid, APPENDIX_DATA, &value);
        if ef.signed && signatures == Signatures::Included {
            put(&mut out, ef.fid, APPENDIX_SIGNATURE, &sign(card.card_key.rsa(), &value));
        }
    }
    out
}

/// `C_<YYYYMMDD>_<HHMM>_<first-name initial>_<SURNAME>_<card number>.C1B` (the de-facto convention for driver
/// files, French `.C1B` extension), download time in UTC, in the transliterated Latin form of the names (Иванов →
/// IVANOV), ASCII only; `…_employee.C1B` for the employee's own version. Characters that are not letters or
/// digits become `-` (never `_`, the field separator).
pub fn file_name(export: &Export, employee_version: bool) -> String {
    let time = DateTime::from_timestamp(export.generated_at, 0).unwrap_or_default();
    let initial: String = transliterate(&export.card.first_names)
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
    for c in transliterate(text).chars() {
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
        let keys = testkit::keys();
        let export = testkit::export(3, testkit::busy_activities(3, 6, 60));
        let file = encode(&export, &keys.signer, Signatures::Omitted);
        assert_eq!(file.len(), 25_039);
        assert_eq!(&file[..5], &[0x00, 0x02, 0x00, 0x00, 0x19]); // EF_ICC, 25 bytes
        let tlvs = parse(&file).unwrap();
        let fids: Vec<u16> = tlvs.iter().map(|t| t.fid).collect();
        assert_eq!(fids, FILE_ORDER.iter().map(|e| e.fid).collect::<Vec<_>>());
        assert!(tlvs.iter().all(|t| t.appendix == APPENDIX_DATA));
        // The same chain and serial number as the signed file; the data EFs are byte for byte the signed file's.
        assert_eq!(tlvs[3].value, &keys.signer.card_certificate[..]);
        assert_eq!(tlvs[4].value, &keys.signer.ca_certificate[..]);
        assert_eq!(&tlvs[0].value[1..9], &keys.card.key_id());
        let signed = encode(&export, &keys.signer, Signatures::Included);
        let signed_data: Vec<_> = parse(&signed)
            .unwrap()
            .into_iter()
            .filter(|t| t.appendix == APPENDIX_DATA)
            .map(|t| t.value.to_vec())
            .collect();
        assert_eq!(signed_data, tlvs.iter().map(|t| t.value.to_vec()).collect::<Vec<_>>());
    }

    #[test]
    fn signed_file_layout() {
        // 26 635 bytes exactly like a real max-size card: each signed EF followed by FID ‖ 01 ‖ 00 80 ‖ sig.
        let keys = testkit::keys();
        let file = encode(
            &testkit::export(3, testkit::busy_activities(3, 6, 60)),
            &keys.signer,
            Signatures::Included,
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
        // Names in Cyrillic and Greek: the transliterated Latin form, initial and surname kept.
        let mut cyrillic = export.clone();
        cyrillic.card.surname = "Иванов".into();
        cyrillic.card.first_names = "Иван".into();
        assert_eq!(
            file_name(&cyrillic, false),
            "C_20240304_0800_I_IVANOV_RL00000000432100.C1B"
        );
        let mut greek = export;
        greek.card.surname = "Παπαδόπουλος".into();
        greek.card.first_names = "Γιώργος".into();
        assert_eq!(
            file_name(&greek, false),
            "C_20240304_0800_G_PAPADOPOULOS_RL00000000432100.C1B"
        );
    }

    #[test]
    fn names_are_decoded_back_exactly_in_their_code_page() {
        for (surname, first_names, code_pages, file) in [
            (
                "Wałęsa-Nowak",
                "Šárka Żaneta",
                (2, 2),
                "C_20240302_0800_S_WALESA-NOWAK_RL00000000432100.C1B",
            ),
            (
                "Иванов",
                "Иван Петрович",
                (5, 5),
                "C_20240302_0800_I_IVANOV_RL00000000432100.C1B",
            ),
            (
                "Παπαδόπουλος",
                "Γιώργος",
                (7, 7),
                "C_20240302_0800_G_PAPADOPOULOS_RL00000000432100.C1B",
            ),
            (
                "Dupont-Lefèvre",
                "Œdipe",
                (1, 15),
                "C_20240302_0800_O_DUPONT-LEFEVRE_RL00000000432100.C1B",
            ),
        ] {
            let mut e = testkit::export(1, Vec::new());
            e.card.surname = surname.into();
            e.card.first_names = first_names.into();
            let file_bytes = encode(&e, &testkit::keys().signer, Signatures::Omitted);
            let report = super::super::inspect::inspect(&file_bytes, None).unwrap();
            assert_eq!(report.identification.surname, surname);
            assert_eq!(report.identification.first_names, first_names);
            let ident = parse(&file_bytes)
                .unwrap()
                .into_iter()
                .find(|t| t.fid == EF_IDENTIFICATION)
                .unwrap();
            assert_eq!((ident.value[65], ident.value[101]), code_pages, "{surname}");
            assert_eq!(file_name(&e, false), file);
        }
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
        for (label, signatures) in [("unsigned", Signatures::Omitted), ("signed", Signatures::Included)] {
            let _ = encode(&export, &keys.signer, signatures);
            let t = Instant::now();
            let mut size = 0;
            for _ in 0..rounds {
                size += encode(&export, &keys.signer, signatures).len();
            }
            let per_file = t.elapsed() / rounds;
            println!(
                "encode {label}: {per_file:?} per file ({} bytes)",
                size / rounds as usize
            );
        }
        let file = encode(&export, &keys.signer, Signatures::Included);
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
                        .map(|_| encode(&export, &keys.signer, Signatures::Included).len())
                        .sum::<usize>()
                });
            }
        });
        println!("1 000 signed files on 2 threads: {:?}", t.elapsed());
    }
}
