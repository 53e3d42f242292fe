//! EF_Card_Download `050E` (LastCardDownload) and EF_Current_Usage `0507` (CardCurrentUse): the download
//! session itself.
//!
//! Why these values: DDP_035 has the downloader update EF_Card_Download with the download time, so it holds
//! `generated_at`. EF_Current_Usage is "set to zero at card removal", but one strict reader (tachop) rejects a zero
//! TimeReal there; a card being downloaded *is* inserted in the downloading equipment, and its session opened at
//! the download, so sessionOpenTime = `generated_at` is a true, valid non-zero value. No vehicle is involved:
//! sessionOpenVehicle keeps the empty VehicleRegistrationIdentification (`00 00` + 13 spaces).

use super::primitives::put_time_real;

/// EF_Card_Download (4 bytes): TimeReal of the download.
pub fn card_download(generated_at: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    put_time_real(&mut out, generated_at);
    out
}

/// EF_Current_Usage (19 bytes): sessionOpenTime ‖ sessionOpenVehicle.
pub fn current_usage(generated_at: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(19);
    put_time_real(&mut out, generated_at);
    out.extend_from_slice(&[0x00, 0x00]);
    out.extend_from_slice(&[b' '; 13]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        // 2024-01-31 17:45 UTC = 1 704 067 200 + 30 × 86 400 + 17 × 3 600 + 45 × 60 = 1 706 723 100 = 0x65BA_871C
        // (0x65BA × 65 536 = 1 706 688 512; remainder 34 588 = 0x871C).
        assert_eq!(card_download(1_706_723_100), vec![0x65, 0xBA, 0x87, 0x1C]);
        let mut expected = vec![0x65, 0xBA, 0x87, 0x1C, 0x00, 0x00];
        expected.extend_from_slice(&[0x20; 13]);
        assert_eq!(current_usage(1_706_723_100), expected);
    }
}
