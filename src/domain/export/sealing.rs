//! The signing keys at rest: when the operator configures a key-encryption key
//! (`ROADLOG_KEY_ENCRYPTION_KEY`, 32 random bytes in base64), every private key is stored
//! encrypted with XChaCha20-Poly1305, bound to what it is (root, CA, or one employee's card key)
//! so that rows cannot be swapped; a database dump alone then signs nothing. Keys stored before
//! the key was configured are encrypted at the next start.

use base64::Engine;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};

use crate::errors::AppError;

/// The first bytes of a sealed key.
const MAGIC: &[u8] = b"RLK1";
const NONCE: usize = 24;

/// Seals and opens stored keys (a no-op without a configured key).
#[derive(Clone)]
pub struct Sealer(Option<XChaCha20Poly1305>);

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Sealer(key configured)"
        } else {
            "Sealer(none)"
        })
    }
}

impl Sealer {
    /// No key-encryption key: keys are stored as they are.
    pub fn none() -> Sealer {
        Sealer(None)
    }

    /// The key from its base64 form (32 bytes).
    pub fn from_base64(text: &str) -> anyhow::Result<Sealer> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .map_err(|_| anyhow::anyhow!("the key-encryption key must be base64"))?;
        anyhow::ensure!(
            bytes.len() == 32,
            "the key-encryption key must be 32 bytes (base64 of 32 random bytes, e.g. `openssl rand -base64 32`), not {}",
            bytes.len()
        );
        Ok(Sealer(Some(
            XChaCha20Poly1305::new_from_slice(&bytes).expect("32 bytes is the key size"),
        )))
    }

    pub fn is_configured(&self) -> bool {
        self.0.is_some()
    }

    /// Whether stored bytes are sealed.
    pub fn is_sealed(stored: &[u8]) -> bool {
        stored.starts_with(MAGIC)
    }

    /// The stored form of a key; `what` names it (`root`, `ca`, `card:42`).
    pub fn seal(&self, what: &str, plain: Vec<u8>) -> Result<Vec<u8>, AppError> {
        let Some(cipher) = &self.0 else {
            return Ok(plain);
        };
        let mut nonce = [0u8; NONCE];
        getrandom::fill(&mut nonce).map_err(AppError::internal)?;
        let sealed = cipher
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: &plain,
                    aad: what.as_bytes(),
                },
            )
            .map_err(|_| AppError::internal("key sealing failed"))?;
        Ok([MAGIC, &nonce, &sealed].concat())
    }

    /// The key from its stored form.
    pub fn open(&self, what: &str, stored: &[u8]) -> Result<Vec<u8>, AppError> {
        if !Self::is_sealed(stored) {
            return Ok(stored.to_vec());
        }
        let Some(cipher) = &self.0 else {
            return Err(AppError::internal(
                "the signing keys are encrypted: configure ROADLOG_KEY_ENCRYPTION_KEY",
            ));
        };
        let rest = &stored[MAGIC.len()..];
        if rest.len() < NONCE {
            return Err(AppError::internal("a sealed signing key is truncated"));
        }
        let (nonce, sealed) = rest.split_at(NONCE);
        cipher
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: what.as_bytes(),
                },
            )
            .map_err(|_| AppError::internal("a signing key does not open with the configured key-encryption key"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> Sealer {
        Sealer::from_base64(&base64::engine::general_purpose::STANDARD.encode([7u8; 32])).unwrap()
    }

    #[test]
    fn sealed_keys_open_only_with_the_key_and_for_what_they_are() {
        let sealer = key();
        let sealed = sealer.seal("card:42", b"private key bytes".to_vec()).unwrap();
        assert!(Sealer::is_sealed(&sealed));
        assert!(!sealed.windows(7).any(|w| w == b"private"), "not in clear");
        assert_eq!(sealer.open("card:42", &sealed).unwrap(), b"private key bytes");
        assert!(sealer.open("card:43", &sealed).is_err(), "bound to its row");
        assert!(Sealer::none().open("card:42", &sealed).is_err(), "needs the key");
        let other = Sealer::from_base64(&base64::engine::general_purpose::STANDARD.encode([8u8; 32])).unwrap();
        assert!(other.open("card:42", &sealed).is_err());
    }

    #[test]
    fn without_a_key_keys_stay_as_they_are() {
        assert_eq!(Sealer::none().seal("root", vec![1, 2]).unwrap(), vec![1, 2]);
        assert_eq!(
            key().open("root", &[1, 2]).unwrap(),
            vec![1, 2],
            "legacy plain keys still read"
        );
        assert!(Sealer::from_base64("c2hvcnQ=").is_err());
    }
}
