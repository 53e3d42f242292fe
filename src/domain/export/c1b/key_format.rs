//! Storage format of our private keys, so that the service can keep each in a `bytea` column: `"C1BK"` ‖ version
//! `01` ‖ kind (`01` root, `02` CA, `03` card) ‖ KID(8) ‖ [CA only: its 194-byte certificate] ‖ PKCS#1 DER
//! RSAPrivateKey.
//!
//! Why a header of our own: the kind and KID travel with the key, so a row holding the wrong kind of key, or a
//! key of the wrong size for generation 1 (RSA-1024, exponent of at most 8 bytes), is refused when it is read
//! rather than producing files no verifier accepts.

use rsa::RsaPrivateKey;
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::traits::PublicKeyParts;

use super::layout::CERTIFICATE_LEN;

/// An 8-byte KeyIdentifier (KID, CAR, CHR).
pub type KeyId = [u8; 8];

const MAGIC: &[u8; 4] = b"C1BK";
const FORMAT_VERSION: u8 = 0x01;
pub const KIND_ROOT: u8 = 0x01;
pub const KIND_CA: u8 = 0x02;
pub const KIND_CARD: u8 = 0x03;
/// Size of every gen-1 RSA modulus.
pub const MODULUS_BITS: usize = 1024;

/// Why stored key bytes were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError(pub String);

impl std::fmt::Display for KeyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid stored C1B key: {}", self.0)
    }
}

impl std::error::Error for KeyError {}

/// The stored form of a key of `kind` (with its certificate for a CA key).
pub fn to_bytes(kind: u8, kid: &KeyId, certificate: Option<&[u8; CERTIFICATE_LEN]>, key: &RsaPrivateKey) -> Vec<u8> {
    let der = key.to_pkcs1_der().expect("PKCS#1 encoding of an RSA key");
    let mut out = Vec::with_capacity(14 + CERTIFICATE_LEN + der.as_bytes().len());
    out.extend_from_slice(MAGIC);
    out.push(FORMAT_VERSION);
    out.push(kind);
    out.extend_from_slice(kid);
    if let Some(cert) = certificate {
        out.extend_from_slice(cert);
    }
    out.extend_from_slice(der.as_bytes());
    out
}

/// Splits stored bytes into (KID, certificate if `with_certificate`, key), checking header and key size.
pub fn from_bytes(
    bytes: &[u8],
    kind: u8,
    with_certificate: bool,
) -> Result<(KeyId, Option<[u8; CERTIFICATE_LEN]>, RsaPrivateKey), KeyError> {
    let header = 4 + 1 + 1 + 8;
    if bytes.len() < header || &bytes[..4] != MAGIC {
        return Err(KeyError("not a C1B key (bad magic)".into()));
    }
    if bytes[4] != FORMAT_VERSION {
        return Err(KeyError(format!("unknown format version {}", bytes[4])));
    }
    if bytes[5] != kind {
        return Err(KeyError(format!("key kind {} where {kind} was expected", bytes[5])));
    }
    let kid: KeyId = bytes[6..14].try_into().expect("8 bytes");
    let mut rest = &bytes[header..];
    let certificate = if with_certificate {
        let cert: [u8; CERTIFICATE_LEN] = rest
            .get(..CERTIFICATE_LEN)
            .and_then(|c| c.try_into().ok())
            .ok_or_else(|| KeyError("truncated".into()))?;
        rest = &rest[CERTIFICATE_LEN..];
        Some(cert)
    } else {
        None
    };
    let key = RsaPrivateKey::from_pkcs1_der(rest).map_err(|e| KeyError(format!("PKCS#1: {e}")))?;
    if key.n().bits() != MODULUS_BITS {
        return Err(KeyError(format!(
            "modulus is {} bits, gen-1 keys are 1024",
            key.n().bits()
        )));
    }
    if key.e().bits() > 64 {
        return Err(KeyError("public exponent longer than 8 bytes".into()));
    }
    Ok((kid, certificate, key))
}

#[cfg(test)]
mod tests {
    use super::super::keys::{CaKey, CardKey, RootKey};
    use super::super::testkit;

    #[test]
    fn private_keys_round_trip_through_bytes() {
        let keys = testkit::keys();
        let root = RootKey::from_bytes(&keys.root.to_bytes()).unwrap();
        assert_eq!(
            (root.key_id(), root.public_key()),
            (keys.root.key_id(), keys.root.public_key())
        );
        let ca_bytes = keys.ca.to_bytes();
        assert_eq!(&ca_bytes[..6], b"C1BK\x01\x02");
        let ca = CaKey::from_bytes(&ca_bytes).unwrap();
        assert_eq!(ca.certificate(), keys.ca.certificate());
        assert_eq!(ca.key_id(), keys.ca.key_id());
        let card = CardKey::from_bytes(&keys.card.to_bytes()).unwrap();
        assert_eq!(
            (card.key_id(), card.public_key()),
            (keys.card.key_id(), keys.card.public_key())
        );
        // A restored key signs like the original (PKCS#1 v1.5 is deterministic).
        let data = b"0501 value";
        assert_eq!(
            super::super::signature::sign(card.rsa(), data),
            super::super::signature::sign(keys.card.rsa(), data)
        );
        // Wrong kind, bad magic, truncation.
        assert!(CardKey::from_bytes(&keys.root.to_bytes()).is_err());
        assert!(RootKey::from_bytes(b"nope").is_err());
        assert!(CaKey::from_bytes(&ca_bytes[..100]).is_err());
    }
}
