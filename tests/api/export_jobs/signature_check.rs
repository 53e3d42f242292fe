//! `POST /control/verify-xlsx-signature`: a workbook built by a report job verifies; a changed
//! cell, a workbook without its signature and a file that is no workbook are each a 422 with the
//! reference's code; the upload is bounded (413) and must be one multipart file (400).

use super::*;

/// A `multipart/form-data` body of `parts` (name, file name, bytes) and its content type.
fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "roadlog-test-boundary-7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, file_name, bytes) in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match file_name {
            Some(file_name) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\n\
                     Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => {
                body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes())
            }
        }
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

async fn send(app: &TestApp, path: &str, content_type: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let response = app
        .client
        .post(app.url(path))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The route's answer for `xlsx` sent as the file part `xlsx-to-check`, without credentials.
async fn check(app: &TestApp, xlsx: &[u8]) -> (StatusCode, Value) {
    let (content_type, body) = multipart(&[("xlsx-to-check", Some("rapport.xlsx"), xlsx)]);
    send(app, "/control/verify-xlsx-signature", &content_type, body).await
}

/// `xlsx` with the entry `name` changed by `change` (or left out when it gives `None`).
fn rewritten(xlsx: &[u8], name: &str, change: impl Fn(String) -> Option<String>) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(xlsx)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let mut found = false;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let entry_name = entry.name().unwrap().to_string();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        if entry_name == name {
            found = true;
            match change(String::from_utf8(bytes).unwrap()) {
                Some(text) => bytes = text.into_bytes(),
                None => continue,
            }
        }
        out.start_file(entry_name, options).unwrap();
        std::io::Write::write_all(&mut out, &bytes).unwrap();
    }
    assert!(found, "{name} is in the workbook");
    out.finish().unwrap().into_inner()
}

fn refusal(code: &str) -> (StatusCode, String) {
    (StatusCode::UNPROCESSABLE_ENTITY, code.to_string())
}

fn code_of((status, body): (StatusCode, Value)) -> (StatusCode, String) {
    (status, body["error_code"].as_str().unwrap_or_default().to_string())
}

on_both_backends! {
    async fn a_built_workbook_verifies_and_a_changed_or_unsigned_one_does_not(app) {
        let c = company(app).await;
        week_of_work(app, &c).await;
        queued(app, &c).await;
        let link = link_of(app, &c.admin).await;
        let xlsx = app.client.get(&link).send().await.unwrap().bytes().await.unwrap().to_vec();

        // Public, as the reference's; served with and without `/api`.
        assert_eq!(check(app, &xlsx).await, (StatusCode::OK, json!({ "success": true })));
        let (content_type, body) = multipart(&[("xlsx-to-check", None, &xlsx)]);
        let (status, answer) = send(app, "/api/control/verify-xlsx-signature", &content_type, body).await;
        assert_eq!((status, answer), (StatusCode::OK, json!({ "success": true })), "a part without a file name is a file too");

        // A changed cell: the mission's name (a shared string), then a figure of the sheet.
        let renamed = rewritten(&xlsx, "xl/sharedStrings.xml", |text| {
            assert!(text.contains("Livraison Lyon"));
            Some(text.replace("Livraison Lyon", "Livraison Nice"))
        });
        let (status, body) = check(app, &renamed).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(
            body,
            json!({ "error": "The signature does not match the workbook's content", "error_code": "SIGNATURE_DOES_NOT_MATCH" })
        );
        let refigured = rewritten(&xlsx, "xl/worksheets/sheet1.xml", |text| {
            let at = text.find("<v>").unwrap() + 3;
            let digit = text[at..].chars().next().unwrap();
            assert!(digit.is_ascii_digit(), "{}", &text[at..at + 20]);
            let other = if digit == '9' { '8' } else { char::from(digit as u8 + 1) };
            Some(format!("{}{other}{}", &text[..at], &text[at + 1..]))
        });
        assert_eq!(code_of(check(app, &refigured).await), refusal("SIGNATURE_DOES_NOT_MATCH"));

        // Unsigned: without its custom properties, or with the placeholder the writer leaves.
        let unsigned = rewritten(&xlsx, "docProps/custom.xml", |_| None);
        assert_eq!(code_of(check(app, &unsigned).await), refusal("MISSING_SIGNATURE"));
        let placeholder = rewritten(&xlsx, "docProps/custom.xml", |text| {
            let start = text.find("<vt:lpwstr>").unwrap() + "<vt:lpwstr>".len();
            let end = text.find("</vt:lpwstr>").unwrap();
            Some(format!("{}a{}", &text[..start], &text[end..]))
        });
        assert_eq!(code_of(check(app, &placeholder).await), refusal("MISSING_SIGNATURE"));

        // Not a workbook at all.
        let (status, body) = check(app, b"Employe;Jour;Conduite\nJean;10/03/2026;2:30\n").await;
        assert_eq!(
            (status, body),
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({ "error": "The file is not a workbook this service can check", "error_code": "INVALID_FORMAT" })
            )
        );
    }

    async fn the_upload_is_bounded_and_must_be_one_multipart_file(app) {
        // A file over its 10 MiB, and a body over the route's limit: 413, nothing checked.
        let big = vec![b'x'; 10 * 1024 * 1024 + 1];
        let (status, body) = check(app, &big).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
        assert_eq!(
            body,
            json!({ "error": "Request body is larger than the limit of 10485760 bytes", "error_code": "INVALID_INPUTS" })
        );
        let huge = vec![b'x'; 11 * 1024 * 1024];
        let (status, body) = check(app, &huge).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
        assert_eq!(body["error"], "Request body is larger than the limit of 10551296 bytes");

        // No file part of that name, two of them, a body that is not multipart, an ill-formed one.
        let (content_type, body) = multipart(&[("file", Some("rapport.xlsx"), b"PK")]);
        let (status, body) = send(app, "/control/verify-xlsx-signature", &content_type, body).await;
        assert_eq!(
            (status, body),
            (
                StatusCode::BAD_REQUEST,
                json!({
                    "error": "Invalid request",
                    "error_code": "INVALID_INPUTS",
                    "details": { "xlsx-to-check": ["Missing data for required field."] }
                })
            )
        );
        let (content_type, body) = multipart(&[("xlsx-to-check", Some("a.xlsx"), b"PK"), ("xlsx-to-check", Some("b.xlsx"), b"PK")]);
        let (status, body) = send(app, "/control/verify-xlsx-signature", &content_type, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["details"], json!({ "xlsx-to-check": ["Must be sent once, not repeated."] }));
        let (status, body) = send(app, "/control/verify-xlsx-signature", "application/json", b"{}".to_vec()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["details"], json!({ "form": ["Send the body as multipart/form-data."] }));
        let (content_type, mut body) = multipart(&[("xlsx-to-check", Some("a.xlsx"), b"PK")]);
        body.truncate(body.len() - 10);
        let (status, body) = send(app, "/control/verify-xlsx-signature", &content_type, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["error_code"], "INVALID_INPUTS");
        assert!(
            body["details"]["form"][0].as_str().unwrap().starts_with("Not a valid multipart/form-data body: "),
            "{body}"
        );
    }
}
