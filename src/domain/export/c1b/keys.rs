//! Our self-issued, clearly non-official gen-1 key hierarchy: root → "member state" CA → one card key per
//! employee, with the storage format of each private key.
//!
//! Why self-issued: only ERCA and the member-state authorities can produce certificates that official verifiers
//! accept, and imitating them would be dishonest. Our files verify with any gen-1 verifier *given our root's
//! EC_PK* ([`root_public_key_ec_pk`]) and fail against the real ERCA root, which is the honest outcome.
//!
//! Key identifiers (KeyIdentifier, 8 bytes) are chosen so that they cannot collide with a real authority or card:
//! * CA KIDs are nationNumeric ‖ nationAlpha(3) ‖ keySerialNumber ‖ additionalInfo `FF FF` ‖ caIdentifier `01`.
//!   Real ones use a member state's nation code (`01`–`33`…) or ERCA's `FD 'EC '`. We use nation `FC`, which
//!   NationNumeric leaves "reserved for future use", with the letters `RLR` (root) and `RLM` (member-state level),
//!   which are no nation's alpha code (and differ from the reference service's `MLR`/`MLM`).
//! * A card key's KID (the card certificate's CHR, also written as EF_ICC cardExtendedSerialNumber) is an
//!   ExtendedSerialNumber: random serialNumber(4) ‖ BCD month/year of generation ‖ type `FF` ‖ manufacturer `00`.
//!   Type `FF` is reserved (no manufacturer issues it) and manufacturer code `00` means "no information available":
//!   no real card carries this serial.
//!
//! The storage format of each private key is in `key_format`.

use chrono::Datelike;
use rand::RngCore;
use rand::rngs::OsRng;
use rsa::RsaPrivateKey;

use super::certificate::{CHA_DRIVER_CARD, CHA_MEMBER_STATE, CertificateBody, EOV_UNUSED, issue};
pub use super::key_format::KeyError;
use super::key_format::{KIND_CA, KIND_CARD, KIND_ROOT, MODULUS_BITS, from_bytes, to_bytes};
use super::layout::CERTIFICATE_LEN;
use super::primitives::bcd4;
use super::signature::PublicKey;

pub use super::key_format::KeyId;

/// NationNumeric "reserved for future use" that no authority uses.
pub const NATION_RESERVED: u8 = 0xFC;

fn new_rsa_key() -> RsaPrivateKey {
    RsaPrivateKey::new(&mut OsRng, MODULUS_BITS).expect("RSA-1024 key generation")
}

fn ca_key_id(letters: &[u8; 3]) -> KeyId {
    let serial = (OsRng.next_u32() & 0xFF) as u8;
    [
        NATION_RESERVED,
        letters[0],
        letters[1],
        letters[2],
        serial,
        0xFF,
        0xFF,
        0x01,
    ]
}

/// Our root key (plays ERCA's role). Generated once; its public part is published as EC_PK.bin.
#[derive(Clone)]
pub struct RootKey {
    kid: KeyId,
    key: RsaPrivateKey,
}

impl RootKey {
    /// New RSA-1024 key (e = 65 537), KID `FC 'R' 'L' 'R' <random serial> FF FF 01`.
    pub fn generate() -> RootKey {
        RootKey {
            kid: ca_key_id(b"RLR"),
            key: new_rsa_key(),
        }
    }

    pub fn key_id(&self) -> KeyId {
        self.kid
    }

    pub fn public_key(&self) -> PublicKey {
        PublicKey::of(&self.key)
    }

    #[cfg(test)]
    pub(super) fn rsa(&self) -> &RsaPrivateKey {
        &self.key
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        to_bytes(KIND_ROOT, &self.kid, None, &self.key)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<RootKey, KeyError> {
        let (kid, _, key) = from_bytes(bytes, KIND_ROOT, false)?;
        Ok(RootKey { kid, key })
    }
}

impl std::fmt::Debug for RootKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RootKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// The root public key in the layout of ERCA's `EC_PK.bin`: KID(8) ‖ n(128) ‖ e(8) = 144 bytes, what
/// verifiers take as the trusted root.
pub fn root_public_key_ec_pk(root: &RootKey) -> [u8; 144] {
    let public = root.public_key();
    let mut out = [0u8; 144];
    out[..8].copy_from_slice(&root.kid);
    out[8..136].copy_from_slice(&public.modulus);
    out[136..].copy_from_slice(&public.exponent);
    out
}

/// Reads an EC_PK.bin-style root key.
pub fn parse_ec_pk(bytes: &[u8]) -> Option<(KeyId, PublicKey)> {
    if bytes.len() != 144 {
        return None;
    }
    let mut public = PublicKey {
        modulus: [0; 128],
        exponent: [0; 8],
    };
    public.modulus.copy_from_slice(&bytes[8..136]);
    public.exponent.copy_from_slice(&bytes[136..]);
    Some((bytes[..8].try_into().ok()?, public))
}

/// Our "member state" certification authority key, with its certificate issued by the root
/// (EF_CA_Certificate of every file).
#[derive(Clone)]
pub struct CaKey {
    kid: KeyId,
    key: RsaPrivateKey,
    certificate: [u8; CERTIFICATE_LEN],
}

impl CaKey {
    /// New RSA-1024 key with KID `FC 'R' 'L' 'M' <random serial> FF FF 01`, certified by `root`
    /// (CHA `FF 'TACHO' 00`, EOV unused).
    pub fn generate_signed_by(root: &RootKey) -> CaKey {
        let key = new_rsa_key();
        let kid = ca_key_id(b"RLM");
        let body = CertificateBody {
            car: root.kid,
            cha: CHA_MEMBER_STATE,
            eov: EOV_UNUSED,
            chr: kid,
            public_key: PublicKey::of(&key),
        };
        let certificate = issue(&root.key, &body);
        CaKey { kid, key, certificate }
    }

    pub fn key_id(&self) -> KeyId {
        self.kid
    }

    /// The certificate to write as EF_CA_Certificate.
    pub fn certificate(&self) -> &[u8; CERTIFICATE_LEN] {
        &self.certificate
    }

    #[cfg(test)]
    pub(super) fn rsa(&self) -> &RsaPrivateKey {
        &self.key
    }

    /// Certifies a card key: the certificate to write as EF_Card_Certificate (CHA `FF 'TACHO' 01`, CHR = the
    /// card key's KID, EOV unused).
    pub fn issue_card_certificate(&self, card: &CardKey) -> [u8; CERTIFICATE_LEN] {
        let body = CertificateBody {
            car: self.kid,
            cha: CHA_DRIVER_CARD,
            eov: EOV_UNUSED,
            chr: card.chr,
            public_key: PublicKey::of(&card.key),
        };
        issue(&self.key, &body)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        to_bytes(KIND_CA, &self.kid, Some(&self.certificate), &self.key)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<CaKey, KeyError> {
        let (kid, certificate, key) = from_bytes(bytes, KIND_CA, true)?;
        Ok(CaKey {
            kid,
            key,
            certificate: certificate.expect("read with certificate"),
        })
    }
}

impl std::fmt::Debug for CaKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaKey").field("kid", &self.kid).finish_non_exhaustive()
    }
}

/// One employee's card key (signs the EFs of that employee's files).
#[derive(Clone)]
pub struct CardKey {
    chr: KeyId,
    key: RsaPrivateKey,
}

impl CardKey {
    /// New RSA-1024 key with KID = ExtendedSerialNumber `<random u32> <BCD mm yy of today (UTC)> FF 00`.
    pub fn generate() -> CardKey {
        let today = chrono::Utc::now().date_naive();
        let month_year = bcd4(today.month() * 100 + (today.year().rem_euclid(100) as u32));
        let serial = OsRng.next_u32().to_be_bytes();
        let chr = [
            serial[0],
            serial[1],
            serial[2],
            serial[3],
            month_year[0],
            month_year[1],
            0xFF,
            0x00,
        ];
        CardKey {
            chr,
            key: new_rsa_key(),
        }
    }

    /// The CHR of the card certificate, also EF_ICC cardExtendedSerialNumber.
    pub fn key_id(&self) -> KeyId {
        self.chr
    }

    pub fn public_key(&self) -> PublicKey {
        PublicKey::of(&self.key)
    }

    pub(super) fn rsa(&self) -> &RsaPrivateKey {
        &self.key
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        to_bytes(KIND_CARD, &self.chr, None, &self.key)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<CardKey, KeyError> {
        let (chr, _, key) = from_bytes(bytes, KIND_CARD, false)?;
        Ok(CardKey { chr, key })
    }
}

impl std::fmt::Debug for CardKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CardKey")
            .field("chr", &self.chr)
            .finish_non_exhaustive()
    }
}

/// Everything needed to sign one employee's file. The service stores the card key and its certificate per
/// employee and the CA certificate once.
#[derive(Debug, Clone)]
pub struct CardSigner {
    pub card_key: CardKey,
    /// EF_Card_Certificate: the card key certified by the CA.
    pub card_certificate: [u8; CERTIFICATE_LEN],
    /// EF_CA_Certificate: the CA key certified by the root.
    pub ca_certificate: [u8; CERTIFICATE_LEN],
}

impl CardSigner {
    /// Certifies `card_key` with `ca` and bundles the two certificates.
    pub fn new(card_key: CardKey, ca: &CaKey) -> CardSigner {
        let card_certificate = ca.issue_card_certificate(&card_key);
        CardSigner {
            card_key,
            card_certificate,
            ca_certificate: ca.certificate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::certificate::open;
    use super::super::testkit;
    use super::*;

    #[test]
    fn key_identifiers_are_non_official() {
        let keys = testkit::keys();
        let root = keys.root.key_id();
        assert_eq!(&root[..4], &[0xFC, b'R', b'L', b'R']);
        assert_eq!(&root[5..], &[0xFF, 0xFF, 0x01]);
        let ca = keys.ca.key_id();
        assert_eq!(&ca[..4], &[0xFC, b'R', b'L', b'M']);
        assert_eq!(&ca[5..], &[0xFF, 0xFF, 0x01]);
        let card = keys.card.key_id();
        assert_eq!(&card[6..], &[0xFF, 0x00]);
        // Month/year is valid BCD: mm in 01..12.
        let month = super::super::primitives::decode_bcd(&card[4..5]).unwrap();
        assert!((1..=12).contains(&month));
        assert!(super::super::primitives::decode_bcd(&card[5..6]).is_some());
    }

    #[test]
    fn ec_pk_layout() {
        let keys = testkit::keys();
        let ec_pk = root_public_key_ec_pk(&keys.root);
        assert_eq!(&ec_pk[..8], &keys.root.key_id());
        assert_eq!(&ec_pk[8..136], &keys.root.public_key().modulus);
        assert_eq!(&ec_pk[136..], &[0, 0, 0, 0, 0, 1, 0, 1]); // e = 65 537
        assert_eq!(ec_pk[8] & 0x80, 0x80); // 1024-bit modulus: top bit set
        assert_eq!(parse_ec_pk(&ec_pk), Some((keys.root.key_id(), keys.root.public_key())));
    }

    #[test]
    fn chain_opens_level_by_level() {
        let keys = testkit::keys();
        let ca_body = open(keys.ca.certificate(), &keys.root.public_key()).unwrap();
        assert_eq!(ca_body.car, keys.root.key_id());
        assert_eq!(ca_body.chr, keys.ca.key_id());
        assert_eq!(ca_body.cha, CHA_MEMBER_STATE);
        let signer = &keys.signer;
        let card_body = open(&signer.card_certificate, &ca_body.public_key).unwrap();
        assert_eq!(card_body.car, keys.ca.key_id());
        assert_eq!(card_body.chr, keys.card.key_id());
        assert_eq!(card_body.cha, CHA_DRIVER_CARD);
        assert_eq!(card_body.eov, 0xFFFF_FFFF);
        assert_eq!(card_body.public_key, keys.card.public_key());
        // The card certificate does not open with the root key.
        assert!(open(&signer.card_certificate, &keys.root.public_key()).is_err());
    }
}
