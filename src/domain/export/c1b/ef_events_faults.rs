//! EF_Events_Data `0502` (CardEventData) and EF_Faults_Data `0503` (CardFaultData).
//!
//! Why empty: the data comes from declared activities, not from a vehicle unit, so no event (time overlap,
//! card insertion while driving, …) or fault was ever detected. Both EFs still exist at the size announced in
//! EF_Application_Identification, filled with empty records exactly as a real card holds them:
//! `00` type ‖ `00000000` begin ‖ `00000000` end ‖ nation `00` ‖ code page `00` ‖ 13 spaces.

use super::layout::{CARD_EVENT_RECORD_LEN, CardParameters};

/// One empty CardEventRecord / CardFaultRecord: 11 × `00` ‖ 13 × `20`.
pub const EMPTY_RECORD: [u8; CARD_EVENT_RECORD_LEN] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ', b' ',
];

/// 6 event types × n1 empty records.
pub fn events_data(p: &CardParameters) -> Vec<u8> {
    EMPTY_RECORD.repeat(6 * p.events_per_type)
}

/// 2 fault groups × n2 empty records.
pub fn faults_data(p: &CardParameters) -> Vec<u8> {
    EMPTY_RECORD.repeat(2 * p.faults_per_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_records_by_hand() {
        // 6 × 12 × 24 = 1 728 and 2 × 24 × 24 = 1 152 bytes; every 24-byte record = 11 × 00 then 13 × 20.
        let events = events_data(&CardParameters::MAX);
        let faults = faults_data(&CardParameters::MAX);
        assert_eq!((events.len(), faults.len()), (1728, 1152));
        for record in events.chunks(24).chain(faults.chunks(24)) {
            assert!(record[..11].iter().all(|&b| b == 0x00));
            assert!(record[11..].iter().all(|&b| b == 0x20));
        }
    }
}
