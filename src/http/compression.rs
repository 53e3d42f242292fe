//! Compressed answers: brotli or gzip, as the client's `Accept-Encoding` prefers (tower-http's
//! `Compression`), for text-like bodies (JSON, GraphQL answers, the contract files, pages, scripts
//! and style sheets) of at least [`MIN_SIZE`] bytes. Binary bodies (the C1B ZIP, already deflated;
//! `EC_PK.bin`; images) are never compressed, nor answers that already carry a `Content-Encoding`.
//! Every answer that could be compressed says `Vary: Accept-Encoding`, whatever the client asked.
//!
//! A compressed body is another representation: its strong `ETag` gets the coding as a suffix
//! (`"…-br"`, `"…-gzip"`), and [`strip_coding`] gives back the tag of the identity body, for
//! routes that compare `If-None-Match`.

use std::borrow::Cow;

use http::{HeaderValue, Response, header};
use tower_http::compression::predicate::{Predicate, SizeAbove};
use tower_http::compression::{CompressionBody, CompressionLayer};

/// Bodies smaller than this are sent as they are: below about a kilobyte, compression saves
/// less than it costs (and often nothing at all, given the format's own overhead).
pub const MIN_SIZE: u16 = 1024;

/// The codings this server applies, as they appear in `Content-Encoding` and in tag suffixes.
const CODINGS: [&str; 2] = ["br", "gzip"];

/// Which answers are worth compressing: text-like media types, at least [`MIN_SIZE`] bytes (or
/// of unknown size).
#[derive(Clone, Copy, Debug, Default)]
pub struct Compressible;

impl Predicate for Compressible {
    fn should_compress<B>(&self, response: &Response<B>) -> bool
    where
        B: http_body::Body,
    {
        let text_like = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(is_text_like);
        text_like && SizeAbove::new(MIN_SIZE).should_compress(response)
    }
}

/// Text formats compress well; everything else (archives, keys, images, unknown bytes) is
/// either compressed already or not worth trying.
fn is_text_like(content_type: &str) -> bool {
    let media = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if media == "text/event-stream" {
        return false;
    }
    media.starts_with("text/")
        || media.ends_with("+json")
        || media.ends_with("+xml")
        || matches!(
            media.as_str(),
            "application/json" | "application/yaml" | "application/javascript" | "application/xml"
        )
}

/// Set on an answer that had its own `Content-Encoding` before compression: its `ETag` is the
/// handler's business.
#[derive(Clone, Copy, Debug)]
struct EncodedByHandler;

fn mark_encoded<B>(mut response: Response<B>) -> Response<B> {
    if response.headers().contains_key(header::CONTENT_ENCODING) {
        response.extensions_mut().insert(EncodedByHandler);
    }
    response
}

/// A strong `ETag` of a body this layer compressed names that representation: `"x"` → `"x-br"`.
fn tag_coding<B>(mut response: Response<B>) -> Response<B> {
    if response.extensions().get::<EncodedByHandler>().is_some() {
        return response;
    }
    let coding = response
        .headers()
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .filter(|c| CODINGS.contains(c))
        .map(str::to_string);
    let Some(coding) = coding else { return response };
    let tagged = response
        .headers()
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .filter(|tag| tag.len() >= 2 && tag.starts_with('"') && tag.ends_with('"'))
        .and_then(|tag| HeaderValue::from_str(&format!("{}-{coding}\"", &tag[..tag.len() - 1])).ok());
    if let Some(tagged) = tagged {
        response.headers_mut().insert(header::ETAG, tagged);
    }
    response
}

/// The entity tag of the identity body behind a tag this layer gave a compressed body
/// (`"x-br"` → `"x"`); other tags are returned as they are.
pub fn strip_coding(tag: &str) -> Cow<'_, str> {
    for coding in CODINGS {
        if let Some(opaque) = tag.strip_suffix(&format!("-{coding}\"")) {
            return Cow::Owned(format!("{opaque}\""));
        }
    }
    Cow::Borrowed(tag)
}

/// Wraps a service: its answers compressed as negotiated, their tags adjusted.
pub fn compress<S, B>(
    service: S,
) -> impl tower::Service<
    http::Request<hyper::body::Incoming>,
    Response = Response<CompressionBody<B>>,
    Error = S::Error,
    Future = impl Send,
> + Clone
+ Send
+ 'static
where
    S: tower::Service<http::Request<hyper::body::Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: http_body::Body + Send + 'static,
{
    tower::ServiceBuilder::new()
        .map_response(tag_coding::<CompressionBody<B>>)
        .layer(CompressionLayer::new().compress_when(Compressible))
        .map_response(mark_encoded::<B>)
        .service(service)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_like_media_types_are_compressed() {
        for yes in [
            "application/json",
            "application/graphql-response+json; charset=utf-8",
            "application/yaml",
            "text/plain; charset=utf-8",
            "text/html; charset=utf-8",
            "text/javascript",
            "text/css",
            "image/svg+xml",
        ] {
            assert!(is_text_like(yes), "{yes}");
        }
        for no in [
            "application/zip",
            "application/octet-stream",
            "image/png",
            "text/event-stream",
            "",
        ] {
            assert!(!is_text_like(no), "{no}");
        }
    }

    /// An answer tagged `"abc"` whose body is encoded with `coding`.
    fn encoded(coding: &'static str) -> Response<()> {
        let mut response = Response::new(());
        response
            .headers_mut()
            .insert(header::ETAG, HeaderValue::from_static("\"abc\""));
        response
            .headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
        response
    }

    #[test]
    fn tags_of_compressed_bodies_name_the_coding_and_strip_back() {
        let tagged = tag_coding(encoded("br"));
        assert_eq!(tagged.headers()[header::ETAG], "\"abc-br\"");
        assert_eq!(strip_coding("\"abc-br\""), "\"abc\"");
        assert_eq!(strip_coding("\"abc-gzip\""), "\"abc\"");
        assert_eq!(strip_coding("\"abc\""), "\"abc\"");
        // A body its handler encoded keeps the handler's tag.
        let response = tag_coding(mark_encoded(encoded("gzip")));
        assert_eq!(response.headers()[header::ETAG], "\"abc\"");
    }
}
