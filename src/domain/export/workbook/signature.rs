//! The integrity signature of a workbook, as the reference signs its reports: HMAC-SHA256 of the
//! uncompressed `xl/worksheets/sheet1.xml` followed by `xl/worksheets/sheet2.xml` (when the
//! workbook has one), lowercase hex, written as the custom document property `Mobilic HMAC`.
//! The sheets hold their texts as indices into `xl/sharedStrings.xml`, so that file is signed
//! too (after the sheets): a changed name, place or comment breaks the signature, where the
//! reference's would still verify.
//! Signing rewrites the archive: every entry copied in order, `docProps/custom.xml` last with the
//! property's value replaced. Reading a workbook to check is bounded: a file of more than
//! [`MAX_ENTRIES`] entries, signed entries larger than [`MAX_ENTRY`] uncompressed, or custom
//! properties larger than [`MAX_CUSTOM`], is refused as ill-formed. The signed entries are
//! decompressed a buffer at a time into the HMAC, never held whole, so that a small archive that
//! inflates to gigabytes (a zip bomb) costs at most [`MAX_ENTRY`] bytes of inflating per entry
//! and no memory.

use std::io::{Cursor, Read, Write};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::errors::{AppError, AppResult};

/// The custom property that holds the signature.
pub const PROPERTY: &str = "Mobilic HMAC";

const CUSTOM: &str = "docProps/custom.xml";
const SIGNED: [&str; 3] = [
    "xl/worksheets/sheet1.xml",
    "xl/worksheets/sheet2.xml",
    "xl/sharedStrings.xml",
];

/// Largest signed entry (uncompressed) of a workbook to check.
pub const MAX_ENTRY: u64 = 64 * 1024 * 1024;
/// Largest custom properties (uncompressed) of a workbook to check.
pub const MAX_CUSTOM: u64 = 1024 * 1024;
/// Most entries of a workbook to check.
pub const MAX_ENTRIES: usize = 1000;

/// What checking a workbook found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Valid,
    /// No custom properties, no `Mobilic HMAC`, or a value of at most one character.
    MissingSignature,
    SignatureDoesNotMatch,
    /// Not a workbook (not a ZIP, no first sheet, entries too large).
    InvalidFormat,
}

/// The entry `name`, whole, if it is at most `limit` bytes uncompressed.
fn read_entry(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str, limit: u64) -> Result<Option<Vec<u8>>, ()> {
    let entry = match archive.by_name(name) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(_) => return Err(()),
    };
    let mut bytes = Vec::new();
    entry.take(limit + 1).read_to_end(&mut bytes).map_err(|_| ())?;
    if bytes.len() as u64 > limit {
        return Err(());
    }
    Ok(Some(bytes))
}

/// Feeds the entry `name` to `mac` a buffer at a time; `Ok(false)` when it is absent, `Err` when
/// it is unreadable or inflates past [`MAX_ENTRY`].
fn feed_entry(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str, mac: &mut Hmac<Sha256>) -> Result<bool, ()> {
    let entry = match archive.by_name(name) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => return Ok(false),
        Err(_) => return Err(()),
    };
    let mut entry = entry.take(MAX_ENTRY + 1);
    let mut buffer = [0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = entry.read(&mut buffer).map_err(|_| ())?;
        if n == 0 {
            return Ok(true);
        }
        total += n as u64;
        if total > MAX_ENTRY {
            return Err(());
        }
        mac.update(&buffer[..n]);
    }
}

/// The lowercase hex HMAC of the signed sheets, `None` when the archive is not a workbook.
fn digest(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, key: &[u8]) -> Option<String> {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).ok()?;
    if !feed_entry(archive, SIGNED[0], &mut mac).ok()? {
        return None;
    }
    for name in &SIGNED[1..] {
        feed_entry(archive, name, &mut mac).ok()?;
    }
    Some(mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect())
}

/// The span of the property's value in `custom.xml`, if the property is there.
fn value_span(custom: &str) -> Option<(usize, usize)> {
    let property = custom.find(&format!("name=\"{PROPERTY}\""))?;
    let open = property + custom[property..].find("<vt:lpwstr>")? + "<vt:lpwstr>".len();
    let close = open + custom[open..].find("</vt:lpwstr>")?;
    Some((open, close))
}

/// The workbook `xlsx` signed with `key`.
pub fn sign(xlsx: &[u8], key: &[u8]) -> AppResult<Vec<u8>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(xlsx)).map_err(AppError::internal)?;
    let signature = digest(&mut archive, key).ok_or_else(|| AppError::internal("the workbook has no first sheet"))?;
    let custom = read_entry(&mut archive, CUSTOM, MAX_CUSTOM)
        .ok()
        .flatten()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| AppError::internal("the workbook has no custom properties"))?;
    let (open, close) =
        value_span(&custom).ok_or_else(|| AppError::internal("the workbook has no signature property"))?;
    let signed = format!("{}{signature}{}", &custom[..open], &custom[close..]);
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::with_capacity(xlsx.len() + 64)));
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(AppError::internal)?;
        if entry.name_raw() == CUSTOM.as_bytes() {
            continue;
        }
        out.raw_copy_file(entry).map_err(AppError::internal)?;
    }
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    out.start_file(CUSTOM, options).map_err(AppError::internal)?;
    out.write_all(signed.as_bytes()).map_err(AppError::internal)?;
    Ok(out.finish().map_err(AppError::internal)?.into_inner())
}

/// Checks the signature of `xlsx` with `key` (the comparison takes the same time whatever
/// bytes differ).
pub fn verify(xlsx: &[u8], key: &[u8]) -> Verdict {
    let Ok(mut archive) = zip::ZipArchive::new(Cursor::new(xlsx)) else {
        return Verdict::InvalidFormat;
    };
    if archive.len() > MAX_ENTRIES {
        return Verdict::InvalidFormat;
    }
    let Ok(custom) = read_entry(&mut archive, CUSTOM, MAX_CUSTOM) else {
        return Verdict::InvalidFormat;
    };
    let Some(custom) = custom.and_then(|bytes| String::from_utf8(bytes).ok()) else {
        return Verdict::MissingSignature;
    };
    let Some((open, close)) = value_span(&custom) else {
        return Verdict::MissingSignature;
    };
    let claimed = custom[open..close].trim();
    if claimed.chars().count() <= 1 {
        return Verdict::MissingSignature;
    }
    let Some(expected) = digest(&mut archive, key) else {
        return Verdict::InvalidFormat;
    };
    if subtle::ConstantTimeEq::ct_eq(claimed.as_bytes(), expected.as_bytes()).into() {
        Verdict::Valid
    } else {
        Verdict::SignatureDoesNotMatch
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::export::workbook::{Flags, Report, activities};
    use chrono::NaiveDate;

    fn workbook(company: &str) -> Vec<u8> {
        let day = NaiveDate::from_ymd_opt(2026, 3, 10).unwrap();
        activities::write(&Report {
            company_names: vec![company.into()],
            min_date: day,
            max_date: day,
            flags: Flags::default(),
            workers: vec![],
            idle: vec!["Jean Martin".into()],
            detail: vec![],
            deleted: vec![],
        })
        .unwrap()
    }

    #[test]
    fn a_signed_workbook_verifies_and_a_changed_one_does_not() {
        let plain = workbook("Transports Martin");
        assert_eq!(
            verify(&plain, b"k"),
            Verdict::MissingSignature,
            "the placeholder `a` is no signature"
        );
        let signed = sign(&plain, b"k").unwrap();
        assert_eq!(verify(&signed, b"k"), Verdict::Valid);
        assert_eq!(verify(&signed, b"other key"), Verdict::SignatureDoesNotMatch);
        // The custom properties come last, the other entries in their order.
        let names = |bytes: &[u8]| {
            let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
            (0..archive.len())
                .map(|i| archive.by_index(i).unwrap().name().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        let (before, after) = (names(&plain), names(&signed));
        assert_eq!(after.last().map(String::as_str), Some(CUSTOM));
        assert_eq!(
            before.iter().filter(|n| *n != CUSTOM).collect::<Vec<_>>(),
            after[..after.len() - 1].iter().collect::<Vec<_>>()
        );
        assert_eq!(sign(&plain, b"k").unwrap(), signed, "signing is deterministic");
        // Another company's sheet under the signed properties.
        let forged = {
            let mut signed_archive = zip::ZipArchive::new(Cursor::new(&signed[..])).unwrap();
            let other = workbook("Transports Durand");
            let mut other_archive = zip::ZipArchive::new(Cursor::new(&other[..])).unwrap();
            let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
            for i in 0..other_archive.len() {
                let entry = other_archive.by_index_raw(i).unwrap();
                if entry.name_raw() != CUSTOM.as_bytes() {
                    out.raw_copy_file(entry).unwrap();
                }
            }
            out.raw_copy_file(signed_archive.by_name_raw(CUSTOM.as_bytes()).unwrap())
                .unwrap();
            out.finish().unwrap().into_inner()
        };
        assert_eq!(verify(&forged, b"k"), Verdict::SignatureDoesNotMatch);
        assert_eq!(verify(b"not a zip", b"k"), Verdict::InvalidFormat);
    }

    /// A signed sheet that inflates past the limit is refused, read a buffer at a time: the
    /// check's memory does not grow with what the archive claims.
    #[test]
    fn a_sheet_that_inflates_past_the_limit_is_an_invalid_format() {
        let signed = sign(&workbook("Transports Martin"), b"k").unwrap();
        let mut archive = zip::ZipArchive::new(Cursor::new(&signed[..])).unwrap();
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        for i in 0..archive.len() {
            let entry = archive.by_index_raw(i).unwrap();
            if entry.name_raw() == SIGNED[1].as_bytes() {
                continue;
            }
            out.raw_copy_file(entry).unwrap();
        }
        out.start_file(SIGNED[1], options).unwrap();
        let zeros = vec![0u8; 1024 * 1024];
        for _ in 0..=(MAX_ENTRY / zeros.len() as u64) {
            out.write_all(&zeros).unwrap();
        }
        let bomb = out.finish().unwrap().into_inner();
        assert!(
            bomb.len() < 1024 * 1024,
            "{} bytes inflate past {MAX_ENTRY}",
            bomb.len()
        );
        assert_eq!(verify(&bomb, b"k"), Verdict::InvalidFormat);
    }
}
