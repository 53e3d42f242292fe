//! The export request body, whatever its bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|body: &[u8]| {
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 25).expect("a date");
    let _ = roadlog::http::export::parse_body(body, today);
});
