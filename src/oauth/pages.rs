//! The browser pages of the authorization endpoint: login, consent and error. Server-rendered
//! from askama templates (`templates/oauth/`, checked at compile time, HTML-escaped by
//! default), plain, accessible (labels, headings, language, contrast), usable on a phone (mobile
//! workers authorize applications from their phones), and without any external asset.

use askama::Template;

#[derive(Template)]
#[template(path = "oauth/login.html")]
struct Login<'a> {
    action: &'a str,
    csrf: &'a str,
    client: &'a str,
    error: Option<&'a str>,
    /// The sign-up page, which comes back to this authorization request afterwards.
    signup: String,
}

#[derive(Template)]
#[template(path = "oauth/consent.html")]
struct Consent<'a> {
    action: &'a str,
    csrf: &'a str,
    client: &'a str,
    user: &'a str,
}

#[derive(Template)]
#[template(path = "oauth/error.html")]
struct Error<'a> {
    message: &'a str,
}

/// Renders a page. The templates are checked when the crate compiles; rendering fails only if
/// writing to the string fails, which leaves a plain sentence rather than no answer.
fn render(page: &impl Template) -> String {
    page.render().unwrap_or_else(|error| {
        tracing::error!(%error, "an authorization page could not be rendered");
        "This page could not be shown. Please retry.".to_string()
    })
}

/// The login form; it posts back to the authorization request's own URL, and links to the
/// sign-up page (which returns here) and to the password reset.
pub fn login(action: &str, csrf: &str, client: &str, error: Option<&str>) -> String {
    let next: String = url::form_urlencoded::byte_serialize(action.as_bytes()).collect();
    render(&Login {
        action,
        csrf,
        client,
        error,
        signup: format!("/account/signup?next={next}"),
    })
}

/// The consent page: who asks, for whom, and what it will be able to do.
pub fn consent(action: &str, csrf: &str, client: &str, user: &str) -> String {
    render(&Consent {
        action,
        csrf,
        client,
        user,
    })
}

/// An error that must not be sent back to the application (unknown client, unregistered
/// redirect URI, expired form).
pub fn error(message: &str) -> String {
    render(&Error { message })
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_is_escaped() {
        let page = super::consent("/oauth/authorize?x=1&y=2", "t", "<script>", "Jeanne");
        assert!(!page.contains("<script>") && page.contains("Authorize &#60;script&#62;?"));
        assert!(page.contains("action=\"/oauth/authorize?x=1&#38;y=2\""));
        let page = super::login("/a", "t", "\"quoted\"", Some("<b>wrong</b>"));
        assert!(page.contains("<strong>&#34;quoted&#34;</strong>"));
        assert!(page.contains("role=\"alert\">&#60;b&#62;wrong&#60;/b&#62;</p>"));
        assert!(!super::login("/a", "t", "c", None).contains("role=\"alert\""));
        let page = super::login("/oauth/authorize?client_id=1&state=x", "t", "c", None);
        assert!(page.contains("href=\"/account/signup?next=%2Foauth%2Fauthorize%3Fclient_id%3D1%26state%3Dx\""));
        assert!(page.contains("href=\"/account/password/reset\""));
    }
}
