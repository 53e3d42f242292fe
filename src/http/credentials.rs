//! The credentials a request carries in its headers, read once for the domain to resolve:
//! `Authorization: Bearer`, and a software vendor's `X-CLIENT-ID` + `X-EMPLOYMENT-TOKEN`.

use warp::http::{HeaderMap, header};

use crate::domain::auth::Caller;
use crate::domain::auth::caller::Credentials;

/// Reads the credentials of a request (a header that is not visible ASCII counts as absent).
pub fn read(headers: &HeaderMap) -> Credentials {
    let text = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    Credentials {
        bearer: Caller::bearer(headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok())),
        client_id: text("x-client-id"),
        employment_token: text("x-employment-token"),
    }
}
