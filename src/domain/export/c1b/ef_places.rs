//! EF_Places `0506` (CardPlaceDailyWorkPeriod): newest-record pointer (1 byte) + n4 PlaceRecords.
//!
//! Why: places mark where daily work periods began and ended; a controller reads them with the activities.
//! Records are written oldest first from index 0, cyclically beyond n4, the pointer being the newest record's
//! index; unused records are 10 × `00` as on a real card. Country is the file's nation, region `00` (only Spain
//! has regions), odometer 0 when unknown.

use super::input::{Place, PlaceEntryType};
use super::layout::{NATION, PLACE_RECORD_LEN};
use super::primitives::{put_odometer, put_time_real};

fn record(p: &Place) -> Vec<u8> {
    let mut out = Vec::with_capacity(PLACE_RECORD_LEN);
    put_time_real(&mut out, p.time);
    out.push(match p.entry_type {
        PlaceEntryType::Begin => 0x00,
        PlaceEntryType::End => 0x01,
    });
    out.push(NATION);
    out.push(0x00);
    put_odometer(&mut out, p.odometer);
    out
}

/// The EF value for `records` slots.
pub fn places(places: &[Place], records: usize) -> Vec<u8> {
    let mut sorted: Vec<&Place> = places.iter().collect();
    sorted.sort_by_key(|p| p.time);
    let mut table = vec![[0u8; PLACE_RECORD_LEN]; records];
    for (i, p) in sorted.iter().enumerate() {
        table[i % records].copy_from_slice(&record(p));
    }
    let newest = sorted.len().checked_sub(1).map_or(0, |last| last % records);
    let mut out = Vec::with_capacity(1 + records * PLACE_RECORD_LEN);
    out.push(newest as u8);
    for r in &table {
        out.extend_from_slice(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_by_hand() {
        // Begin at 2024-01-01 08:00 = 1 704 096 000 = 0x6592_7100, odometer 1 000 = 00 03 E8;
        // end at 16:00 = 1 704 124 800 = 0x6592_E180, odometer unknown = 00 00 00. Given in reverse order:
        // sorted by time. Pointer = index of the newest = 1.
        let ps = [
            Place {
                time: 1_704_124_800,
                entry_type: PlaceEntryType::End,
                odometer: None,
            },
            Place {
                time: 1_704_096_000,
                entry_type: PlaceEntryType::Begin,
                odometer: Some(1000),
            },
        ];
        let out = places(&ps, 112);
        assert_eq!(out.len(), 1121);
        assert_eq!(out[0], 1);
        assert_eq!(
            &out[1..11],
            &[0x65, 0x92, 0x71, 0x00, 0x00, 0x11, 0x00, 0x00, 0x03, 0xE8]
        );
        assert_eq!(
            &out[11..21],
            &[0x65, 0x92, 0xE1, 0x80, 0x01, 0x11, 0x00, 0x00, 0x00, 0x00]
        );
        assert!(out[21..].iter().all(|&b| b == 0));
    }

    #[test]
    fn wraps_beyond_the_table() {
        // 4 places in 3 slots: slot 0 = place 4 (newest, pointer 0).
        let ps: Vec<Place> = (1..=4)
            .map(|i| Place {
                time: i * 100,
                entry_type: PlaceEntryType::Begin,
                odometer: None,
            })
            .collect();
        let out = places(&ps, 3);
        assert_eq!(out[0], 0);
        assert_eq!(&out[1..5], &[0, 0, 1, 144]); // 400 = 0x0190
        assert!(places(&[], 112).iter().all(|&b| b == 0));
    }
}
