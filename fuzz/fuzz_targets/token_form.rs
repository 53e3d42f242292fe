//! The token endpoint's form and Basic header, whatever their bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|input: (&[u8], Option<&str>)| {
    let (body, authorization) = input;
    let _ = roadlog::oauth::token_endpoint::parse_form("application/x-www-form-urlencoded", body, authorization);
});
