//! The browser pages of the authorization endpoint: login, consent and error. Server-rendered,
//! plain, accessible (labels, headings, language, contrast), usable on a phone (mobile workers
//! authorize applications from their phones), and without any external asset.

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#39;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;background:#f4f6f8;color:#1b1f24}\
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}\
h1{font-size:1.4rem;margin-top:0}label{display:block;margin-top:1rem;font-weight:600}\
input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.75rem;font-size:1rem;margin-top:.25rem;border:1px solid #6b7280;border-radius:.25rem}\
button{font-size:1rem;padding:.75rem 1.25rem;margin-top:1.25rem;border-radius:.25rem;border:0;cursor:pointer;min-height:44px}\
.primary{background:#0b57d0;color:#fff}.secondary{background:#e5e7eb;color:#1b1f24}\
.error{background:#fde8e8;color:#8a1c1c;padding:.75rem;border-radius:.25rem}ul{padding-left:1.25rem}\
.actions{display:flex;gap:.75rem;flex-wrap:wrap}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} – Roadlog</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        escape(title)
    )
}

/// The login form; it posts back to the authorization request's own URL.
pub fn login(action: &str, csrf: &str, client_name: &str, error: Option<&str>) -> String {
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e)))
        .unwrap_or_default();
    page(
        "Log in",
        &format!(
            "<h1>Log in to Roadlog</h1><p><strong>{client}</strong> asks to access your Roadlog account. Log in first.</p>{error}\
             <form method=\"post\" action=\"{action}\">\
             <input type=\"hidden\" name=\"csrf_token\" value=\"{csrf}\"><input type=\"hidden\" name=\"action\" value=\"login\">\
             <label for=\"email\">E-mail</label><input id=\"email\" name=\"email\" type=\"email\" autocomplete=\"username\" required>\
             <label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\
             <div class=\"actions\"><button class=\"primary\" type=\"submit\">Log in</button></div></form>",
            client = escape(client_name),
            action = escape(action),
            csrf = escape(csrf),
        ),
    )
}

/// The consent page: who asks, for whom, and what it will be able to do.
pub fn consent(action: &str, csrf: &str, client_name: &str, user_name: &str) -> String {
    page(
        "Authorize",
        &format!(
            "<h1>Authorize {client}?</h1><p>Logged in as <strong>{user}</strong>.</p>\
             <p><strong>{client}</strong> will be able to act on your Roadlog account with your rights:</p>\
             <ul><li>read your profile, your employments and your companies;</li>\
             <li>read and record your missions, activities and expenses;</li>\
             <li>for companies you administer: manage employments and export working time.</li></ul>\
             <p>It will never see your password. You can withdraw this access at any time.</p>\
             <form method=\"post\" action=\"{action}\"><input type=\"hidden\" name=\"csrf_token\" value=\"{csrf}\">\
             <div class=\"actions\"><button class=\"primary\" type=\"submit\" name=\"action\" value=\"allow\">Allow</button>\
             <button class=\"secondary\" type=\"submit\" name=\"action\" value=\"deny\">Deny</button></div></form>",
            client = escape(client_name),
            user = escape(user_name),
            action = escape(action),
            csrf = escape(csrf),
        ),
    )
}

/// An error that must not be sent back to the application (unknown client, unregistered
/// redirect URI, expired form).
pub fn error(message: &str) -> String {
    page(
        "Error",
        &format!(
            "<h1>This authorization request cannot be served</h1><p class=\"error\" role=\"alert\">{}</p>",
            escape(message)
        ),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn text_is_escaped() {
        assert_eq!(
            super::escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        let page = super::consent("/oauth/authorize?x=1&y=2", "t", "<script>", "Jeanne");
        assert!(!page.contains("<script>") && page.contains("&lt;script&gt;"));
        assert!(page.contains("x=1&amp;y=2"));
    }
}
