//! Building JSON answers, and the media-type negotiation of GraphQL over HTTP.

use warp::http::{HeaderValue, StatusCode, header};

/// The GraphQL-over-HTTP response media type.
pub const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";
/// The legacy JSON media type, still what most clients ask for.
pub const JSON: &str = "application/json";

/// A JSON answer with the given status.
pub fn json_response(status: StatusCode, body: &serde_json::Value) -> warp::reply::Response {
    json_bytes_response(status, JSON, serde_json::to_vec(body).unwrap_or_default())
}

/// An answer with a JSON body already serialised.
pub fn json_bytes_response(status: StatusCode, media_type: &str, body: Vec<u8>) -> warp::reply::Response {
    let mut response = warp::reply::Response::new(body.into());
    *response.status_mut() = status;
    let value = format!("{media_type}; charset=utf-8");
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static(JSON)),
    );
    response
}

/// Chooses the response media type from an `Accept` header: `None` when the client accepts
/// neither JSON form (406). No header, `*/*` or `application/*` mean JSON.
pub fn negotiate(accept: Option<&str>) -> Option<&'static str> {
    let Some(accept) = accept else {
        return Some(JSON);
    };
    let mut best: Option<(&'static str, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let media = parts.next().unwrap_or("").to_ascii_lowercase();
        let quality = parts
            .filter_map(|p| p.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()))
            .next()
            .unwrap_or(1.0);
        if quality <= 0.0 {
            continue;
        }
        let candidate = match media.as_str() {
            GRAPHQL_RESPONSE => GRAPHQL_RESPONSE,
            JSON | "*/*" | "application/*" => JSON,
            _ => continue,
        };
        // Ties go to the more specific graphql-response type, as the spec recommends.
        let better = match best {
            None => true,
            Some((current, q)) => {
                quality > q || (quality == q && candidate == GRAPHQL_RESPONSE && current != GRAPHQL_RESPONSE)
            }
        };
        if better {
            best = Some((candidate, quality));
        }
    }
    best.map(|(m, _)| m)
}

/// Whether a `Content-Type` header says JSON (any charset parameter, UTF-8 only).
pub fn is_json_content_type(value: &str) -> bool {
    let mut parts = value.split(';').map(str::trim);
    let media = parts.next().unwrap_or("").to_ascii_lowercase();
    let charset_ok = parts.all(|p| match p.to_ascii_lowercase().strip_prefix("charset=") {
        Some(c) => c.trim_matches('"') == "utf-8",
        None => true,
    });
    media == JSON && charset_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_negotiation() {
        assert_eq!(negotiate(None), Some(JSON));
        assert_eq!(negotiate(Some("*/*")), Some(JSON));
        assert_eq!(negotiate(Some("application/json")), Some(JSON));
        assert_eq!(
            negotiate(Some("application/graphql-response+json, application/json;q=0.9")),
            Some(GRAPHQL_RESPONSE)
        );
        assert_eq!(
            negotiate(Some("application/json, application/graphql-response+json")),
            Some(GRAPHQL_RESPONSE)
        );
        assert_eq!(
            negotiate(Some("application/graphql-response+json;q=0.5, application/json")),
            Some(JSON)
        );
        assert_eq!(negotiate(Some("text/html")), None);
        assert_eq!(negotiate(Some("application/json;q=0")), None);
    }

    #[test]
    fn json_content_types() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("Application/JSON; charset=utf-8"));
        assert!(!is_json_content_type("application/json; charset=latin1"));
        assert!(!is_json_content_type("text/plain"));
        assert!(!is_json_content_type("application/x-www-form-urlencoded"));
    }
}
