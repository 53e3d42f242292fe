//! The `roadlog` binary run as an operator runs it: a child process, its standard output and
//! standard error kept, the server's address read from its start-up log line.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// `roadlog ARGS…` with the given environment (and nothing inherited that could change it).
pub fn command(args: &[&str], envs: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_roadlog"));
    command.args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("ROADLOG_") || key == "DATABASE_URL" || key == "RUST_LOG" {
            command.env_remove(key);
        }
    }
    // No card keys generated in the background by the servers of the tests (a core for ~15 s
    // each); a test may still set it.
    command.env("ROADLOG_CARD_KEY_POOL", "0");
    command.envs(envs.iter().copied());
    command
}

/// A `roadlog serve` child process.
pub struct ServerProcess {
    child: Child,
    pub addr: String,
    stderr: Arc<Mutex<Vec<String>>>,
    stdout: Arc<Mutex<Vec<u8>>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl ServerProcess {
    /// Starts `roadlog serve --bind 127.0.0.1:0 ARGS…` and waits for the line that says it
    /// serves (read as it is written, no timer).
    pub fn start(args: &[&str], envs: &[(&str, &str)]) -> ServerProcess {
        Self::start_limited(args, envs, None)
    }

    /// The same, the process started with this soft limit of open files (as a shell with
    /// `ulimit -Sn` would start it).
    pub fn start_limited(args: &[&str], envs: &[(&str, &str)], soft_file_limit: Option<u64>) -> ServerProcess {
        let mut all = vec!["serve", "--bind", "127.0.0.1:0"];
        all.extend_from_slice(args);
        let mut command = command(&all, envs);
        if let Some(limit) = soft_file_limit {
            use std::os::unix::process::CommandExt;
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let mut current = libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    };
                    libc::getrlimit(libc::RLIMIT_NOFILE, &mut current);
                    let lowered = libc::rlimit {
                        rlim_cur: limit,
                        rlim_max: current.rlim_max,
                    };
                    libc::setrlimit(libc::RLIMIT_NOFILE, &lowered);
                    Ok(())
                });
            }
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("roadlog starts");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = stderr.clone();
        let pipe = child.stderr.take().unwrap();
        let mut readers = Vec::new();
        readers.push(std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if line.contains("roadlog is serving")
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send(line.clone());
                }
                lines.lock().unwrap().push(line);
            }
        }));
        let out = stdout.clone();
        let mut pipe = child.stdout.take().unwrap();
        readers.push(std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            out.lock().unwrap().extend(bytes);
        }));
        let line = rx.recv().unwrap_or_else(|_| {
            let _ = child.wait();
            panic!("the server did not start: {:?}", stderr.lock().unwrap())
        });
        let addr = address_in(&line).unwrap_or_else(|| panic!("no address in {line:?}"));
        ServerProcess {
            child,
            addr,
            stderr,
            stdout,
            readers,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The process's peak resident memory so far, in MiB (Linux `VmHWM`).
    pub fn peak_mib(&self) -> f64 {
        status_kib(self.pid(), "VmHWM:") / 1024.0
    }

    /// The process's resident memory now, in MiB.
    pub fn resident_mib(&self) -> f64 {
        status_kib(self.pid(), "VmRSS:") / 1024.0
    }

    /// Sends SIGTERM and waits for the process: its exit status.
    pub fn terminate(mut self) -> (std::process::ExitStatus, Vec<String>, Vec<u8>) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let status = self.child.wait().unwrap();
        // The readers end when the pipes close with the process.
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
        let stderr = self.stderr.lock().unwrap().clone();
        let stdout = self.stdout.lock().unwrap().clone();
        (status, stderr, stdout)
    }

    /// What the server logged so far.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `address=127.0.0.1:1234` in a human line, or `"address":"127.0.0.1:1234"` in a JSON one.
fn address_in(line: &str) -> Option<String> {
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(line) {
        return json["address"].as_str().map(str::to_string);
    }
    let start = line.find("address=")? + "address=".len();
    Some(line[start..].split_whitespace().next()?.to_string())
}

fn status_kib(pid: u32, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}
