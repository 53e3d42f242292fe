//! Gen-1 certificates (Appendix 11 CSM_014–019): 164-byte content, ISO/IEC 9796-2 signature with partial message
//! recovery and SHA-1, 194 bytes on the card.
//!
//! Why by hand: no crate implements 9796-2. Issuing: `Sr = 6A ‖ C[0..106] ‖ SHA-1(C) ‖ BC`, certificate =
//! `Sr^d mod n (128) ‖ C[106..164] (58) ‖ CAR (8)`. Opening (CSM_019) reverses it with the issuer's public key and
//! checks the `6A`/`BC` framing and the hash, then reads the holder's key out of the recovered content.

use rsa::RsaPrivateKey;
use sha1::{Digest, Sha1};

use super::layout::CERTIFICATE_LEN;
use super::signature::{BLOCK_LEN, PublicKey, raw_private};

/// CertificateHolderAuthorisation of a Member State certificate: tachographApplicationID `FF 'TACHO'` ‖
/// EquipmentType `00`.
pub const CHA_MEMBER_STATE: [u8; 7] = [0xFF, b'T', b'A', b'C', b'H', b'O', 0x00];
/// … of a driver card certificate: EquipmentType `01`.
pub const CHA_DRIVER_CARD: [u8; 7] = [0xFF, b'T', b'A', b'C', b'H', b'O', 0x01];
/// Certificate profile identifier of gen-1 certificates.
pub const CPI: u8 = 0x01;
/// End of validity "not used".
pub const EOV_UNUSED: u32 = 0xFFFF_FFFF;
/// Length of the certificate content C.
pub const CONTENT_LEN: usize = 164;
/// Length of the part of C recovered from the signature.
const RECOVERED_LEN: usize = 106;

/// The content C of a certificate (CPI is always `01`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateBody {
    /// Certification Authority Reference: KID of the signer.
    pub car: [u8; 8],
    /// Certificate Holder Authorisation.
    pub cha: [u8; 7],
    /// End of validity (TimeReal), `FFFFFFFF` if not used.
    pub eov: u32,
    /// Certificate Holder Reference: KID of the holder.
    pub chr: [u8; 8],
    pub public_key: PublicKey,
}

impl CertificateBody {
    /// CPI(1) ‖ CAR(8) ‖ CHA(7) ‖ EOV(4) ‖ CHR(8) ‖ n(128) ‖ e(8) = 164 bytes.
    pub fn to_bytes(&self) -> [u8; CONTENT_LEN] {
        let mut c = [0u8; CONTENT_LEN];
        c[0] = CPI;
        c[1..9].copy_from_slice(&self.car);
        c[9..16].copy_from_slice(&self.cha);
        c[16..20].copy_from_slice(&self.eov.to_be_bytes());
        c[20..28].copy_from_slice(&self.chr);
        c[28..156].copy_from_slice(&self.public_key.modulus);
        c[156..164].copy_from_slice(&self.public_key.exponent);
        c
    }

    fn from_bytes(c: &[u8; CONTENT_LEN]) -> CertificateBody {
        let mut body = CertificateBody {
            car: [0; 8],
            cha: [0; 7],
            eov: u32::from_be_bytes([c[16], c[17], c[18], c[19]]),
            chr: [0; 8],
            public_key: PublicKey {
                modulus: [0; 128],
                exponent: [0; 8],
            },
        };
        body.car.copy_from_slice(&c[1..9]);
        body.cha.copy_from_slice(&c[9..16]);
        body.chr.copy_from_slice(&c[20..28]);
        body.public_key.modulus.copy_from_slice(&c[28..156]);
        body.public_key.exponent.copy_from_slice(&c[156..164]);
        body
    }
}

/// Why a certificate does not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CertificateError {
    /// Not 194 bytes.
    Length,
    /// The signature is not below the issuer's modulus, or the issuer key is unusable.
    Signature,
    /// The recovered block does not start with `6A` and end with `BC`.
    Framing,
    /// SHA-1 of the recovered content does not match.
    Hash,
    /// Certificate profile identifier is not `01`.
    Profile,
    /// The CAR inside the content differs from the CAR appended in clear.
    AuthorityReference,
}

impl std::fmt::Display for CertificateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CertificateError::Length => "certificate is not 194 bytes",
            CertificateError::Signature => "signature does not fit the issuer key",
            CertificateError::Framing => "recovered block lacks the 6A…BC framing",
            CertificateError::Hash => "recovered content does not match its SHA-1",
            CertificateError::Profile => "certificate profile identifier is not 01",
            CertificateError::AuthorityReference => "CAR in the content differs from the appended CAR",
        })
    }
}

impl std::error::Error for CertificateError {}

/// Issues a certificate: signs `body` with the issuer's private key (CSM_018). `body.car` must be the issuer's
/// KID.
pub fn issue(issuer: &RsaPrivateKey, body: &CertificateBody) -> [u8; CERTIFICATE_LEN] {
    let c = body.to_bytes();
    let mut sr = [0u8; BLOCK_LEN];
    sr[0] = 0x6A;
    sr[1..1 + RECOVERED_LEN].copy_from_slice(&c[..RECOVERED_LEN]);
    sr[107..127].copy_from_slice(&Sha1::digest(c));
    sr[127] = 0xBC;
    let mut out = [0u8; CERTIFICATE_LEN];
    out[..BLOCK_LEN].copy_from_slice(&raw_private(issuer, &sr));
    out[BLOCK_LEN..186].copy_from_slice(&c[RECOVERED_LEN..]);
    out[186..].copy_from_slice(&body.car);
    out
}

/// The CAR′ appended in clear at the end of a certificate (selects the issuer key).
pub fn authority_reference(certificate: &[u8]) -> Option<[u8; 8]> {
    certificate.get(186..CERTIFICATE_LEN).and_then(|s| s.try_into().ok())
}

/// Opens a certificate with the issuer's public key (CSM_019).
pub fn open(certificate: &[u8], issuer: &PublicKey) -> Result<CertificateBody, CertificateError> {
    if certificate.len() != CERTIFICATE_LEN {
        return Err(CertificateError::Length);
    }
    let sr = issuer
        .raw(&certificate[..BLOCK_LEN])
        .ok_or(CertificateError::Signature)?;
    if sr[0] != 0x6A || sr[127] != 0xBC {
        return Err(CertificateError::Framing);
    }
    let mut c = [0u8; CONTENT_LEN];
    c[..RECOVERED_LEN].copy_from_slice(&sr[1..107]);
    c[RECOVERED_LEN..].copy_from_slice(&certificate[BLOCK_LEN..186]);
    if Sha1::digest(c)[..] != sr[107..127] {
        return Err(CertificateError::Hash);
    }
    if c[0] != CPI {
        return Err(CertificateError::Profile);
    }
    let body = CertificateBody::from_bytes(&c);
    if body.car[..] != certificate[186..] {
        return Err(CertificateError::AuthorityReference);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::super::testkit;
    use super::*;

    fn body() -> CertificateBody {
        let keys = testkit::keys();
        CertificateBody {
            car: keys.root.key_id(),
            cha: CHA_MEMBER_STATE,
            eov: EOV_UNUSED,
            chr: keys.ca.key_id(),
            public_key: PublicKey::of(keys.ca.rsa()),
        }
    }

    #[test]
    fn content_layout_by_hand() {
        // 01 | CAR (8) | FF 'T' 'A' 'C' 'H' 'O' 00 | FF FF FF FF | CHR (8) | n (128) | e (8): offsets 0, 1, 9, 16,
        // 20, 28, 156; e = 65 537 = 00 00 00 00 00 01 00 01.
        let b = body();
        let c = b.to_bytes();
        assert_eq!(c[0], 0x01);
        assert_eq!(&c[1..9], &b.car);
        assert_eq!(&c[9..16], &[0xFF, 0x54, 0x41, 0x43, 0x48, 0x4F, 0x00]);
        assert_eq!(&c[16..20], &[0xFF; 4]);
        assert_eq!(&c[20..28], &b.chr);
        assert_eq!(&c[28..156], &b.public_key.modulus);
        assert_eq!(&c[156..164], &[0, 0, 0, 0, 0, 1, 0, 1]);
    }

    #[test]
    fn issue_then_open_with_the_issuer_key() {
        let keys = testkit::keys();
        let b = body();
        let cert = issue(keys.root.rsa(), &b);
        assert_eq!(cert.len(), 194);
        // Cn (C[106..164], 58 bytes) and CAR travel in clear after the 128-byte signature.
        assert_eq!(&cert[128..186], &b.to_bytes()[106..]);
        assert_eq!(authority_reference(&cert), Some(b.car));
        // The raw public operation gives 6A ‖ C[0..106] ‖ SHA-1(C) ‖ BC.
        let sr = PublicKey::of(keys.root.rsa()).raw(&cert[..128]).unwrap();
        assert_eq!((sr[0], sr[127]), (0x6A, 0xBC));
        assert_eq!(&sr[1..107], &b.to_bytes()[..106]);
        assert_eq!(open(&cert, &PublicKey::of(keys.root.rsa())), Ok(b));
    }

    #[test]
    fn wrong_key_or_altered_bytes_do_not_open() {
        let keys = testkit::keys();
        let cert = issue(keys.root.rsa(), &body());
        let root = PublicKey::of(keys.root.rsa());
        assert!(open(&cert, &PublicKey::of(keys.card.rsa())).is_err());
        let mut altered = cert;
        altered[150] ^= 0x01; // inside Cn: hash no longer matches
        assert_eq!(open(&altered, &root), Err(CertificateError::Hash));
        let mut altered = cert;
        altered[190] ^= 0x01; // appended CAR
        assert_eq!(open(&altered, &root), Err(CertificateError::AuthorityReference));
        assert_eq!(open(&cert[..193], &root), Err(CertificateError::Length));
        assert!(open(&[0u8; 194], &root).is_err());
    }
}
