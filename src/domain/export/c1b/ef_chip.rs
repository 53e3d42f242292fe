//! EF_ICC `0002` (CardIccIdentification) and EF_IC `0005` (CardChipIdentification), the two MF files.
//!
//! Why we write them although DDP_035 makes them optional: a widespread reader recognises a card file only by its
//! first bytes `00 02` (EF_ICC, appendix 00), and a real card's EF_ICC carries the card's ExtendedSerialNumber,
//! which equals the CHR of its card certificate. With no chip there is nothing else to say: the other fields
//! keep their default values.

/// EF_ICC (25 bytes): clockStop `00` ‖ cardExtendedSerialNumber(8) ‖ cardApprovalNumber(8 spaces) ‖
/// cardPersonaliserID `00` ‖ embedderIcAssemblerId(5 × `00`) ‖ icIdentifier `00 00`.
pub fn icc(extended_serial_number: [u8; 8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(25);
    out.push(0x00);
    out.extend_from_slice(&extended_serial_number);
    out.extend_from_slice(&[b' '; 8]);
    out.push(0x00);
    out.extend_from_slice(&[0x00; 5]);
    out.extend_from_slice(&[0x00; 2]);
    out
}

/// EF_IC (8 bytes): icSerialNumber(4) ‖ icManufacturingReferences(4), no chip → zeros.
pub fn ic() -> Vec<u8> {
    vec![0; 8]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icc_by_hand() {
        // 00 | 12 34 56 78 03 26 FF 00 | 20×8 | 00 | 00×5 | 00 00 = 1 + 8 + 8 + 1 + 5 + 2 = 25 bytes.
        let v = icc([0x12, 0x34, 0x56, 0x78, 0x03, 0x26, 0xFF, 0x00]);
        let mut expected = vec![0x00, 0x12, 0x34, 0x56, 0x78, 0x03, 0x26, 0xFF, 0x00];
        expected.extend_from_slice(&[0x20; 8]);
        expected.extend_from_slice(&[0x00; 8]);
        assert_eq!(v, expected);
        assert_eq!(ic(), vec![0; 8]);
    }
}
