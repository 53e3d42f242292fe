//! EF_Card_Download `050E` (LastCardDownload) and EF_Current_Usage `0507` (CardCurrentUse): the download
//! session itself.
//!
//! Why these values: DDP_035 has the downloader update EF_Card_Download with the download time, so it holds
//! `generated_at`. EF_Current_Usage tells in which vehicle the card is inserted now; the format sets it to zero
//! at card removal, and every use the file records is closed (the last vehicle record ends, the activity data
//! ends with a withdrawal), so it holds 19 zero bytes: no open session. Naming the last vehicle here would claim
//! the card still inserted in a vehicle whose use the file shows ended. One strict reader (tachop) rejects a zero
//! sessionOpenTime although the format mandates it; `docs/src/reference/c1b.md` lists this among the known reader
//! behaviours.

use super::primitives::put_time_real;

/// EF_Card_Download (4 bytes): TimeReal of the download.
pub fn card_download(generated_at: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(4);
    put_time_real(&mut out, generated_at);
    out
}

/// EF_Current_Usage (19 bytes): sessionOpenTime ‖ sessionOpenVehicle, all zero (card removed).
pub fn current_usage() -> Vec<u8> {
    vec![0; 19]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        // 2024-01-31 17:45 UTC = 1 704 067 200 + 30 × 86 400 + 17 × 3 600 + 45 × 60 = 1 706 723 100 = 0x65BA_871C
        // (0x65BA × 65 536 = 1 706 688 512; remainder 34 588 = 0x871C).
        assert_eq!(card_download(1_706_723_100), vec![0x65, 0xBA, 0x87, 0x1C]);
        assert_eq!(current_usage(), vec![0; 19]);
    }
}
