//! EF_Driver_Activity_Data `0504` (CardDriverActivity): two pointers and the cyclic string of day records.
//!
//! Why the buffer is laid out like this (Appendix 1 §2.13, §3.4 of the reference): readers walk the records
//! forward from `activityPointerOldestDayRecord` or backward from `activityPointerNewestRecord` by
//! `activityPreviousRecordLength`, so the five invariants must hold exactly. We write the records as a card
//! would have written them since the first exported day: the first record at offset 0, each next record right
//! after the previous one modulo n6 (a record, even a 2-byte field, may be split across the end of the string).
//! When the period does not fit, the oldest whole records are dropped (their bytes are overwritten) and the new
//! oldest record's previous-length is reset to 0. Bytes not covered by a complete record stay `00`.
//!
//! One exception: a single record at offset 0 would give `oldest == newest == 0`, which one common reader
//! (jugglingcats) takes for "no data"; such a record is placed at offset 2 instead (any offset is valid).

use std::collections::BTreeMap;

use chrono::NaiveDate;

use super::primitives::{DISTANCE_MAX, SECONDS_PER_DAY, bcd4, date_of_day, put_u16, put_u32, time_real};
use super::timeline::DayActivity;

/// Header length of a CardActivityDailyRecord (before the change words).
pub const RECORD_HEADER_LEN: usize = 12;

/// One CardActivityDailyRecord with `activityPreviousRecordLength` = 0 (set when it is placed).
pub fn day_record(day: &DayActivity, presence_counter: u32, distances: &BTreeMap<NaiveDate, u16>) -> Vec<u8> {
    let len = RECORD_HEADER_LEN + 2 * day.words.len();
    let mut out = Vec::with_capacity(len);
    put_u16(&mut out, 0);
    put_u16(&mut out, len as u16);
    put_u32(&mut out, time_real(day.day * SECONDS_PER_DAY));
    out.extend_from_slice(&bcd4(presence_counter));
    let distance = date_of_day(day.day)
        .and_then(|d| distances.get(&d))
        .copied()
        .unwrap_or(0);
    put_u16(&mut out, distance.min(DISTANCE_MAX));
    for &word in &day.words {
        put_u16(&mut out, word);
    }
    out
}

/// The EF value: `oldest(2) ‖ newest(2) ‖ n6 bytes`. Presence counters run 0001, 0002, … from the first day of
/// the period that has a record (also for records dropped by the wrap), modulo 10 000.
pub fn driver_activity_data(days: &[DayActivity], distances: &BTreeMap<NaiveDate, u16>, n6: usize) -> Vec<u8> {
    let records: Vec<Vec<u8>> = days
        .iter()
        .enumerate()
        .map(|(i, day)| day_record(day, (i + 1) as u32, distances))
        .collect();

    // Keep the longest suffix of records that fits in n6 bytes.
    let mut first_kept = records.len();
    let mut kept_len = 0;
    while first_kept > 0 && kept_len + records[first_kept - 1].len() <= n6 {
        first_kept -= 1;
        kept_len += records[first_kept].len();
    }
    let dropped_len: usize = records[..first_kept].iter().map(Vec::len).sum();
    let kept = &records[first_kept..];

    let mut buffer = vec![0u8; n6];
    let mut pos = dropped_len % n6;
    if kept.len() == 1 && pos == 0 {
        pos = 2;
    }
    let (mut oldest, mut newest, mut previous_len) = (pos, pos, 0usize);
    for (i, record) in kept.iter().enumerate() {
        if i == 0 {
            oldest = pos;
        }
        newest = pos;
        let mut record = record.clone();
        record[0..2].copy_from_slice(&(previous_len as u16).to_be_bytes());
        for (k, &byte) in record.iter().enumerate() {
            buffer[(pos + k) % n6] = byte;
        }
        previous_len = record.len();
        pos = (pos + record.len()) % n6;
    }
    if kept.is_empty() {
        (oldest, newest) = (0, 0);
    }

    let mut out = Vec::with_capacity(4 + n6);
    put_u16(&mut out, oldest as u16);
    put_u16(&mut out, newest as u16);
    out.extend_from_slice(&buffer);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(day: i64, words: &[u16]) -> DayActivity {
        DayActivity {
            day,
            words: words.to_vec(),
        }
    }

    #[test]
    fn one_day_record_by_hand() {
        // 2024-01-01 = day 19 723, record date 19 723 × 86 400 = 1 704 067 200 = 65 92 00 80.
        // Words 0x2000 (not inserted at 00:00), 0x1968 (drive 06:00), 0x22D0 (withdrawn 12:00): k = 3,
        // length 12 + 2 × 3 = 18 = 0x0012. Presence counter 7 → BCD 00 07; distance 321 km = 0x0141.
        let mut distances = BTreeMap::new();
        distances.insert(NaiveDate::from_ymd_opt(2024, 1, 1).unwrap(), 321);
        let rec = day_record(&day(19_723, &[0x2000, 0x1968, 0x22D0]), 7, &distances);
        assert_eq!(
            rec,
            vec![
                0x00, 0x00, 0x00, 0x12, 0x65, 0x92, 0x00, 0x80, 0x00, 0x07, 0x01, 0x41, 0x20, 0x00, 0x19, 0x68, 0x22,
                0xD0
            ]
        );
        // Distances above 9 999 km are clamped (Distance operational range).
        distances.insert(NaiveDate::from_ymd_opt(2024, 1, 1).unwrap(), 12_000);
        let rec = day_record(&day(19_723, &[0x2000]), 1, &distances);
        assert_eq!(&rec[10..12], &[0x27, 0x0F]); // 9 999 = 0x270F
    }

    #[test]
    fn two_records_from_offset_zero() {
        // Record A: 1 word → 14 bytes at offset 0, prevLen 0. Record B: 2 words → 16 bytes at offset 14,
        // prevLen 14. oldest = 0, newest = 14 = 0x000E; presence counters 0001 and 0002.
        let out = driver_activity_data(
            &[day(100, &[0x2000]), day(101, &[0x2000, 0x1800])],
            &BTreeMap::new(),
            40,
        );
        assert_eq!(out.len(), 44);
        assert_eq!(&out[0..4], &[0x00, 0x00, 0x00, 0x0E]);
        let buf = &out[4..];
        // A: prev 0000, len 000E, date 100 × 86 400 = 8 640 000 = 0x0083D600, counter 0001, distance 0, 2000.
        assert_eq!(
            &buf[0..14],
            &[0, 0, 0, 14, 0x00, 0x83, 0xD6, 0x00, 0x00, 0x01, 0, 0, 0x20, 0x00]
        );
        // B: prev 000E, len 0010, date 101 × 86 400 = 8 726 400 = 0x00852780, counter 0002.
        assert_eq!(
            &buf[14..30],
            &[
                0, 14, 0, 16, 0x00, 0x85, 0x27, 0x80, 0x00, 0x02, 0, 0, 0x20, 0x00, 0x18, 0x00
            ]
        );
        assert!(buf[30..].iter().all(|&b| b == 0));
    }

    #[test]
    fn wrap_drops_the_oldest_and_splits_a_record() {
        // n6 = 40; records of 14, 16, 16 bytes (total 46 > 40). Written from offset 0 as a card would: A at 0,
        // B at 14, C at 30. A (14) is dropped: B + C = 32 ≤ 40 fit. C occupies 30..39 and wraps to 0..5.
        // oldest = 14, newest = 30 = 0x1E; B's prevLen reset to 0; C's prevLen = 16.
        let days = [
            day(100, &[0x2000]),
            day(101, &[0x2000, 0x1800]),
            day(102, &[0x2000, 0x1000]),
        ];
        let out = driver_activity_data(&days, &BTreeMap::new(), 40);
        assert_eq!(&out[0..4], &[0x00, 0x0E, 0x00, 0x1E]);
        let buf = &out[4..];
        // B at 14: prev 0000 (reset), len 0010, counter 0002 (the dropped A was 0001).
        assert_eq!(&buf[14..18], &[0, 0, 0, 16]);
        assert_eq!(&buf[22..24], &[0x00, 0x02]);
        // C at 30..40 then 0..6: prev 0010, len 0010, date 102 × 86 400 = 8 812 800 = 0x00867900, counter 0003,
        // distance 0000, words 2000 1000.
        let c: Vec<u8> = buf[30..40].iter().chain(&buf[0..6]).copied().collect();
        assert_eq!(
            c,
            vec![
                0, 16, 0, 16, 0x00, 0x86, 0x79, 0x00, 0x00, 0x03, 0, 0, 0x20, 0x00, 0x10, 0x00
            ]
        );
        // Bytes 6..14 belonged to the dropped A and are covered by no complete record: 00.
        assert!(buf[6..14].iter().all(|&b| b == 0));
    }

    #[test]
    fn single_record_is_not_at_offset_zero() {
        let out = driver_activity_data(&[day(100, &[0x2000])], &BTreeMap::new(), 40);
        assert_eq!(&out[0..4], &[0x00, 0x02, 0x00, 0x02]);
        assert_eq!(&out[4 + 2..4 + 6], &[0, 0, 0, 14]);
    }

    #[test]
    fn empty_buffer() {
        let out = driver_activity_data(&[], &BTreeMap::new(), 13_776);
        assert_eq!(out.len(), 13_780);
        assert!(out.iter().all(|&b| b == 0));
    }
}
