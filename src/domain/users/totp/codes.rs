//! The codes of the second factor, without storage: TOTP as RFC 6238 defines it and every
//! authenticator application implements it (HMAC-SHA-1, 6 digits, 30-second steps, through the
//! `totp-rs` crate), the previous and next step accepted for clock drift, compared in constant
//! time; and the recovery codes, random, shown once and stored as their SHA-256 hash.

use subtle::ConstantTimeEq;
use totp_rs::{Algorithm, TOTP};

use crate::domain::auth::tokens;
use crate::errors::{AppError, AppResult};

/// Seconds of one step.
pub const STEP_SECONDS: i64 = 30;

/// Bytes of a secret: 160 bits, 32 base32 characters, as the authenticator applications expect.
pub const SECRET_BYTES: usize = 20;

/// Recovery codes given at each setup.
pub const RECOVERY_CODES: usize = 10;

/// The longest code read: longer input is refused before any work.
pub const MAX_CODE_CHARS: usize = 64;

/// The issuer shown by authenticator applications.
const ISSUER: &str = "Roadlog";

/// The alphabet of recovery codes: RFC 4648 base32 in lower case (read back case-insensitively).
const RECOVERY_ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";

/// A new random secret.
pub fn new_secret() -> AppResult<Vec<u8>> {
    let mut secret = vec![0u8; SECRET_BYTES];
    getrandom::fill(&mut secret).map_err(AppError::internal)?;
    Ok(secret)
}

fn totp(secret: &[u8]) -> AppResult<TOTP> {
    TOTP::new(Algorithm::SHA1, 6, 1, STEP_SECONDS as u64, secret.to_vec())
        .map_err(|e| AppError::internal(format!("a stored TOTP secret is unusable: {e}")))
}

/// The secret as authenticator applications take it when typed by hand.
pub fn base32(secret: &[u8]) -> AppResult<String> {
    Ok(totp(secret)?.get_secret_base32())
}

/// The secret from its base32 form (as an authenticator application reads it when typed).
pub fn secret_from_base32(text: &str) -> Option<Vec<u8>> {
    totp_rs::Secret::Encoded(text.trim().to_uppercase()).to_bytes().ok()
}

/// The `otpauth://` URI of the key (what a QR code carries), labelled with the account's e-mail.
pub fn provisioning_uri(secret: &[u8], email: &str) -> AppResult<String> {
    let encode = |text: &str| -> String { url::form_urlencoded::byte_serialize(text.as_bytes()).collect() };
    Ok(format!(
        "otpauth://totp/{ISSUER}:{}?secret={}&issuer={ISSUER}&algorithm=SHA1&digits=6&period={STEP_SECONDS}",
        encode(email).replace('+', "%20"),
        base32(secret)?
    ))
}

/// The code of a step (for tests and for the clients of the tests).
pub fn code_at(secret: &[u8], unix_seconds: i64) -> AppResult<String> {
    Ok(totp(secret)?.generate(unix_seconds.max(0) as u64))
}

/// What the user typed, without spaces (authenticators show `123 456`) and dashes.
pub fn normalize(code: &str) -> String {
    code.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The step whose code `code` is, among the previous, current and next steps of `now` and after
/// `after` (a step already used is refused: a code works once). Every candidate is computed and
/// compared in constant time, so the time taken says nothing of which one matched.
pub fn matching_step(secret: &[u8], code: &str, now: i64, after: Option<i64>) -> AppResult<Option<i64>> {
    let totp = totp(secret)?;
    let current = now / STEP_SECONDS;
    let mut found = None;
    for step in [current - 1, current, current + 1] {
        let expected = totp.generate((step.max(0) * STEP_SECONDS) as u64);
        let same: bool = expected.as_bytes().ct_eq(code.as_bytes()).into();
        if same && after.is_none_or(|used| step > used) && found.is_none() {
            found = Some(step);
        }
    }
    Ok(found)
}

/// New recovery codes, as shown to the user (`xxxx-xxxx-xxxx-xxxx`, 80 random bits each).
pub fn new_recovery_codes() -> AppResult<Vec<String>> {
    (0..RECOVERY_CODES)
        .map(|_| {
            let mut bytes = [0u8; 16];
            getrandom::fill(&mut bytes).map_err(AppError::internal)?;
            let chars: Vec<char> = bytes
                .iter()
                .map(|b| RECOVERY_ALPHABET[usize::from(b % 32)] as char)
                .collect();
            Ok(chars
                .chunks(4)
                .map(|c| c.iter().collect::<String>())
                .collect::<Vec<_>>()
                .join("-"))
        })
        .collect()
}

/// The stored form of a recovery code, from what the user typed.
pub fn recovery_hash(code: &str) -> String {
    tokens::hash(&normalize(code))
}

/// Whether a normalised code has the shape of a TOTP code (else it may be a recovery code).
pub fn looks_like_totp(normalized: &str) -> bool {
    normalized.len() == 6 && normalized.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238, appendix B: the SHA-1 seed and its code at 59 s (last 6 of 94287082).
    #[test]
    fn codes_are_rfc_6238() {
        let seed = b"12345678901234567890";
        assert_eq!(code_at(seed, 59).unwrap(), "287082");
        assert_eq!(code_at(seed, 1_111_111_109).unwrap(), "081804");
        assert_eq!(matching_step(seed, "287082", 59, None).unwrap(), Some(1));
        assert_eq!(
            matching_step(seed, "287082", 59 + 30, None).unwrap(),
            Some(1),
            "the previous step"
        );
        assert_eq!(
            matching_step(seed, "287082", 59 + 60, None).unwrap(),
            None,
            "two steps late"
        );
        assert_eq!(
            matching_step(seed, "287082", 59, Some(1)).unwrap(),
            None,
            "used once already"
        );
        assert_eq!(matching_step(seed, "287083", 59, None).unwrap(), None);
    }

    #[test]
    fn the_uri_is_what_authenticators_read() {
        let secret = new_secret().unwrap();
        assert_eq!(secret_from_base32(&base32(&secret).unwrap()).unwrap(), secret);
        let uri = provisioning_uri(&[0u8; 20], "jeanne+1@example.com").unwrap();
        assert_eq!(
            uri,
            "otpauth://totp/Roadlog:jeanne%2B1%40example.com?secret=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&issuer=Roadlog&algorithm=SHA1&digits=6&period=30"
        );
    }

    #[test]
    fn recovery_codes_are_random_and_typed_loosely() {
        let codes = new_recovery_codes().unwrap();
        assert_eq!(codes.len(), RECOVERY_CODES);
        assert_eq!(codes[0].len(), 19);
        assert_ne!(codes[0], codes[1]);
        assert_eq!(
            recovery_hash(&codes[0]),
            recovery_hash(&codes[0].to_uppercase().replace('-', " "))
        );
        assert!(!looks_like_totp(&normalize(&codes[0])));
        assert!(looks_like_totp(&normalize("123 456")));
    }
}
