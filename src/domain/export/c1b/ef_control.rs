//! EF_Control_Activity_Data `0508` (CardControlActivityDataRecord) and EF_Specific_Conditions `0522`.
//!
//! Why empty: no control officer ever checked this "card", and we record no specific condition. In particular we
//! do not write "out of scope" begin/end records (as the reference service does): that would be a statement
//! about the regulation's scope that the activity data does not support, and analysis software would stop
//! checking driving times. Both EFs keep a real card's empty values.

use super::layout::{SPECIFIC_CONDITION_RECORD_LEN, SPECIFIC_CONDITION_RECORDS};

/// Empty CardControlActivityDataRecord (46): controlType `00` ‖ controlTime `00000000` ‖ FullCardNumber (type
/// `00`, nation `00`, 16 spaces) ‖ vehicle (nation `00`, code page `00`, 13 spaces) ‖ period begin/end
/// `00000000` × 2.
pub fn control_activity_data() -> Vec<u8> {
    let mut out = vec![0u8; 7];
    out.extend_from_slice(&[b' '; 16]);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&[b' '; 13]);
    out.extend_from_slice(&[0u8; 8]);
    out
}

/// 56 empty SpecificConditionRecords (no pointer in gen 1).
pub fn specific_conditions() -> Vec<u8> {
    vec![0u8; SPECIFIC_CONDITION_RECORDS * SPECIFIC_CONDITION_RECORD_LEN]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        // §2.15: 00×7 ‖ 20×16 ‖ 00 00 ‖ 20×13 ‖ 00×8 = 46 bytes.
        let v = control_activity_data();
        assert_eq!(v.len(), 46);
        assert!(v[..7].iter().all(|&b| b == 0));
        assert!(v[7..23].iter().all(|&b| b == 0x20));
        assert_eq!(&v[23..25], &[0, 0]);
        assert!(v[25..38].iter().all(|&b| b == 0x20));
        assert!(v[38..].iter().all(|&b| b == 0));
        assert_eq!(specific_conditions(), vec![0u8; 280]);
    }
}
