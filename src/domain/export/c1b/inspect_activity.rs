//! Decoding and checking EF_Driver_Activity_Data: the cyclic string of day records and the five invariants of
//! §3.4 of the format reference, plus the way back from day records to activity intervals.
//!
//! Why so strict: readers walk the buffer in different directions (forward from the oldest pointer, backward
//! from the newest by previous-record lengths) and stop at the first inconsistency, so a file that breaks any
//! invariant shows different, or no, activity depending on the software. The checker must catch what the
//! encoder might get wrong.

use super::activity_word::{TIME_MASK, activity_name, kind_of, slot_name, status_name};
use super::input::ActivityKind;
use super::layout::EF_DRIVER_ACTIVITY_DATA;
use super::primitives::{MINUTES_PER_DAY, SECONDS_PER_DAY, decode_bcd, format_unix};
use super::report::{ActivityReport, ChangeReport, DayReport, Violation};

/// Smallest and largest CardActivityDailyRecord: 12 + 2 × 1 and 12 + 2 × 1440 bytes.
const MIN_RECORD_LEN: usize = 14;
const MAX_RECORD_LEN: usize = 12 + 2 * 1440;

fn violation(message: String) -> Violation {
    Violation::ef(EF_DRIVER_ACTIVITY_DATA, message)
}

/// The cyclic string, read modulo its length.
struct Ring<'a>(&'a [u8]);

impl Ring<'_> {
    fn byte(&self, pos: usize) -> u8 {
        self.0[pos % self.0.len()]
    }

    fn u16(&self, pos: usize) -> u16 {
        u16::from_be_bytes([self.byte(pos), self.byte(pos + 1)])
    }

    fn u32(&self, pos: usize) -> u32 {
        u32::from_be_bytes([
            self.byte(pos),
            self.byte(pos + 1),
            self.byte(pos + 2),
            self.byte(pos + 3),
        ])
    }
}

/// Decodes the EF value (`4 + n6` bytes) and checks the invariants.
pub fn decode(value: &[u8], n6: usize) -> Result<ActivityReport, Violation> {
    if value.len() != 4 + n6 {
        return Err(violation(format!(
            "{} bytes, 4 + n6 = {} expected",
            value.len(),
            4 + n6
        )));
    }
    let oldest = usize::from(u16::from_be_bytes([value[0], value[1]]));
    let newest = usize::from(u16::from_be_bytes([value[2], value[3]]));
    let ring = Ring(&value[4..]);
    // Invariant 1: pointers inside the string.
    if oldest >= n6 || newest >= n6 {
        return Err(violation(format!(
            "pointers oldest {oldest} / newest {newest} outside 0..{n6}"
        )));
    }
    let mut report = ActivityReport {
        oldest_record_offset: oldest,
        newest_record_offset: newest,
        days: Vec::new(),
    };
    // A card never used: both pointers 0 and no record at 0.
    if oldest == 0 && newest == 0 && ring.u16(2) == 0 {
        return Ok(report);
    }

    // Invariants 2–5, walking forward from the oldest record.
    let mut pos = oldest;
    let mut total = 0usize;
    let mut previous: Option<(usize, u32, u32)> = None; // (length, date, presence counter)
    loop {
        let prev_len = usize::from(ring.u16(pos));
        let len = usize::from(ring.u16(pos + 2));
        if len % 2 != 0 || !(MIN_RECORD_LEN..=MAX_RECORD_LEN).contains(&len) {
            return Err(violation(format!(
                "record at offset {pos} has length {len} (even, 14..=2892 expected)"
            )));
        }
        let expected_prev = previous.map_or(0, |(l, _, _)| l);
        if prev_len != expected_prev {
            return Err(violation(format!(
                "record at offset {pos} has previous-record length {prev_len}, {expected_prev} expected"
            )));
        }
        total += len;
        if total > n6 {
            return Err(violation(format!(
                "walking forward from the oldest record ({oldest}) never reaches the newest ({newest}) within n6 bytes"
            )));
        }
        let day = decode_record(&ring, pos, len)?;
        let date = day.record_time as u32;
        if let Some((_, previous_date, previous_counter)) = previous {
            if date <= previous_date {
                return Err(violation(format!(
                    "record at offset {pos}: date {} not after the previous",
                    day.date
                )));
            }
            if u32::from(day.presence_counter) != (previous_counter + 1) % 10_000 {
                return Err(violation(format!(
                    "record at offset {pos}: presence counter {:04} does not follow {previous_counter:04}",
                    day.presence_counter
                )));
            }
        }
        previous = Some((len, date, u32::from(day.presence_counter)));
        report.days.push(day);
        if pos == newest {
            break;
        }
        pos = (pos + len) % n6;
    }

    // Invariant 2, backward: from the newest by previous lengths, ending on the oldest with previous length 0.
    let mut pos = newest;
    for _ in 1..report.days.len() {
        let prev_len = usize::from(ring.u16(pos));
        pos = (pos + n6 - prev_len % n6) % n6;
    }
    if pos != oldest || ring.u16(pos) != 0 {
        return Err(violation(format!(
            "walking backward from the newest record ends at {pos}, not at {oldest}"
        )));
    }
    Ok(report)
}

fn decode_record(ring: &Ring<'_>, pos: usize, len: usize) -> Result<DayReport, Violation> {
    let date = ring.u32(pos + 4);
    // Invariant 4: record dates at 00:00 UTC; presence counter valid BCD.
    if i64::from(date) % SECONDS_PER_DAY != 0 {
        return Err(violation(format!(
            "record at offset {pos}: date {date} is not 00:00 UTC"
        )));
    }
    let counter_bytes = [ring.byte(pos + 8), ring.byte(pos + 9)];
    let presence_counter = decode_bcd(&counter_bytes).ok_or_else(|| {
        violation(format!(
            "record at offset {pos}: presence counter {counter_bytes:02X?} is not BCD"
        ))
    })? as u16;
    let distance_km = ring.u16(pos + 10);
    // Invariant 5: first change at 00:00, strictly increasing times, all within the day.
    let mut changes = Vec::with_capacity((len - 12) / 2);
    for k in 0..(len - 12) / 2 {
        let raw = ring.u16(pos + 12 + 2 * k);
        let minute = raw & TIME_MASK;
        if i64::from(minute) >= MINUTES_PER_DAY {
            return Err(violation(format!(
                "record at offset {pos}: change time {minute} beyond 1439"
            )));
        }
        match changes.last() {
            None if minute != 0 => {
                return Err(violation(format!(
                    "record at offset {pos}: first change at minute {minute}, not 00:00"
                )));
            }
            Some(ChangeReport { minute: last, .. }) if minute <= *last => {
                return Err(violation(format!(
                    "record at offset {pos}: change times not increasing ({last}, {minute})"
                )));
            }
            _ => {}
        }
        changes.push(ChangeReport {
            minute,
            time: format!("{:02}:{:02}", minute / 60, minute % 60),
            activity: activity_name(raw),
            slot: slot_name(raw),
            card_inserted: raw & super::activity_word::NOT_INSERTED == 0,
            status: status_name(raw),
            raw,
        });
    }
    Ok(DayReport {
        date: format_unix(i64::from(date))[..10].to_string(),
        record_time: i64::from(date),
        offset: pos,
        length: len,
        presence_counter,
        distance_km,
        changes,
    })
}

/// Turns day records back into activity intervals `(kind, start, end)` in Unix seconds, merging an activity that
/// runs across midnight (or across any change that keeps its kind). Rest and card-not-inserted time are gaps.
pub fn intervals(activity: &ActivityReport) -> Vec<(ActivityKind, i64, i64)> {
    let mut out: Vec<(ActivityKind, i64, i64)> = Vec::new();
    for day in &activity.days {
        for (i, change) in day.changes.iter().enumerate() {
            let Some(kind) = kind_of(change.raw) else { continue };
            let start = day.record_time + i64::from(change.minute) * 60;
            let end = day
                .changes
                .get(i + 1)
                .map_or(day.record_time + SECONDS_PER_DAY, |next| {
                    day.record_time + i64::from(next.minute) * 60
                });
            match out.last_mut() {
                Some(last) if last.0 == kind && last.2 == start => last.2 = end,
                _ => out.push((kind, start, end)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of `n6` bytes holding `records` (each: date day, counter, words) from `start`, built by hand.
    fn buffer(n6: usize, start: usize, records: &[(u32, u16, &[u16])]) -> Vec<u8> {
        let mut ring = vec![0u8; n6];
        let (mut pos, mut prev, mut newest) = (start, 0usize, start);
        for &(day, counter, words) in records {
            let len = 12 + 2 * words.len();
            let mut rec = Vec::new();
            rec.extend_from_slice(&(prev as u16).to_be_bytes());
            rec.extend_from_slice(&(len as u16).to_be_bytes());
            rec.extend_from_slice(&(day * 86_400).to_be_bytes());
            rec.extend_from_slice(&super::super::primitives::bcd4(u32::from(counter)));
            rec.extend_from_slice(&[0, 0]);
            for w in words {
                rec.extend_from_slice(&w.to_be_bytes());
            }
            for (k, b) in rec.iter().enumerate() {
                ring[(pos + k) % n6] = *b;
            }
            newest = pos;
            prev = len;
            pos = (pos + len) % n6;
        }
        let mut value = (start as u16).to_be_bytes().to_vec();
        value.extend_from_slice(&(newest as u16).to_be_bytes());
        value.extend_from_slice(&ring);
        value
    }

    #[test]
    fn decodes_a_wrapped_buffer() {
        // Two records from offset 30 in a 40-byte string: A (14 bytes) at 30..44 wraps to 0..4, B (16) at 4.
        let value = buffer(40, 30, &[(100, 1, &[0x2000]), (101, 2, &[0x2000, 0x1800 | 60])]);
        let report = decode(&value, 40).unwrap();
        assert_eq!(report.days.len(), 2);
        assert_eq!((report.days[0].offset, report.days[1].offset), (30, 4));
        assert_eq!(report.days[1].changes[1].time, "01:00");
        assert_eq!(report.days[1].changes[1].activity, "driving");
        // Driving from 01:00 on day 101 to its end.
        assert_eq!(
            intervals(&report),
            vec![(ActivityKind::Drive, 101 * 86_400 + 3600, 102 * 86_400)]
        );
    }

    #[test]
    fn empty_buffer_has_no_day() {
        assert!(decode(&[0u8; 44], 40).unwrap().days.is_empty());
    }

    #[test]
    fn each_invariant_is_checked() {
        let good = buffer(40, 0, &[(100, 1, &[0x2000]), (101, 2, &[0x2000, 0x1800 | 60])]);
        assert!(decode(&good, 40).is_ok());
        // 1: pointer outside the string.
        let mut v = good.clone();
        v[2..4].copy_from_slice(&40u16.to_be_bytes());
        assert!(decode(&v, 40).unwrap_err().message.contains("outside"));
        // 2: newest pointer not on a record boundary.
        let mut v = good.clone();
        v[2..4].copy_from_slice(&16u16.to_be_bytes());
        assert!(decode(&v, 40).is_err());
        // 3: previous length of B wrong.
        let mut v = good.clone();
        v[4 + 14 + 1] = 12;
        assert!(decode(&v, 40).unwrap_err().message.contains("previous-record length"));
        // 3: odd record length.
        let mut v = good.clone();
        v[4 + 3] = 15;
        assert!(decode(&v, 40).is_err());
        // 4: presence counter not +1, date not after, not BCD, not midnight.
        assert!(decode(&buffer(40, 0, &[(100, 1, &[0x2000]), (101, 3, &[0x2000])]), 40).is_err());
        assert!(decode(&buffer(40, 0, &[(100, 1, &[0x2000]), (100, 2, &[0x2000])]), 40).is_err());
        let mut v = good.clone();
        v[4 + 8] = 0x0A;
        assert!(decode(&v, 40).unwrap_err().message.contains("BCD"));
        let mut v = good.clone();
        v[4 + 7] = 1;
        assert!(decode(&v, 40).unwrap_err().message.contains("00:00"));
        // 5: first change not at 00:00, times not increasing, time beyond 1439.
        assert!(decode(&buffer(40, 0, &[(100, 1, &[0x2001])]), 40).is_err());
        assert!(decode(&buffer(40, 0, &[(100, 1, &[0x2000, 0x1800 | 5, 0x1000 | 5])]), 40).is_err());
        assert!(decode(&buffer(40, 0, &[(100, 1, &[0x2000, 0x1800 | 1440])]), 40).is_err());
        // Oldest record with a non-zero previous length.
        let mut v = good;
        v[4 + 1] = 2;
        assert!(decode(&v, 40).is_err());
    }

    #[test]
    fn presence_counter_wraps_at_10000() {
        assert!(decode(&buffer(40, 0, &[(100, 9999, &[0x2000]), (101, 0, &[0x2000])]), 40).is_ok());
    }
}
