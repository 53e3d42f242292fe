//! A GraphQL POST body, whatever its bytes: parsed, batched and guarded without a crash, a
//! stack overflow or a hang (the guard's linear scan runs before the recursive parser).
#![no_main]

libfuzzer_sys::fuzz_target!(|body: &[u8]| {
    let _ = roadlog::http::graphql::preflight(body);
    // The same bytes as a document of its own (what a GET's `query` parameter carries).
    if let Ok(text) = std::str::from_utf8(body) {
        let wrapped = serde_json::json!({ "query": text }).to_string();
        let _ = roadlog::http::graphql::preflight(wrapped.as_bytes());
    }
});
