//! An independent check of the export's driver-card files, as any third party can make it from
//! the published standard (EU generation-1 tachograph, Annex 1B Appendix 7 for the download
//! format, Appendix 11 for the security mechanisms) and the root key the server publishes. It
//! shares no code with the server: a second implementation is what makes the check worth having.
//!
//! * `EC_PK.bin` (144 bytes): key identifier (8) ‖ RSA modulus (128) ‖ public exponent (8).
//! * A file is a series of TLVs `FID(2) ‖ appendix(1) ‖ length(2) ‖ value`; appendix `00` is an
//!   elementary file (EF), `01` the signature of the EF just before it.
//! * The chain: the CA certificate (EF `C108`) opens with the root key, the card certificate
//!   (EF `C100`) with the key the CA certificate certifies. A certificate is 194 bytes:
//!   signature (128) ‖ the rest of its content (58) ‖ the reference of its issuer (8); the
//!   signature opens (ISO/IEC 9796-2, SHA-1) to `6A ‖ the first 106 bytes of the content ‖
//!   SHA-1(content) ‖ BC`, and the content is profile `01` ‖ issuer (8) ‖ authorisation (7) ‖
//!   end of validity (4) ‖ holder (8) ‖ modulus (128) ‖ exponent (8).
//! * Every EF but EF_ICC (`0002`), EF_IC (`0005`) and the certificates is followed by its
//!   signature with the card key: RSASSA-PKCS1-v1_5 with SHA-1 over the EF's value.

use anyhow::{Context, anyhow, bail, ensure};
use rsa::{BigUint, Pkcs1v15Sign, RsaPublicKey};
use sha1::{Digest, Sha1};

/// Larger entries are refused unread (a card file is a few tens of KiB).
pub const MAX_FILE_LEN: u64 = 1 << 20;

const CERTIFICATE_LEN: usize = 194;
const BLOCK_LEN: usize = 128;
const EF_ICC: u16 = 0x0002;
const EF_IC: u16 = 0x0005;
const EF_CARD_CERTIFICATE: u16 = 0xC100;
const EF_CA_CERTIFICATE: u16 = 0xC108;
const APPENDIX_DATA: u8 = 0x00;
const APPENDIX_SIGNATURE: u8 = 0x01;

/// A certified RSA key with its 8-byte identifier.
#[derive(Clone)]
struct Key {
    id: [u8; 8],
    modulus: BigUint,
    exponent: BigUint,
}

impl Key {
    fn new(id: &[u8], modulus: &[u8], exponent: &[u8]) -> anyhow::Result<Key> {
        let modulus = BigUint::from_bytes_be(modulus);
        let exponent = BigUint::from_bytes_be(exponent);
        ensure!(
            modulus.bits() == 1024,
            "the modulus is {} bits, not 1024",
            modulus.bits()
        );
        ensure!(exponent >= BigUint::from(3u32), "the public exponent is below 3");
        Ok(Key {
            id: id.try_into().context("a key identifier is 8 bytes")?,
            modulus,
            exponent,
        })
    }

    /// The raw public operation, left-padded to a 128-byte block.
    fn raw(&self, block: &[u8]) -> anyhow::Result<[u8; BLOCK_LEN]> {
        let x = BigUint::from_bytes_be(block);
        ensure!(x < self.modulus, "the signature is not below the issuer's modulus");
        let bytes = x.modpow(&self.exponent, &self.modulus).to_bytes_be();
        let mut out = [0u8; BLOCK_LEN];
        out[BLOCK_LEN - bytes.len()..].copy_from_slice(&bytes);
        Ok(out)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// The root public key, as published in `EC_PK.bin`.
pub struct RootKey(Key);

impl RootKey {
    pub fn parse(bytes: &[u8]) -> anyhow::Result<RootKey> {
        ensure!(
            bytes.len() == 144,
            "EC_PK.bin is {} bytes, the format says 144",
            bytes.len()
        );
        Ok(RootKey(Key::new(&bytes[..8], &bytes[8..136], &bytes[136..])?))
    }

    pub fn id_hex(&self) -> String {
        hex(&self.0.id)
    }
}

/// Opens a certificate with its issuer's key; gives the key it certifies.
fn open_certificate(certificate: &[u8], issuer: &Key) -> anyhow::Result<Key> {
    ensure!(
        certificate.len() == CERTIFICATE_LEN,
        "a certificate is 194 bytes, not {}",
        certificate.len()
    );
    let authority = &certificate[186..];
    ensure!(
        authority == issuer.id,
        "issued by {}, not by {}",
        hex(authority),
        hex(&issuer.id)
    );
    let recovered = issuer.raw(&certificate[..BLOCK_LEN])?;
    ensure!(
        recovered[0] == 0x6A && recovered[127] == 0xBC,
        "the signature does not open with the issuer's key"
    );
    let mut content = Vec::with_capacity(164);
    content.extend_from_slice(&recovered[1..107]);
    content.extend_from_slice(&certificate[BLOCK_LEN..186]);
    ensure!(
        Sha1::digest(&content)[..] == recovered[107..127],
        "the content does not match its hash"
    );
    ensure!(content[0] == 0x01, "unknown certificate profile {:02X}", content[0]);
    ensure!(
        &content[1..9] == authority,
        "the issuer inside differs from the issuer outside"
    );
    Key::new(&content[20..28], &content[28..156], &content[156..164])
}

/// One TLV of a file.
struct Tlv<'a> {
    fid: u16,
    appendix: u8,
    value: &'a [u8],
}

fn tlvs(file: &[u8]) -> anyhow::Result<Vec<Tlv<'_>>> {
    let mut out = Vec::new();
    let mut rest = file;
    while !rest.is_empty() {
        ensure!(
            rest.len() >= 5,
            "truncated TLV header at offset {}",
            file.len() - rest.len()
        );
        let fid = u16::from_be_bytes([rest[0], rest[1]]);
        let len = usize::from(u16::from_be_bytes([rest[3], rest[4]]));
        let value = rest
            .get(5..5 + len)
            .ok_or_else(|| anyhow!("TLV {fid:04X} announces {len} bytes past the end of the file"))?;
        out.push(Tlv {
            fid,
            appendix: rest[2],
            value,
        });
        rest = &rest[5 + len..];
    }
    Ok(out)
}

/// The value of the one EF `fid` of a file (absent or repeated: refused).
fn only<'a>(tlvs: &[Tlv<'a>], fid: u16) -> anyhow::Result<&'a [u8]> {
    let mut found = tlvs.iter().filter(|t| t.fid == fid && t.appendix == APPENDIX_DATA);
    match (found.next(), found.next()) {
        (Some(tlv), None) => Ok(tlv.value),
        (None, _) => bail!("no EF {fid:04X}"),
        _ => bail!("EF {fid:04X} appears twice"),
    }
}

/// What a file's check found.
#[derive(Debug)]
pub struct Checked {
    pub ca_key_id: String,
    pub card_key_id: String,
    pub signatures: usize,
}

/// Checks a signed file: its chain from the root, the card's serial number, and the signature
/// of every EF that must have one.
pub fn check_file(file: &[u8], root: &RootKey) -> anyhow::Result<Checked> {
    let tlvs = tlvs(file)?;
    let ca = open_certificate(only(&tlvs, EF_CA_CERTIFICATE)?, &root.0).context("the CA certificate (EF C108)")?;
    let card = open_certificate(only(&tlvs, EF_CARD_CERTIFICATE)?, &ca).context("the card certificate (EF C100)")?;
    // EF_ICC: clock stop (1) ‖ card extended serial number (8), which is the card key's id.
    let icc = only(&tlvs, EF_ICC)?;
    ensure!(
        icc.get(1..9) == Some(&card.id[..]),
        "EF_ICC's serial number is not the card certificate's holder"
    );

    let card_key = RsaPublicKey::new(card.modulus.clone(), card.exponent.clone()).context("the card key")?;
    let mut signatures = 0;
    for (index, tlv) in tlvs.iter().enumerate() {
        if tlv.appendix != APPENDIX_DATA || [EF_ICC, EF_IC, EF_CARD_CERTIFICATE, EF_CA_CERTIFICATE].contains(&tlv.fid) {
            continue;
        }
        let signature = tlvs
            .get(index + 1)
            .filter(|next| next.fid == tlv.fid && next.appendix == APPENDIX_SIGNATURE)
            .ok_or_else(|| anyhow!("EF {:04X} is not followed by its signature", tlv.fid))?;
        card_key
            .verify(Pkcs1v15Sign::new::<Sha1>(), &Sha1::digest(tlv.value), signature.value)
            .map_err(|_| anyhow!("the signature of EF {:04X} does not verify with the card key", tlv.fid))?;
        signatures += 1;
    }
    ensure!(signatures > 0, "no signed EF");
    Ok(Checked {
        ca_key_id: hex(&ca.id),
        card_key_id: hex(&card.id),
        signatures,
    })
}

/// `C_<YYYYMMDD>_<HHMM>_<initial>_<SURNAME>_<card number>.C1B` (or `…_employee.C1B`): a plain
/// ASCII file name, no folder, with the export's date and time.
pub fn check_entry_name(name: &str) -> anyhow::Result<()> {
    ensure!(
        name.is_ascii() && !name.contains(['/', '\\']) && !name.starts_with('.'),
        "not a plain ASCII file name"
    );
    let stem = name
        .strip_suffix(".C1B")
        .ok_or_else(|| anyhow!("does not end in .C1B"))?;
    let parts: Vec<&str> = stem.split('_').collect();
    ensure!(
        parts.len() >= 5 && parts[0] == "C",
        "not C_<date>_<time>_<name>_<card number>"
    );
    chrono::NaiveDate::parse_from_str(parts[1], "%Y%m%d").context("the date is not YYYYMMDD")?;
    ensure!(
        parts[2].len() == 4 && chrono::NaiveTime::parse_from_str(parts[2], "%H%M").is_ok(),
        "the time is not HHMM"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Files built here from keys made for the test: the checks accept a right one and refuse
    //! each kind of alteration.

    use rsa::traits::{PrivateKeyParts, PublicKeyParts};
    use rsa::{Pkcs1v15Sign, RsaPrivateKey};
    use sha1::{Digest, Sha1};

    use super::*;

    struct Authority {
        id: [u8; 8],
        key: RsaPrivateKey,
    }

    fn authority(id: u8) -> Authority {
        Authority {
            id: [0xFC, b'T', b'S', b'T', id, 0, 0, 1],
            key: RsaPrivateKey::new(&mut rand::thread_rng(), 1024).expect("a 1024-bit key"),
        }
    }

    fn padded<const N: usize>(value: &BigUint) -> [u8; N] {
        let bytes = value.to_bytes_be();
        let mut out = [0u8; N];
        out[N - bytes.len()..].copy_from_slice(&bytes);
        out
    }

    fn ec_pk(root: &Authority) -> Vec<u8> {
        [&root.id[..], &padded::<128>(root.key.n()), &padded::<8>(root.key.e())].concat()
    }

    /// The 194-byte certificate of `holder`'s key, signed by `issuer` (ISO/IEC 9796-2, SHA-1).
    fn certificate(issuer: &Authority, holder: &Authority) -> Vec<u8> {
        let mut content = vec![0x01];
        content.extend_from_slice(&issuer.id);
        content.extend_from_slice(&[0xFF, b'T', b'A', b'C', b'H', b'O', 0x00]);
        content.extend_from_slice(&[0xFF; 4]);
        content.extend_from_slice(&holder.id);
        content.extend_from_slice(&padded::<128>(holder.key.n()));
        content.extend_from_slice(&padded::<8>(holder.key.e()));
        let mut block = vec![0x6A];
        block.extend_from_slice(&content[..106]);
        block.extend_from_slice(&Sha1::digest(&content));
        block.push(0xBC);
        let signature = BigUint::from_bytes_be(&block).modpow(issuer.key.d(), issuer.key.n());
        [&padded::<128>(&signature)[..], &content[106..], &issuer.id].concat()
    }

    fn tlv(out: &mut Vec<u8>, fid: u16, appendix: u8, value: &[u8]) {
        out.extend_from_slice(&fid.to_be_bytes());
        out.push(appendix);
        out.extend_from_slice(&u16::try_from(value.len()).unwrap().to_be_bytes());
        out.extend_from_slice(value);
    }

    fn signed(card: &Authority, value: &[u8]) -> Vec<u8> {
        card.key
            .sign(Pkcs1v15Sign::new::<Sha1>(), &Sha1::digest(value))
            .expect("a signature")
    }

    struct Fixture {
        root: Authority,
        file: Vec<u8>,
    }

    /// root → CA → card, and a file with EF_ICC, EF_IC, both certificates and two signed EFs.
    fn fixture() -> Fixture {
        let (root, ca, card) = (authority(1), authority(2), authority(3));
        let mut file = Vec::new();
        let mut icc = vec![0u8; 25];
        icc[1..9].copy_from_slice(&card.id);
        tlv(&mut file, EF_ICC, APPENDIX_DATA, &icc);
        tlv(&mut file, EF_IC, APPENDIX_DATA, &[0; 8]);
        tlv(&mut file, 0x0501, APPENDIX_DATA, b"application identification");
        tlv(
            &mut file,
            0x0501,
            APPENDIX_SIGNATURE,
            &signed(&card, b"application identification"),
        );
        tlv(&mut file, EF_CARD_CERTIFICATE, APPENDIX_DATA, &certificate(&ca, &card));
        tlv(&mut file, EF_CA_CERTIFICATE, APPENDIX_DATA, &certificate(&root, &ca));
        tlv(&mut file, 0x0520, APPENDIX_DATA, b"identification");
        tlv(&mut file, 0x0520, APPENDIX_SIGNATURE, &signed(&card, b"identification"));
        Fixture { root, file }
    }

    #[test]
    fn a_right_file_passes_and_every_alteration_fails() {
        let Fixture { root, file } = fixture();
        let root_key = RootKey::parse(&ec_pk(&root)).unwrap();
        let checked = check_file(&file, &root_key).unwrap();
        assert_eq!(checked.signatures, 2);

        // One byte changed anywhere in a signed EF, a signature or a certificate.
        let ef = file.windows(14).position(|w| w == b"identification").unwrap();
        for at in [ef, ef + 140, file.len() - 1] {
            let mut altered = file.clone();
            altered[at] ^= 0x01;
            assert!(
                check_file(&altered, &root_key).is_err(),
                "byte {at} altered, still accepted"
            );
        }
        let certificates = file.windows(3).position(|w| w == [0xC1, 0x00, 0x00]).unwrap();
        for offset in [5, 5 + 130, 5 + 190] {
            let mut altered = file.clone();
            altered[certificates + offset] ^= 0x80;
            assert!(
                check_file(&altered, &root_key).is_err(),
                "certificate byte {offset} altered"
            );
        }
        // Another root; a signature left out; a truncated file.
        assert!(check_file(&file, &RootKey::parse(&ec_pk(&authority(9))).unwrap()).is_err());
        let unsigned: Vec<u8> = file[..file.len() - 133].to_vec();
        let error = check_file(&unsigned, &root_key).unwrap_err().to_string();
        assert!(error.contains("not followed by its signature"), "{error}");
        assert!(check_file(&file[..file.len() - 1], &root_key).is_err());
    }

    #[test]
    fn the_root_key_has_the_published_shape() {
        let root = authority(1);
        let bytes = ec_pk(&root);
        assert_eq!(RootKey::parse(&bytes).unwrap().id_hex(), hex(&root.id));
        assert!(RootKey::parse(&bytes[..143]).is_err());
        let mut small = bytes.clone();
        small[8] = 0; // the modulus loses its top byte: not a 1024-bit key
        assert!(RootKey::parse(&small).is_err());
    }

    #[test]
    fn entry_names_follow_the_documented_pattern() {
        for name in [
            "C_20261126_1250_C_DURAND_RL00027450890100.C1B",
            "C_20261126_1250_C_DURAND_RL00027450890100_employee.C1B",
        ] {
            check_entry_name(name).unwrap();
        }
        for name in [
            "../C_20261126_1250_C_DURAND_RL00027450890100.C1B",
            "C_20261126_1250_C_DURAND_RL00027450890100.zip",
            "C_20261332_1250_C_DURAND_RL00027450890100.C1B",
            "C_20261126_2561_C_DURAND_RL00027450890100.C1B",
            "C_20261126_1250_É_DURAND_RL00027450890100.C1B",
        ] {
            assert!(check_entry_name(name).is_err(), "{name} accepted");
        }
    }
}
