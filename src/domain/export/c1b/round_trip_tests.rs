//! Whole files through the encoder and back through the inspector: signed and unsigned, wrapped activity
//! buffers, tampering, foreign roots, structural violations, random exports, and the text of names.
//!
//! Why a file of its own: these tests exercise `encode` and `inspect` together, and would make either file
//! exceed the size the code base keeps its files to.

use super::encode::{Signatures, encode};
use super::input::{Activity, ActivityKind, Export, Place, PlaceEntryType, VehicleUse};
use super::inspect::{activity_intervals, inspect};
use super::keys::root_public_key_ec_pk;
use super::layout::*;
use super::primitives::{day_start, hex};
use super::report::{CertificateStatus, SignatureStatus};
use super::testkit::{self, busy_activities, date, export};
use super::timeline::normalize;
use super::tlv;

/// The file of `e` without signatures (with the test chain).
fn unsigned(e: &Export) -> Vec<u8> {
    encode(e, &testkit::keys().signer, Signatures::Omitted)
}

/// The input activities as the file should hold them (clipped, merged), in Unix seconds.
fn expected(e: &Export) -> Vec<(ActivityKind, i64, i64)> {
    normalize(&e.activities, e.period_start, e.period_end)
        .into_iter()
        .map(|s| (s.kind, s.start * 60, s.end * 60))
        .collect()
}

#[test]
fn signed_round_trip_28_days() {
    let keys = testkit::keys();
    let mut e = export(28, busy_activities(28, 6, 75));
    e.day_distances.insert(date(2024, 3, 2), 187);
    e.vehicles.push(VehicleUse {
        registration: "AB-123-CD".into(),
        first_use: day_start(date(2024, 3, 2)) + 6 * 3600,
        last_use: day_start(date(2024, 3, 2)) + 14 * 3600,
        odometer_begin: Some(10_000),
        odometer_end: Some(10_187),
    });
    e.places.push(Place {
        time: e.vehicles[0].first_use,
        entry_type: PlaceEntryType::Begin,
        odometer: Some(10_000),
    });
    e.places.push(Place {
        time: e.vehicles[0].last_use,
        entry_type: PlaceEntryType::End,
        odometer: Some(10_187),
    });
    let file = encode(&e, &keys.signer, Signatures::Included);
    let ec_pk = root_public_key_ec_pk(&keys.root);
    let report = inspect(&file, Some(&ec_pk)).unwrap();

    assert_eq!(report.file_size, 26_635);
    assert_eq!(report.files.len(), 16);
    for f in &report.files {
        let spec = spec(u16::from_str_radix(&f.fid, 16).unwrap()).unwrap();
        let status = if spec.signed {
            SignatureStatus::Valid
        } else {
            SignatureStatus::Unsigned
        };
        assert_eq!(f.signature, status, "EF {}", f.fid);
    }
    assert_eq!(report.certificates.ca.status, CertificateStatus::Valid);
    assert_eq!(report.certificates.card.status, CertificateStatus::Valid);
    assert_eq!(report.certificates.card_serial_matches_chr, Some(true));

    assert_eq!(activity_intervals(&report), expected(&e));
    assert_eq!(report.activity.days.len(), 28);
    assert_eq!(report.activity.days[1].distance_km, 187);
    assert_eq!(report.activity.days[27].presence_counter, 28);
    assert_eq!(report.identification.card_number, "RL00000000432100");
    assert_eq!(report.identification.surname, "Dupont-Lefèvre");
    assert_eq!(report.identification.first_names, "Élodie Marie");
    assert_eq!(report.identification.birth_date.as_deref(), Some("1988-11-05"));
    assert_eq!(
        report.identification.issuing_authority,
        "ROADLOG - NOT AN OFFICIAL CARD"
    );
    assert_eq!(
        report.identification.card_expiry.as_deref(),
        Some("2028-12-31T23:59:59Z")
    );
    assert_eq!(report.vehicles.len(), 1);
    assert_eq!(report.vehicles[0].registration, "AB-123-CD");
    assert_eq!(
        (report.vehicles[0].odometer_begin, report.vehicles[0].odometer_end),
        (10_000, 10_187)
    );
    assert_eq!(report.vehicles[0].first_use.as_deref(), Some("2024-03-02T06:00:00Z"));
    assert_eq!(report.places.len(), 2);
    assert_eq!(
        (
            report.places[0].entry_type.as_str(),
            report.places[1].entry_type.as_str()
        ),
        ("begin", "end")
    );
    let usage = report.current_usage.as_ref().unwrap();
    assert!(!usage.open_session && usage.session_open_time.is_none() && usage.vehicle.is_empty());
    assert_eq!(report.findings, Vec::<String>::new());
    assert_eq!(report.last_card_download.as_deref(), Some("2024-03-29T08:00:00Z"));
    assert!(report.events.is_empty() && report.faults.is_empty() && report.specific_conditions.is_empty());
    assert!(report.control_activity.is_none());
    // The report serialises to JSON.
    let json = serde_json::to_string(&report).unwrap();
    assert!(json.contains("\"signature\":\"valid\""));
}

#[test]
fn wrapped_buffer_round_trip() {
    // 80 activities of 8 minutes a day from 06:00 with a 15-minute break after every fourth (19 breaks):
    // words = 1 (00:00) + 80 + 19 rests + 1 withdrawal = 101 → 12 + 202 = 214 bytes a day. 72 days =
    // 15 408 bytes > 13 776: only the last ⌊13 776 / 214⌋ = 64 days fit (64 × 214 = 13 696).
    let e = export(72, busy_activities(72, 80, 8));
    let file = unsigned(&e);
    let report = inspect(&file, None).unwrap();
    let days = &report.activity.days;
    assert!(days.len() < 72, "the buffer must have wrapped");
    assert!(report.activity.oldest_record_offset > report.activity.newest_record_offset);
    let used: usize = days.iter().map(|d| d.length).sum();
    assert_eq!(days.len(), 64);
    assert!(used <= 13_776 && used + days[0].length > 13_776);
    // Presence counters continue from the dropped records.
    assert_eq!(days.last().unwrap().presence_counter, 72);
    assert_eq!(days[0].presence_counter as usize, 72 - days.len() + 1);
    // Activities of the surviving days are exactly the input's, from the oldest kept day on.
    let first_kept = days[0].record_time;
    let kept: Vec<_> = expected(&e).into_iter().filter(|(_, s, _)| *s >= first_kept).collect();
    assert_eq!(activity_intervals(&report), kept);
    // A record split across the end of the string exists (some record wraps).
    assert!(days.iter().any(|d| d.offset + d.length > 13_776));
}

#[test]
fn flipped_byte_fails_only_that_ef() {
    let keys = testkit::keys();
    let mut file = encode(
        &export(2, busy_activities(2, 6, 60)),
        &keys.signer,
        Signatures::Included,
    );
    let tlvs = tlv::parse(&file).unwrap();
    let places_offset = tlvs
        .iter()
        .find(|t| t.fid == EF_PLACES && t.appendix == 0)
        .unwrap()
        .offset;
    file[places_offset + 5 + 500] ^= 0x01;
    let report = inspect(&file, Some(&root_public_key_ec_pk(&keys.root))).unwrap();
    for f in &report.files {
        let expected = match f.fid.as_str() {
            "0506" => SignatureStatus::Invalid,
            "0002" | "0005" | "C100" | "C108" => SignatureStatus::Unsigned,
            _ => SignatureStatus::Valid,
        };
        assert_eq!(f.signature, expected, "EF {}", f.fid);
    }
}

#[test]
fn foreign_root_or_no_root() {
    let keys = testkit::keys();
    let file = encode(
        &export(1, busy_activities(1, 4, 30)),
        &keys.signer,
        Signatures::Included,
    );
    // Without a root key nothing is checked.
    let report = inspect(&file, None).unwrap();
    assert_eq!(report.certificates.ca.status, CertificateStatus::NotChecked);
    assert_eq!(report.certificates.card.status, CertificateStatus::NotChecked);
    assert!(
        report
            .files
            .iter()
            .filter(|f| f.signed)
            .all(|f| f.signature == SignatureStatus::NotChecked)
    );
    assert_eq!(report.certificates.ca.authority_reference, hex(&keys.root.key_id()));
    // Another root (same KID, other modulus: the card key as a stand-in) does not open the CA certificate.
    let mut foreign = root_public_key_ec_pk(&keys.root);
    foreign[8..136].copy_from_slice(&keys.card.public_key().modulus);
    let report = inspect(&file, Some(&foreign)).unwrap();
    assert_eq!(report.certificates.ca.status, CertificateStatus::Invalid);
    assert!(
        report
            .files
            .iter()
            .filter(|f| f.signed)
            .all(|f| f.signature == SignatureStatus::NotChecked)
    );
    assert!(inspect(&file, Some(&[0u8; 10])).is_err());
}

#[test]
fn empty_export_is_a_valid_file() {
    let keys = testkit::keys();
    let e = export(7, Vec::new());
    for signatures in [Signatures::Omitted, Signatures::Included] {
        let file = encode(&e, &keys.signer, signatures);
        let report = inspect(&file, Some(&root_public_key_ec_pk(&keys.root))).unwrap();
        assert!(report.activity.days.is_empty());
        assert_eq!(
            (
                report.activity.oldest_record_offset,
                report.activity.newest_record_offset
            ),
            (0, 0)
        );
        assert!(report.vehicles.is_empty() && report.places.is_empty());
        assert!(activity_intervals(&report).is_empty());
    }
    // Unsigned: the chain verifies, every EF is reported as not signed, none as failed.
    let unsigned = inspect(&unsigned(&e), Some(&root_public_key_ec_pk(&keys.root))).unwrap();
    assert_eq!(unsigned.certificates.ca.status, CertificateStatus::Valid);
    assert_eq!(unsigned.certificates.card.status, CertificateStatus::Valid);
    assert_eq!(unsigned.certificates.card_serial_matches_chr, Some(true));
    assert!(unsigned.files.iter().all(|f| f.signature == SignatureStatus::Unsigned));
    assert_eq!(unsigned.findings, Vec::<String>::new());
}

#[test]
fn single_day_round_trip() {
    let start = day_start(date(2024, 3, 1));
    let acts = vec![
        Activity {
            kind: ActivityKind::Drive,
            start: start + 7 * 3600,
            end: start + 9 * 3600,
        },
        Activity {
            kind: ActivityKind::Support,
            start: start + 9 * 3600,
            end: start + 10 * 3600,
        },
    ];
    let e = export(1, acts);
    let report = inspect(&unsigned(&e), None).unwrap();
    assert_eq!(report.activity.days.len(), 1);
    assert_eq!(report.activity.oldest_record_offset, 2); // not 0: a known reader skips oldest = newest = 0
    assert_eq!(activity_intervals(&report), expected(&e));
    let kinds: Vec<_> = report.activity.days[0]
        .changes
        .iter()
        .map(|c| (c.time.as_str(), c.activity, c.slot))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("00:00", "break_rest", "driver"),
            ("07:00", "driving", "driver"),
            ("09:00", "availability", "co_driver"),
            ("10:00", "break_rest", "co_driver"),
        ]
    );
    assert!(!report.activity.days[0].changes[3].card_inserted);
}

#[test]
fn night_shifts_round_trip() {
    // Work 22:00–06:00 every night for 10 nights, with a 30-minute drive at 02:00.
    let base = day_start(date(2024, 3, 1));
    let mut acts = Vec::new();
    for n in 0..10 {
        let t = base + n * 86_400 + 22 * 3600;
        acts.push(Activity {
            kind: ActivityKind::Work,
            start: t,
            end: t + 4 * 3600,
        });
        acts.push(Activity {
            kind: ActivityKind::Drive,
            start: t + 4 * 3600,
            end: t + 4 * 3600 + 1800,
        });
        acts.push(Activity {
            kind: ActivityKind::Work,
            start: t + 4 * 3600 + 1800,
            end: t + 8 * 3600,
        });
    }
    let e = export(12, acts);
    let report = inspect(&unsigned(&e), None).unwrap();
    assert_eq!(activity_intervals(&report), expected(&e));
    assert_eq!(report.activity.days.len(), 11);
}

#[test]
fn structural_violations() {
    let file = unsigned(&export(2, busy_activities(2, 6, 60)));
    // Truncated file.
    assert!(inspect(&file[..file.len() - 3], None).is_err());
    // A gen-2 tag.
    let mut v = file.clone();
    v[2] = 0x02;
    assert!(inspect(&v, None).unwrap_err().message.contains("generation-2"));
    // An EF missing: drop EF_Places (the TLV at its offset).
    let tlvs = tlv::parse(&file).unwrap();
    let places = tlvs.iter().find(|t| t.fid == EF_PLACES).unwrap();
    let mut v = file[..places.offset].to_vec();
    v.extend_from_slice(&file[places.offset + 5 + places.value.len()..]);
    assert_eq!(inspect(&v, None).unwrap_err().ef.as_deref(), Some("0506"));
    // Sizes inconsistent with EF_Application_Identification: claim 100 vehicle records.
    let app = tlvs.iter().find(|t| t.fid == EF_APPLICATION_IDENTIFICATION).unwrap();
    let mut v = file.clone();
    v[app.offset + 5 + 8] = 100;
    assert_eq!(inspect(&v, None).unwrap_err().ef.as_deref(), Some("0505"));
    // Broken activity pointer.
    let act = tlvs.iter().find(|t| t.fid == EF_DRIVER_ACTIVITY_DATA).unwrap();
    let mut v = file.clone();
    v[act.offset + 5 + 2] = 0xFF;
    assert_eq!(inspect(&v, None).unwrap_err().ef.as_deref(), Some("0504"));
    // Invalid BCD birth date.
    let ident = tlvs.iter().find(|t| t.fid == EF_IDENTIFICATION).unwrap();
    let mut v = file.clone();
    v[ident.offset + 5 + 139] = 0x1A;
    assert_eq!(inspect(&v, None).unwrap_err().ef.as_deref(), Some("0520"));
}

/// Pseudo-random exports (fixed seed, no dependency): overlapping, unsorted, unaligned activities, partly
/// outside the period, from a few minutes to whole days. Every file must pass the inspector and give back
/// exactly the normalized activities.
#[test]
fn random_exports_round_trip() {
    let mut seed: u64 = 0x0C1B_2024;
    let mut next = |bound: i64| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % bound as u64) as i64
    };
    let kinds = [
        ActivityKind::Drive,
        ActivityKind::Work,
        ActivityKind::Support,
        ActivityKind::Transfer,
    ];
    for _ in 0..150 {
        let days = 1 + next(64);
        let mut e = export(days as u64, Vec::new());
        let first = day_start(e.period_start) - 86_400;
        let mut t = first + next(86_400);
        // Dense exports (about 300 short activities a day) overflow the 13 776-byte buffer after ~15 days.
        let dense = next(2) == 0;
        let count = if dense { 20_000 } else { next(1500) };
        for _ in 0..count {
            let gap = match next(if dense { 150 } else { 40 }) {
                0 => 60 * (540 + next(600)) + next(60), // daily rest (sometimes not minute-aligned)
                1 => -next(3600),                       // overlaps the previous activity
                2..=4 => 60 * (60 + next(300)),         // long break
                n if n % 3 == 0 => 60 * (1 + next(5)),  // short break
                _ => 0,                                 // back to back
            };
            let start = t + gap;
            let minutes = if dense { 1 + next(4) } else { 1 + next(90) };
            let end = start + 60 * minutes;
            e.activities.push(Activity {
                kind: kinds[next(4) as usize],
                start,
                end,
            });
            t = end.max(t);
        }
        if next(3) == 0 {
            e.activities.reverse(); // unsorted input
        }
        let file = unsigned(&e);
        let report = inspect(&file, None).unwrap_or_else(|v| panic!("{v}"));
        let kept_from = report.activity.days.first().map_or(i64::MIN, |d| d.record_time);
        let want: Vec<_> = expected(&e)
            .into_iter()
            .filter(|(_, _, end)| *end > kept_from)
            .collect();
        let mut got = activity_intervals(&report);
        // When the buffer wrapped, the first kept day may start inside an activity: compare from its 00:00.
        if let (Some(g), Some(w)) = (got.first_mut(), want.first()) {
            assert!(g.1 == w.1 || (g.1 == kept_from && w.1 < kept_from), "{g:?} vs {w:?}");
            g.1 = w.1;
        }
        assert_eq!(got, want);
    }
}
