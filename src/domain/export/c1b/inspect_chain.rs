//! The certificate chain of a download: root key (given, EC_PK.bin) → EF_CA_Certificate → EF_Card_Certificate,
//! and what each certificate says once opened.
//!
//! Why apart: the chain decides whether the EF signatures can be checked at all; a file whose chain does not
//! open is still readable, so the outcome is a status per certificate, never a violation.

use super::certificate::{CertificateBody, authority_reference, open};
use super::primitives::{format_time_real, hex};
use super::report::{CertificateReport, CertificateStatus, CertificatesReport};
use super::signature::PublicKey;

fn certificate_report(
    certificate: &[u8],
    status: CertificateStatus,
    body: Option<&CertificateBody>,
) -> CertificateReport {
    CertificateReport {
        status,
        authority_reference: authority_reference(certificate)
            .map(|car| hex(&car))
            .unwrap_or_default(),
        holder_reference: body.map(|b| hex(&b.chr)),
        holder_authorisation: body.map(|b| hex(&b.cha)),
        end_of_validity: body.map(|b| match b.eov {
            0xFFFF_FFFF => "unused".to_string(),
            eov => format_time_real(eov).unwrap_or_default(),
        }),
    }
}

/// Opens one certificate with `issuer` (KID, public key) if known.
fn open_with(
    certificate: &[u8],
    issuer: Option<(&[u8; 8], &PublicKey)>,
) -> (CertificateStatus, Option<CertificateBody>) {
    if certificate.iter().all(|&b| b == 0) {
        return (CertificateStatus::Empty, None);
    }
    let Some((kid, key)) = issuer else {
        return (CertificateStatus::NotChecked, None);
    };
    if authority_reference(certificate).as_ref() != Some(kid) {
        return (CertificateStatus::Invalid, None);
    }
    match open(certificate, key) {
        Ok(body) => (CertificateStatus::Valid, Some(body)),
        Err(_) => (CertificateStatus::Invalid, None),
    }
}

/// Verifies root → CA certificate → card certificate; returns the report and the certified card key.
pub fn check_chain(
    root: Option<&([u8; 8], PublicKey)>,
    ca_certificate: &[u8],
    card_certificate: &[u8],
    icc: Option<&[u8]>,
) -> (CertificatesReport, Option<PublicKey>) {
    let (ca_status, ca_body) = open_with(ca_certificate, root.map(|(kid, key)| (kid, key)));
    let (card_status, card_body) = open_with(card_certificate, ca_body.as_ref().map(|b| (&b.chr, &b.public_key)));
    let report = CertificatesReport {
        root_key_id: root.map(|(kid, _)| hex(kid)),
        ca: certificate_report(ca_certificate, ca_status, ca_body.as_ref()),
        card: certificate_report(card_certificate, card_status, card_body.as_ref()),
        card_serial_matches_chr: card_body.as_ref().zip(icc).map(|(b, icc)| icc[1..9] == b.chr),
    };
    (report, card_body.map(|b| b.public_key))
}
