//! TLV framing of a card download (Appendix 7 DDP_040–046): `FID(2) ‖ appendix(1) ‖ length(2) ‖ value`.
//!
//! Why it matters: the file has no header, trailer or padding, so a single wrong length shifts every following
//! EF; a signature must be the TLV right after its data; `FF FF` is reserved as a length.

use super::primitives::get_u16;
use super::report::Violation;

/// Appendix byte of EF data in DF Tachograph (and of EF_ICC / EF_IC).
pub const APPENDIX_DATA: u8 = 0x00;
/// Appendix byte of the gen-1 signature of an EF.
pub const APPENDIX_SIGNATURE: u8 = 0x01;

/// Appends one TLV. Panics if the value is longer than 65 534 bytes (no gen-1 EF is).
pub fn put(out: &mut Vec<u8>, fid: u16, appendix: u8, value: &[u8]) {
    let len = u16::try_from(value.len())
        .ok()
        .filter(|&l| l != 0xFFFF)
        .expect("TLV value longer than 65 534 bytes");
    out.extend_from_slice(&fid.to_be_bytes());
    out.push(appendix);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(value);
}

/// One parsed TLV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tlv<'a> {
    pub fid: u16,
    pub appendix: u8,
    /// Offset of the TLV header in the file.
    pub offset: usize,
    pub value: &'a [u8],
}

/// Splits a file into TLVs; only the framing is checked here.
pub fn parse(bytes: &[u8]) -> Result<Vec<Tlv<'_>>, Violation> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes.len() - pos < 5 {
            return Err(Violation::file(format!(
                "truncated TLV header at offset {pos}: {} bytes left, 5 needed",
                bytes.len() - pos
            )));
        }
        let fid = get_u16(bytes, pos);
        let appendix = bytes[pos + 2];
        let len = get_u16(bytes, pos + 3);
        if len == 0xFFFF {
            return Err(Violation::file(format!(
                "TLV {fid:04X} at offset {pos} has the reserved length FFFF"
            )));
        }
        let start = pos + 5;
        let end = start + usize::from(len);
        if end > bytes.len() {
            return Err(Violation::file(format!(
                "TLV {fid:04X}/{appendix:02X} at offset {pos} announces {len} bytes but only {} remain",
                bytes.len() - start
            )));
        }
        out.push(Tlv {
            fid,
            appendix,
            offset: pos,
            value: &bytes[start..end],
        });
        pos = end;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_fid_appendix_length() {
        // The spec's example: 05 05 01 | 00 80 | signature (128 bytes) of EF Vehicles_Used.
        let mut out = Vec::new();
        put(&mut out, 0x0505, APPENDIX_SIGNATURE, &[0xAB; 128]);
        assert_eq!(&out[..5], &[0x05, 0x05, 0x01, 0x00, 0x80]);
        assert_eq!(out.len(), 133);
        let tlvs = parse(&out).unwrap();
        assert_eq!(tlvs.len(), 1);
        assert_eq!((tlvs[0].fid, tlvs[0].appendix, tlvs[0].value.len()), (0x0505, 1, 128));
    }

    #[test]
    fn framing_errors_are_violations() {
        assert!(parse(&[0x00, 0x02, 0x00, 0x00]).is_err()); // 4-byte header
        assert!(parse(&[0x00, 0x02, 0x00, 0x00, 0x03, 0xAA]).is_err()); // value cut short
        assert!(parse(&[0x00, 0x02, 0x00, 0xFF, 0xFF]).is_err()); // reserved length
        assert_eq!(parse(&[]).unwrap().len(), 0);
    }
}
