//! `roadlog c1b inspect` on any file: a report or a violation, never a crash.
#![no_main]

libfuzzer_sys::fuzz_target!(|file: &[u8]| {
    let _ = roadlog::domain::export::c1b::inspect(file, None);
});
