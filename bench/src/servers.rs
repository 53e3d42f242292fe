//! The servers under test, as child processes: the floor, and Roadlog on a database. Each is
//! started on a free loopback port, waited for on `/health`, and stopped at the end, when its
//! peak resident memory is read.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

pub struct Server {
    pub name: &'static str,
    pub url: String,
    child: Child,
}

fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?.port())
}

impl Server {
    /// The floor server, from its binary: in memory, or answering the database floor's case
    /// from `database_url` (see `floor.rs`).
    pub fn floor(name: &'static str, binary: &Path, database_url: Option<&str>) -> Result<Server> {
        let port = free_port()?;
        let child = Command::new(binary)
            .arg(format!("127.0.0.1:{port}"))
            .args(database_url)
            .stdout(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Server::ready(name, port, child)
    }

    /// The in-memory floor served through Roadlog's listener and middleware (`--dressed`, see
    /// `floor.rs`), logging as Roadlog does (its default filter, the lines kept in `log`).
    pub fn dressed_floor(name: &'static str, binary: &Path, log: &Path) -> Result<Server> {
        let port = free_port()?;
        let log = std::fs::File::create(log).context("creating the server's log file")?;
        let child = Command::new(binary)
            .arg(format!("127.0.0.1:{port}"))
            .arg("--dressed")
            .env("RUST_LOG", roadlog::telemetry::logging::DEFAULT_FILTER)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Server::ready(name, port, child)
    }

    /// Roadlog serving `database_url` in the sandbox, its log (default level, as operators run
    /// it, or only warnings when `quiet`: no access-log line) kept in `log`. The per-client token
    /// rate limit is raised so that the token case measures the endpoint, not the limiter.
    pub fn roadlog(name: &'static str, binary: &Path, database_url: &str, log: &Path, quiet: bool) -> Result<Server> {
        let port = free_port()?;
        let log = std::fs::File::create(log).context("creating the server's log file")?;
        let child = Command::new(binary)
            .args(["serve", "--environment", "sandbox", "--client-rate-limit", "100000000"])
            // No card keys generated in the background while the cases run (no case exports).
            .args(["--card-key-pool", "0"])
            .arg("--database-url")
            .arg(database_url)
            .arg("--bind")
            .arg(format!("127.0.0.1:{port}"))
            .env(
                "RUST_LOG",
                if quiet {
                    "warn"
                } else {
                    roadlog::telemetry::logging::DEFAULT_FILTER
                },
            )
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        Server::ready(name, port, child)
    }

    fn ready(name: &'static str, port: u16, mut child: Child) -> Result<Server> {
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(status) = child.try_wait()? {
                bail!("{name} exited at start-up ({status})");
            }
            if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
                use std::io::{Read, Write};
                let _ = stream.write_all(b"GET /health HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n");
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                if answer.starts_with("HTTP/1.1 200") {
                    return Ok(Server { name, url, child });
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        bail!("{name} did not answer /health within 60 s")
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Peak resident memory so far, in MiB (Linux's `VmHWM`).
    pub fn peak_mib(&self) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|kib| kib.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
