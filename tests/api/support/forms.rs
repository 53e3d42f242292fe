//! HTML pages driven without a browser: cookies kept by hand, forms posted, redirects not
//! followed (the third-party application's server is not here).

use std::collections::HashMap;

use reqwest::StatusCode;

/// A browser: cookies kept by hand, redirects not followed (the application's server is not here).
pub struct Browser {
    http: reqwest::Client,
    pub cookies: HashMap<String, String>,
}

pub struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub body: String,
    pub headers: reqwest::header::HeaderMap,
}

impl Browser {
    pub fn new() -> Browser {
        Browser {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: HashMap::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    pub async fn send(&mut self, request: reqwest::RequestBuilder) -> Page {
        let response = request.header("cookie", self.cookie_header()).send().await.unwrap();
        for value in response.headers().get_all("set-cookie") {
            let text = value.to_str().unwrap();
            let (pair, _) = text.split_once(';').unwrap_or((text, ""));
            let (k, v) = pair.split_once('=').unwrap();
            self.cookies.insert(k.to_string(), v.to_string());
        }
        Page {
            status: response.status(),
            location: response
                .headers()
                .get("location")
                .map(|l| l.to_str().unwrap().to_string()),
            headers: response.headers().clone(),
            body: response.text().await.unwrap(),
        }
    }

    pub async fn get(&mut self, url: &str) -> Page {
        let request = self.http.get(url);
        self.send(request).await
    }

    pub async fn post(&mut self, url: &str, form: &[(&str, &str)]) -> Page {
        let request = self.http.post(url).form(form);
        self.send(request).await
    }
}

/// The value of a hidden field of a page.
pub fn field(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker).unwrap_or_else(|| panic!("no {name} in {page}")) + marker.len();
    html_escape::decode_html_entities(page[start..].split('"').next().unwrap()).into_owned()
}

/// The action URL of the page's form, on the server at `base`.
pub fn action(base: &str, page: &str) -> String {
    let start = page.find("action=\"").unwrap() + "action=\"".len();
    format!(
        "{base}{}",
        html_escape::decode_html_entities(page[start..].split('"').next().unwrap())
    )
}
