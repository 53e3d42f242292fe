//! EF_Vehicles_Used `0505` (CardVehiclesUsed): newest-record pointer + n3 CardVehicleRecords.
//!
//! Why: it tells a controller which vehicles the driver used and when. Records are written as a card writes
//! them, oldest first from index 0, cyclically when there are more than n3 (the pointer is the index of the newest
//! record, so the record after it is the oldest once the table has wrapped). Unused records are empty as on a
//! real card: `00` × 16 ‖ 13 spaces ‖ `00 00`. There is no vehicle unit, so the vuDataBlockCounter (BCD) is the
//! record's sequence number (0001, 0002, …), increasing as a VU's counter would.

use super::input::VehicleUse;
use super::layout::{CARD_VEHICLE_RECORD_LEN, NATION};
use super::primitives::{bcd4, put_odometer, put_time_real};
use super::text::code_paged;

/// An empty CardVehicleRecord.
pub fn empty_record() -> [u8; CARD_VEHICLE_RECORD_LEN] {
    let mut r = [0u8; CARD_VEHICLE_RECORD_LEN];
    r[16..29].fill(b' ');
    r
}

/// VehicleRegistrationIdentification (15): nation ‖ code page ‖ 13 bytes, the code page chosen per registration
/// as for names (a Bulgarian or Greek plate keeps its letters); an empty registration is the default `00 00` +
/// 13 spaces.
pub fn vehicle_registration(registration: &str) -> [u8; 15] {
    let mut out = [b' '; 15];
    if registration.trim().is_empty() {
        out[0] = 0;
        out[1] = 0;
    } else {
        out[0] = NATION;
        out[1..].copy_from_slice(&code_paged(&registration.to_uppercase(), 13));
    }
    out
}

fn record(v: &VehicleUse, sequence: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(CARD_VEHICLE_RECORD_LEN);
    put_odometer(&mut out, v.odometer_begin);
    put_odometer(&mut out, v.odometer_end);
    put_time_real(&mut out, v.first_use);
    put_time_real(&mut out, v.last_use);
    out.extend_from_slice(&vehicle_registration(&v.registration));
    out.extend_from_slice(&bcd4(sequence));
    out
}

/// The EF value for `records` slots.
pub fn vehicles_used(vehicles: &[VehicleUse], records: usize) -> Vec<u8> {
    let mut sorted: Vec<&VehicleUse> = vehicles.iter().collect();
    sorted.sort_by_key(|v| (v.first_use, v.last_use));
    let mut table: Vec<[u8; CARD_VEHICLE_RECORD_LEN]> = vec![empty_record(); records];
    for (i, v) in sorted.iter().enumerate() {
        table[i % records].copy_from_slice(&record(v, (i + 1) as u32));
    }
    let newest = sorted.len().checked_sub(1).map_or(0, |last| last % records);
    let mut out = Vec::with_capacity(2 + records * CARD_VEHICLE_RECORD_LEN);
    out.extend_from_slice(&(newest as u16).to_be_bytes());
    for r in &table {
        out.extend_from_slice(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_record_by_hand() {
        // Odometer 123 456 = 01 E2 40, 123 789 = 01 E3 8D; first use 1 704 096 000 (2024-01-01 08:00) =
        // 0x6592_7100; last use 1 704 124 800 (16:00) = 0x6592_E180; F = 11, code page 01, "AB-123-CD" +
        // 4 spaces; counter 0001.
        let v = VehicleUse {
            registration: "ab-123-cd".into(),
            first_use: 1_704_096_000,
            last_use: 1_704_124_800,
            odometer_begin: Some(123_456),
            odometer_end: Some(123_789),
        };
        let out = vehicles_used(&[v], 3);
        assert_eq!(out.len(), 2 + 3 * 31);
        assert_eq!(&out[0..2], &[0, 0]); // newest = index 0
        let mut expected = vec![
            0x01, 0xE2, 0x40, 0x01, 0xE3, 0x8D, 0x65, 0x92, 0x71, 0x00, 0x65, 0x92, 0xE1, 0x80,
        ];
        expected.extend_from_slice(&[0x11, 0x01]);
        expected.extend_from_slice(b"AB-123-CD    ");
        expected.extend_from_slice(&[0x00, 0x01]);
        assert_eq!(&out[2..33], &expected[..]);
        // The two unused records: 16 × 00, 13 × 20, 00 00.
        for r in out[33..].chunks(31) {
            assert_eq!(r, &empty_record());
            assert!(r[..16].iter().all(|&b| b == 0) && r[16..29].iter().all(|&b| b == b' ') && r[29..] == [0, 0]);
        }
    }

    #[test]
    fn table_wraps_and_pointer_is_newest_index() {
        // 5 uses in 3 slots: uses 1..5 go to slots 0,1,2,0,1 → slot 0 = use 4, slot 1 = use 5 (newest, pointer 1),
        // slot 2 = use 3 (oldest, the one after the pointer). Counters BCD 0004, 0005, 0003.
        let uses: Vec<VehicleUse> = (1..=5)
            .map(|i| VehicleUse {
                registration: format!("V{i}"),
                first_use: i * 1000,
                last_use: i * 1000 + 10,
                odometer_begin: None,
                odometer_end: None,
            })
            .collect();
        let out = vehicles_used(&uses, 3);
        assert_eq!(&out[0..2], &[0, 1]);
        let counters: Vec<&[u8]> = out[2..].chunks(31).map(|r| &r[29..31]).collect();
        assert_eq!(counters, vec![&[0x00, 0x04][..], &[0x00, 0x05][..], &[0x00, 0x03][..]]);
        // Slot 0 = use 4: nation at record offset 14, code page, then "V4".
        assert_eq!(&out[2 + 14..2 + 18], &[0x11, 0x01, b'V', b'4']);
    }

    #[test]
    fn registrations_announce_their_code_page() {
        // A plate in Cyrillic letters: part 5, В = B2, А = B0; a Latin one: part 1.
        let mut expected = vec![0x11, 0x05, 0xB2, b'1', b'2', b'3', b'4', 0xB0, 0xB2];
        expected.resize(15, b' ');
        assert_eq!(vehicle_registration("в1234ав").to_vec(), expected);
        assert_eq!(&vehicle_registration("AB123CD")[..3], &[0x11, 0x01, b'A']);
        assert_eq!(
            vehicle_registration(" ").to_vec(),
            [&[0u8, 0][..], &[b' '; 13]].concat()
        );
    }

    #[test]
    fn no_vehicle_all_empty() {
        let out = vehicles_used(&[], 200);
        assert_eq!(out.len(), 6202);
        assert_eq!(&out[0..2], &[0, 0]);
        assert!(out[2..].chunks(31).all(|r| r == empty_record()));
    }
}
