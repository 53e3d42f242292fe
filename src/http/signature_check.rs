//! `POST /control/verify-xlsx-signature`: checks the integrity signature of a workbook the
//! service built. Public, as the reference's. The upload is bounded by the generated route (its
//! `maxLength`), the archive's reading by the check itself (`workbook::signature`), which runs on
//! a blocking thread, a few at a time, so that checks never hold the API's threads.
//!
//! A failed check is a 422 with the reference's `error_code`, where the reference answers 200.

use tokio::sync::Semaphore;

use crate::app::App;
use crate::domain::export::workbook::signature::{self, Verdict};
use crate::http::api_error::{api_error, internal_error};
use crate::http::contract::{VerifyXlsxSignatureRequest, VerifyXlsxSignatureResponse, types};

/// Checks running at once on the instance; the others wait their turn.
static CHECKS: Semaphore = Semaphore::const_new(2);

/// The verdict on the uploaded workbook.
pub async fn verify(app: &App, request: VerifyXlsxSignatureRequest) -> VerifyXlsxSignatureResponse {
    let bytes = request.body.xlsx_to_check.bytes;
    let key = app.xlsx_signing_key.clone();
    let Ok(_turn) = CHECKS.acquire().await else {
        return VerifyXlsxSignatureResponse::InternalServerError(internal_error());
    };
    let verdict = match tokio::task::spawn_blocking(move || signature::verify(&bytes, key.bytes())).await {
        Ok(verdict) => verdict,
        Err(error) => {
            tracing::error!(?error, "the signature check stopped");
            return VerifyXlsxSignatureResponse::InternalServerError(internal_error());
        }
    };
    let refused =
        |message: &str, code: &str| VerifyXlsxSignatureResponse::UnprocessableEntity(api_error(message, code));
    match verdict {
        Verdict::Valid => VerifyXlsxSignatureResponse::Ok(types::XlsxSignatureValid { success: true }),
        Verdict::MissingSignature => refused("The workbook carries no signature", "MISSING_SIGNATURE"),
        Verdict::SignatureDoesNotMatch => refused(
            "The signature does not match the workbook's content",
            "SIGNATURE_DOES_NOT_MATCH",
        ),
        Verdict::InvalidFormat => refused("The file is not a workbook this service can check", "INVALID_FORMAT"),
    }
}
