//! Gen-1 data signatures (Appendix 11 CSM_033–035): RSASSA-PKCS1-v1_5 with SHA-1 over an EF value, 128 bytes,
//! and the raw RSA-1024 operations it and the certificates are built on.
//!
//! Why written out here rather than through a padding API: the certificate scheme (ISO/IEC 9796-2) needs the raw
//! private operation anyway, and writing the PKCS#1 block by hand makes the exact bytes of CSM_034 visible and
//! testable. Private operations are blinded and checked (the `rsa` crate's `rsa_decrypt_and_check`), which
//! guards against timing attacks and faulty CRT results.

use rand::rngs::OsRng;
use rsa::BigUint;
use rsa::RsaPrivateKey;
use rsa::hazmat::rsa_decrypt_and_check;
use rsa::traits::PublicKeyParts;
use sha1::{Digest, Sha1};

/// RSA-1024 block and signature length.
pub const BLOCK_LEN: usize = 128;

/// DER prefix of a SHA-1 DigestInfo (CSM_034).
pub const SHA1_DIGEST_INFO: [u8; 15] = [
    0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00, 0x04, 0x14,
];

/// A gen-1 RSA public key as stored in certificates and EC_PK.bin: 128-byte modulus, 8-byte exponent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    pub modulus: [u8; 128],
    pub exponent: [u8; 8],
}

impl PublicKey {
    pub fn of(key: &RsaPrivateKey) -> PublicKey {
        PublicKey {
            modulus: left_pad(&key.n().to_bytes_be()),
            exponent: left_pad(&key.e().to_bytes_be()),
        }
    }

    /// Raw public operation `x^e mod n`, left-padded to 128 bytes; `None` when `x ≥ n` or the key is unusable.
    pub fn raw(&self, x: &[u8]) -> Option<[u8; BLOCK_LEN]> {
        let n = BigUint::from_bytes_be(&self.modulus);
        let e = BigUint::from_bytes_be(&self.exponent);
        let x = BigUint::from_bytes_be(x);
        if n.bits() < 1000 || e < BigUint::from(3u8) || x >= n {
            return None;
        }
        Some(left_pad(&x.modpow(&e, &n).to_bytes_be()))
    }
}

/// Big-endian integer bytes left-padded with zeros (the leading `00` of a block disappears in a big integer).
pub fn left_pad<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let bytes = &bytes[bytes.len().saturating_sub(N)..];
    out[N - bytes.len()..].copy_from_slice(bytes);
    out
}

/// Raw private operation `block^d mod n` (blinded, checked). `block` must be below the modulus, which holds for
/// every block we build (they start with `00` or `6A` and our moduli are exactly 1024 bits).
pub fn raw_private(key: &RsaPrivateKey, block: &[u8; BLOCK_LEN]) -> [u8; BLOCK_LEN] {
    let m = BigUint::from_bytes_be(block);
    let s = rsa_decrypt_and_check(key, Some(&mut OsRng), &m).expect("block below a 1024-bit modulus");
    left_pad(&s.to_bytes_be())
}

/// The encoded message of CSM_034: `00 01 ‖ FF × 90 ‖ 00 ‖ DigestInfo(15) ‖ SHA-1(data)(20)`.
pub fn pkcs1_sha1_block(data: &[u8]) -> [u8; BLOCK_LEN] {
    let mut block = [0xFFu8; BLOCK_LEN];
    block[0] = 0x00;
    block[1] = 0x01;
    block[92] = 0x00;
    block[93..108].copy_from_slice(&SHA1_DIGEST_INFO);
    block[108..].copy_from_slice(&Sha1::digest(data));
    block
}

/// Signature of an EF value (the value only, not the TLV header).
pub fn sign(key: &RsaPrivateKey, data: &[u8]) -> [u8; BLOCK_LEN] {
    raw_private(key, &pkcs1_sha1_block(data))
}

/// Checks a signature of an EF value.
pub fn verify(key: &PublicKey, data: &[u8], signature: &[u8]) -> bool {
    signature.len() == BLOCK_LEN && key.raw(signature).is_some_and(|block| block == pkcs1_sha1_block(data))
}

#[cfg(test)]
mod tests {
    use super::super::testkit;
    use super::*;

    #[test]
    fn block_layout_by_hand() {
        // 2 + 90 + 1 + 15 + 20 = 128. SHA-1("abc") = A9993E36 4706816A BA3E2571 7850C26C 9CD0D89D (FIPS 180 test).
        let block = pkcs1_sha1_block(b"abc");
        assert_eq!(&block[..2], &[0x00, 0x01]);
        assert!(block[2..92].iter().all(|&b| b == 0xFF));
        assert_eq!(block[92], 0x00);
        assert_eq!(&block[93..108], &SHA1_DIGEST_INFO);
        assert_eq!(
            &block[108..],
            &[
                0xA9, 0x99, 0x3E, 0x36, 0x47, 0x06, 0x81, 0x6A, 0xBA, 0x3E, 0x25, 0x71, 0x78, 0x50, 0xC2, 0x6C, 0x9C,
                0xD0, 0xD8, 0x9D
            ]
        );
    }

    #[test]
    fn left_pad_restores_leading_zeros() {
        assert_eq!(left_pad::<4>(&[1, 2]), [0, 0, 1, 2]);
        assert_eq!(left_pad::<2>(&[9, 1, 2]), [1, 2]);
    }

    #[test]
    fn sign_and_verify() {
        let key = testkit::keys().card.rsa();
        let public = PublicKey::of(key);
        let sig = sign(key, b"EF value");
        assert!(verify(&public, b"EF value", &sig));
        assert!(!verify(&public, b"EF valuf", &sig));
        let mut bad = sig;
        bad[5] ^= 1;
        assert!(!verify(&public, b"EF value", &bad));
        assert!(!verify(&public, b"EF value", &sig[..127]));
        // Same bytes as the rsa crate's own PKCS#1 v1.5 / SHA-1 (deterministic scheme).
        let reference = key
            .sign(rsa::Pkcs1v15Sign::new::<Sha1>(), &Sha1::digest(b"EF value"))
            .unwrap();
        assert_eq!(sig.to_vec(), reference);
    }
}
