//! A minimal SMTP client (RFC 5321) for a relay the operator runs next to the service (a local
//! MTA, or a provider's relay reached through a TLS tunnel): plain text protocol, no
//! authentication, one message per connection. The body is sent base64-encoded so that any
//! UTF-8 text passes any relay.

use std::time::Duration;

use base64::Engine;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// Where and as whom to send.
#[derive(Clone, Debug)]
pub struct Relay {
    pub host: String,
    pub port: u16,
    pub from: String,
}

impl Relay {
    /// Reads `smtp://host[:port]`.
    pub fn parse(url: &str, from: &str) -> Result<Relay, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("invalid SMTP URL {url:?}: {e}"))?;
        if parsed.scheme() != "smtp" {
            return Err(format!("the SMTP URL must be smtp://host[:port], not {url:?}"));
        }
        let host = parsed
            .host_str()
            .ok_or_else(|| format!("the SMTP URL {url:?} has no host"))?
            .to_string();
        Ok(Relay {
            host,
            port: parsed.port().unwrap_or(25),
            from: from.to_string(),
        })
    }
}

/// RFC 2047 encoding of a header value that is not plain ASCII.
fn header_text(text: &str) -> String {
    if text.is_ascii() && !text.contains(['\r', '\n']) {
        text.to_string()
    } else {
        format!(
            "=?UTF-8?B?{}?=",
            base64::engine::general_purpose::STANDARD.encode(text.replace(['\r', '\n'], " "))
        )
    }
}

/// The message as sent after DATA: headers, then the base64 body in 76-character lines.
pub fn message(from: &str, to: &str, subject: &str, body: &str, message_id: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(body.as_bytes());
    let lines: Vec<&str> = encoded
        .as_bytes()
        .chunks(76)
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect();
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {}\r\nDate: {}\r\nMessage-ID: <{message_id}>\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n",
        header_text(subject),
        chrono::Utc::now().to_rfc2822(),
        lines.join("\r\n")
    )
}

async fn reply<R: AsyncBufReadExt + Unpin>(reader: &mut R, expected: char) -> Result<(), String> {
    loop {
        let mut line = String::new();
        let read = tokio::time::timeout(Duration::from_secs(30), reader.read_line(&mut line))
            .await
            .map_err(|_| "the SMTP relay did not answer in time".to_string())?
            .map_err(|e| e.to_string())?;
        if read == 0 {
            return Err("the SMTP relay closed the connection".into());
        }
        // "250-…" continues a multi-line reply, "250 …" ends it.
        if line.len() >= 4 && line.as_bytes()[3] == b'-' {
            continue;
        }
        return if line.starts_with(expected) {
            Ok(())
        } else {
            Err(format!("the SMTP relay answered: {}", line.trim_end()))
        };
    }
}

/// Sends one message.
pub async fn send(relay: &Relay, to: &str, subject: &str, body: &str, message_id: &str) -> Result<(), String> {
    if [to, &relay.from].iter().any(|a| a.contains(['\r', '\n', '<', '>'])) {
        return Err("invalid address".into());
    }
    let stream = tokio::time::timeout(
        Duration::from_secs(10),
        TcpStream::connect((relay.host.as_str(), relay.port)),
    )
    .await
    .map_err(|_| "the SMTP relay is unreachable".to_string())?
    .map_err(|e| e.to_string())?;
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    reply(&mut reader, '2').await?;
    let data = message(&relay.from, to, subject, body, message_id);
    for (command, expected) in [
        ("EHLO roadlog\r\n".to_string(), '2'),
        (format!("MAIL FROM:<{}>\r\n", relay.from), '2'),
        (format!("RCPT TO:<{to}>\r\n"), '2'),
        ("DATA\r\n".to_string(), '3'),
        // Base64 lines never start with a dot, so no dot-stuffing is needed.
        (format!("{data}.\r\n"), '2'),
        ("QUIT\r\n".to_string(), '2'),
    ] {
        write.write_all(command.as_bytes()).await.map_err(|e| e.to_string())?;
        reply(&mut reader, expected).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn relay_urls_and_headers() {
        let relay = super::Relay::parse("smtp://mail.example.com", "roadlog@example.com").unwrap();
        assert_eq!((relay.host.as_str(), relay.port), ("mail.example.com", 25));
        assert_eq!(
            super::Relay::parse("smtp://127.0.0.1:2525", "x@y.z").unwrap().port,
            2525
        );
        assert!(super::Relay::parse("http://x", "x@y.z").is_err());
        assert_eq!(super::header_text("Invitation"), "Invitation");
        assert_eq!(super::header_text("Société"), "=?UTF-8?B?U29jacOpdMOp?=");
        let message = super::message("a@b.c", "d@e.f", "Hi", "é", "1@roadlog");
        assert!(message.contains("Content-Transfer-Encoding: base64\r\n\r\nw6k=\r\n"));
    }
}
