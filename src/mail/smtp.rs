//! Delivery through an SMTP relay the operator runs next to the service (a local MTA, or a
//! provider's relay reached through a TLS tunnel), with `lettre`: plain SMTP, no authentication.
//! The body is sent base64-encoded so that any UTF-8 text passes any relay, and the Message-ID
//! is derived from the outbox row, so a relay (or a mailbox) can recognise a repeated delivery.
//! An optional message carries its unsubscribe link as `List-Unsubscribe`, with
//! `List-Unsubscribe-Post` so that mail clients stop it in one click (RFC 2369, RFC 8058).

use std::time::Duration;

use lettre::message::header::{ContentTransferEncoding, ContentType, Header, HeaderName, HeaderValue};
use lettre::message::{Mailbox, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::outbox::Claimed;

type HeaderError = Box<dyn std::error::Error + Send + Sync>;

/// `List-Unsubscribe: <url>`.
#[derive(Clone)]
struct ListUnsubscribe(String);

impl Header for ListUnsubscribe {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe")
    }

    fn parse(s: &str) -> Result<Self, HeaderError> {
        Ok(ListUnsubscribe(
            s.trim().trim_start_matches('<').trim_end_matches('>').to_string(),
        ))
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), format!("<{}>", self.0))
    }
}

/// `List-Unsubscribe-Post: List-Unsubscribe=One-Click`.
#[derive(Clone)]
struct OneClick;

impl Header for OneClick {
    fn name() -> HeaderName {
        HeaderName::new_from_ascii_str("List-Unsubscribe-Post")
    }

    fn parse(_: &str) -> Result<Self, HeaderError> {
        Ok(OneClick)
    }

    fn display(&self) -> HeaderValue {
        HeaderValue::new(Self::name(), "List-Unsubscribe=One-Click".to_string())
    }
}

/// Where and as whom to send.
#[derive(Clone, Debug)]
pub struct Relay {
    pub host: String,
    pub port: u16,
    pub from: Mailbox,
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl Relay {
    /// Reads `smtp://host[:port]` and the sender address.
    pub fn parse(url: &str, from: &str) -> Result<Relay, String> {
        let parsed = url::Url::parse(url).map_err(|e| format!("invalid SMTP URL {url:?}: {e}"))?;
        if parsed.scheme() != "smtp" {
            return Err(format!("the SMTP URL must be smtp://host[:port], not {url:?}"));
        }
        let host = parsed
            .host_str()
            .ok_or_else(|| format!("the SMTP URL {url:?} has no host"))?
            .to_string();
        let port = parsed.port().unwrap_or(25);
        let from: Mailbox = from
            .parse()
            .map_err(|e| format!("invalid sender address {from:?}: {e}"))?;
        // "Dangerous" is lettre's name for a relay without TLS: the relay is local by design.
        let transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&host)
            .port(port)
            .timeout(Some(Duration::from_secs(30)))
            .build();
        Ok(Relay {
            host,
            port,
            from,
            transport,
        })
    }

    /// The message of an outbox row.
    pub fn message(&self, message: &Claimed) -> Result<Message, String> {
        let to: Mailbox = message
            .recipient
            .parse()
            .map_err(|e| format!("invalid recipient address: {e}"))?;
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(message.subject.clone())
            .message_id(Some(format!("<outbox-{}@roadlog>", message.id)));
        if let Some(url) = &message.unsubscribe_url {
            builder = builder.header(ListUnsubscribe(url.clone())).header(OneClick);
        }
        builder
            .singlepart(
                SinglePart::builder()
                    .header(ContentType::TEXT_PLAIN)
                    .header(ContentTransferEncoding::Base64)
                    .body(message.body.clone()),
            )
            .map_err(|e| format!("the message cannot be built: {e}"))
    }

    /// Sends one message; `Err` holds why the relay did not take it.
    pub async fn send(&self, message: &Claimed) -> Result<(), String> {
        let built = self.message(message)?;
        self.transport.send(built).await.map(|_| ()).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relay_urls_and_messages() {
        let relay = Relay::parse("smtp://mail.example.com", "roadlog@example.com").unwrap();
        assert_eq!((relay.host.as_str(), relay.port), ("mail.example.com", 25));
        assert_eq!(Relay::parse("smtp://127.0.0.1:2525", "x@y.z").unwrap().port, 2525);
        assert!(Relay::parse("http://x", "x@y.z").is_err());
        assert!(Relay::parse("smtp://x", "not an address").is_err());
        let claimed = Claimed {
            id: 7,
            recipient: "d@e.f".into(),
            subject: "Société".into(),
            body: "é".into(),
            unsubscribe_url: None,
        };
        let text = String::from_utf8(relay.message(&claimed).unwrap().formatted()).unwrap();
        assert!(!text.contains("List-Unsubscribe"), "{text}");
        assert!(text.contains("Message-ID: <outbox-7@roadlog>"), "{text}");
        assert!(text.contains("Content-Transfer-Encoding: base64"), "{text}");
        assert!(text.to_lowercase().contains("subject: =?utf-8?b?"), "{text}");
        let bad = Claimed {
            recipient: "no address".into(),
            ..claimed
        };
        assert!(relay.message(&bad).is_err());
        let stoppable = Claimed {
            recipient: "d@e.f".into(),
            unsubscribe_url: Some("https://r.example/mail/unsubscribe?token=u1.x.y".into()),
            ..bad
        };
        let text = String::from_utf8(relay.message(&stoppable).unwrap().formatted()).unwrap();
        assert!(
            text.contains("List-Unsubscribe: <https://r.example/mail/unsubscribe?token=u1.x.y>\r\n"),
            "{text}"
        );
        assert!(
            text.contains("List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n"),
            "{text}"
        );
    }
}
