//! A fake SMTP relay that accepts every message and hands each conversation to the test as it
//! ends, so a test waits for the message itself rather than polling.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// A listening relay.
pub struct Relay {
    pub port: u16,
    received: mpsc::UnboundedReceiver<String>,
}

impl Relay {
    pub async fn start() -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, received) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let tx = tx.clone();
                tokio::spawn(async move {
                    let transcript = converse(stream).await;
                    if transcript.contains("DATA") {
                        let _ = tx.send(transcript);
                    }
                });
            }
        });
        Relay { port, received }
    }

    /// The next complete message's SMTP conversation.
    pub async fn next(&mut self) -> String {
        self.received.recv().await.expect("the relay runs")
    }

    /// Messages already complete, without waiting.
    pub fn pending(&mut self) -> Vec<String> {
        let mut all = Vec::new();
        while let Ok(t) = self.received.try_recv() {
            all.push(t);
        }
        all
    }
}

async fn converse(stream: tokio::net::TcpStream) -> String {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let mut transcript = String::new();
    if write.write_all(b"220 fake ESMTP\r\n").await.is_err() {
        return transcript;
    }
    let mut in_data = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
            break;
        }
        transcript.push_str(&line);
        if in_data {
            if line == ".\r\n" {
                in_data = false;
                let _ = write.write_all(b"250 queued\r\n").await;
            }
            continue;
        }
        let answer: &[u8] = match line.get(..4).unwrap_or("").to_ascii_uppercase().as_str() {
            "EHLO" => b"250-fake\r\n250 8BITMIME\r\n",
            "DATA" => {
                in_data = true;
                b"354 go ahead\r\n"
            }
            "QUIT" => {
                let _ = write.write_all(b"221 bye\r\n").await;
                break;
            }
            _ => b"250 ok\r\n",
        };
        if write.write_all(answer).await.is_err() {
            break;
        }
    }
    transcript
}
