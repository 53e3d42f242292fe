//! Primitive data types of Annex 1B Appendix 1 §2: big-endian integers, TimeReal, Datef, BCD counters,
//! OdometerShort.
//!
//! Why a file of its own: every EF is built from these few encodings, and each has a trap (TimeReal is UTC
//! seconds clamped to 32 bits, Datef and the counters are BCD, not binary) that is easier to get right once.

use chrono::{DateTime, NaiveDate, NaiveTime};

pub const SECONDS_PER_DAY: i64 = 86_400;
pub const MINUTES_PER_DAY: i64 = 1_440;
/// OdometerShort operational maximum (km).
pub const ODOMETER_MAX: u32 = 9_999_999;
/// Distance operational maximum (km).
pub const DISTANCE_MAX: u16 = 9_999;

pub fn put_u16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_be_bytes());
}

pub fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_be_bytes());
}

/// OdometerShort: 3 bytes big-endian, clamped to the operational range.
pub fn put_odometer(out: &mut Vec<u8>, km: Option<u32>) {
    let km = km.unwrap_or(0).min(ODOMETER_MAX);
    out.extend_from_slice(&km.to_be_bytes()[1..]);
}

/// TimeReal: Unix seconds UTC in 32 unsigned bits (a value outside 1970..2106 is clamped).
pub fn time_real(unix_seconds: i64) -> u32 {
    unix_seconds.clamp(0, i64::from(u32::MAX)) as u32
}

pub fn put_time_real(out: &mut Vec<u8>, unix_seconds: i64) {
    put_u32(out, time_real(unix_seconds));
}

/// Unix seconds of 00:00:00 UTC of `date`.
pub fn day_start(date: NaiveDate) -> i64 {
    date.and_time(NaiveTime::MIN).and_utc().timestamp()
}

/// Days since 1970-01-01 of `date`.
pub fn day_number(date: NaiveDate) -> i64 {
    day_start(date).div_euclid(SECONDS_PER_DAY)
}

/// Date of a day number (days since 1970-01-01).
pub fn date_of_day(day: i64) -> Option<NaiveDate> {
    DateTime::from_timestamp(day.checked_mul(SECONDS_PER_DAY)?, 0).map(|t| t.date_naive())
}

/// BCDString(2) of `value mod 10 000` (DailyPresenceCounter, VuDataBlockCounter).
pub fn bcd4(value: u32) -> [u8; 2] {
    let v = value % 10_000;
    let d = [v / 1000, (v / 100) % 10, (v / 10) % 10, v % 10];
    [(d[0] << 4 | d[1]) as u8, (d[2] << 4 | d[3]) as u8]
}

/// Decodes a BCD string; `None` when a nibble is above 9.
pub fn decode_bcd(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |acc, &b| {
        let (hi, lo) = (u32::from(b >> 4), u32::from(b & 0x0F));
        (hi <= 9 && lo <= 9).then(|| acc * 100 + hi * 10 + lo)
    })
}

/// Datef: BCD `yy yy mm dd`; no date = `00 00 00 00`.
pub fn datef(date: Option<NaiveDate>) -> [u8; 4] {
    use chrono::Datelike;
    match date {
        Some(d) if (0..=9999).contains(&d.year()) => {
            let year = bcd4(d.year() as u32);
            let month_day = bcd4(d.month() * 100 + d.day());
            [year[0], year[1], month_day[0], month_day[1]]
        }
        _ => [0; 4],
    }
}

/// Decodes a Datef: `Ok(None)` for `00000000`, `Err` for invalid BCD or an impossible date.
pub fn decode_datef(bytes: &[u8]) -> Result<Option<NaiveDate>, String> {
    if bytes.iter().all(|&b| b == 0) {
        return Ok(None);
    }
    let invalid = || format!("invalid Datef {}", hex(bytes));
    let year = decode_bcd(&bytes[0..2]).ok_or_else(invalid)?;
    let month = decode_bcd(&bytes[2..3]).ok_or_else(invalid)?;
    let day = decode_bcd(&bytes[3..4]).ok_or_else(invalid)?;
    NaiveDate::from_ymd_opt(year as i32, month, day)
        .map(Some)
        .ok_or_else(invalid)
}

pub fn get_u16(bytes: &[u8], offset: usize) -> u16 {
    u16::from_be_bytes([bytes[offset], bytes[offset + 1]])
}

pub fn get_u24(bytes: &[u8], offset: usize) -> u32 {
    u32::from_be_bytes([0, bytes[offset], bytes[offset + 1], bytes[offset + 2]])
}

pub fn get_u32(bytes: &[u8], offset: usize) -> u32 {
    u32::from_be_bytes([bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]])
}

/// Upper-case hex without separators.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// RFC 3339 UTC text of a TimeReal; `None` for 0 (the "no time" default of empty records).
pub fn format_time_real(value: u32) -> Option<String> {
    (value != 0).then(|| format_unix(i64::from(value)))
}

pub fn format_unix(unix_seconds: i64) -> String {
    DateTime::from_timestamp(unix_seconds, 0)
        .map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| unix_seconds.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn time_real_is_big_endian_utc_seconds() {
        // 2024-01-01 00:00:00 UTC: 54 years from 1970 with 13 leap days (72, 76, …, 2020) =
        // 54 × 365 + 13 = 19 723 days × 86 400 = 1 704 067 200 s = 0x6592_0080.
        assert_eq!(day_start(date(2024, 1, 1)), 1_704_067_200);
        assert_eq!(day_number(date(2024, 1, 1)), 19_723);
        let mut out = Vec::new();
        put_time_real(&mut out, 1_704_067_200);
        assert_eq!(out, [0x65, 0x92, 0x00, 0x80]);
        assert_eq!(time_real(-5), 0);
        assert_eq!(time_real(1 << 40), u32::MAX);
        assert_eq!(date_of_day(19_723), Some(date(2024, 1, 1)));
    }

    #[test]
    fn bcd_counters() {
        // 46 → digits 0 0 4 6 → 00 46; 1234 → 12 34; 10 000 wraps to 0000 (DailyPresenceCounter).
        assert_eq!(bcd4(46), [0x00, 0x46]);
        assert_eq!(bcd4(1234), [0x12, 0x34]);
        assert_eq!(bcd4(9999), [0x99, 0x99]);
        assert_eq!(bcd4(10_000), [0x00, 0x00]);
        assert_eq!(decode_bcd(&[0x12, 0x34]), Some(1234));
        assert_eq!(decode_bcd(&[0x1A, 0x00]), None);
    }

    #[test]
    fn datef_is_bcd_year_month_day() {
        // The spec's own example: 1969-04-27 → 19 69 04 27.
        assert_eq!(datef(Some(date(1969, 4, 27))), [0x19, 0x69, 0x04, 0x27]);
        assert_eq!(datef(None), [0, 0, 0, 0]);
        assert_eq!(decode_datef(&[0x19, 0x69, 0x04, 0x27]), Ok(Some(date(1969, 4, 27))));
        assert_eq!(decode_datef(&[0, 0, 0, 0]), Ok(None));
        assert!(decode_datef(&[0x19, 0x69, 0x13, 0x01]).is_err());
        assert!(decode_datef(&[0x19, 0x6A, 0x01, 0x01]).is_err());
    }

    #[test]
    fn odometer_is_three_bytes_clamped() {
        // 123 456 km = 0x01_E2_40; above 9 999 999 is clamped to 9 999 999 = 0x98_96_7F.
        let mut out = Vec::new();
        put_odometer(&mut out, Some(123_456));
        put_odometer(&mut out, Some(20_000_000));
        put_odometer(&mut out, None);
        assert_eq!(out, [0x01, 0xE2, 0x40, 0x98, 0x96, 0x7F, 0, 0, 0]);
        assert_eq!(get_u24(&out, 0), 123_456);
    }

    #[test]
    fn time_formatting() {
        assert_eq!(format_time_real(0), None);
        assert_eq!(format_time_real(1_704_067_200).as_deref(), Some("2024-01-01T00:00:00Z"));
    }
}
