//! Driving one case with wrk: a Lua script per case (a fixed request, or requests built per call
//! for the write cases), and the summary wrk prints at the end, read back as JSON.

use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

/// What a case sends.
pub enum Requests {
    /// One request, formatted once by wrk.
    Fixed {
        method: &'static str,
        path: String,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// A Lua `request()` function (with what it needs defined before it), built per call.
    Scripted(String),
}

/// One wrk run.
pub struct Load<'a> {
    pub base_url: &'a str,
    pub requests: &'a Requests,
    pub connections: u32,
    pub duration: Duration,
    /// When set, every response is checked: a status other than this one, or a body carrying
    /// GraphQL `"errors"` when it is 200, counts as an error.
    pub check_status: Option<u16>,
}

/// What wrk measured.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
pub struct Outcome {
    pub requests: u64,
    pub duration_us: u64,
    pub p50_us: u64,
    pub p99_us: u64,
    /// Connect, read, write and timeout errors, and statuses other than 2xx/3xx.
    pub errors: u64,
    /// Responses that failed the case's check (see [`Load::check_status`]).
    pub unexpected: u64,
    /// Bytes read from the server, headers included (wrk's `summary.bytes`).
    #[serde(default)]
    pub bytes: u64,
}

impl Outcome {
    pub fn rps(&self) -> f64 {
        self.requests as f64 / (self.duration_us as f64 / 1e6)
    }

    /// Bytes a response took on the wire, headers included.
    pub fn bytes_per_response(&self) -> f64 {
        self.bytes as f64 / self.requests.max(1) as f64
    }
}

fn lua_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn script(load: &Load) -> String {
    let mut lua = String::from(
        "local threads = {}\n\
         function setup(thread) table.insert(threads, thread); thread:set(\"tid\", #threads - 1) end\n\
         function init(args) unexpected = 0 end\n",
    );
    match load.requests {
        Requests::Fixed {
            method,
            path,
            headers,
            body,
        } => {
            lua.push_str(&format!(
                "wrk.method = {}\nwrk.path = {}\nwrk.body = {}\n",
                lua_string(method),
                lua_string(path),
                lua_string(body)
            ));
            for (name, value) in headers {
                lua.push_str(&format!("wrk.headers[{}] = {}\n", lua_string(name), lua_string(value)));
            }
        }
        Requests::Scripted(code) => lua.push_str(code),
    }
    if let Some(status) = load.check_status {
        lua.push_str(&format!(
            "function response(status, headers, body)\n\
               if status ~= {status} or (status == 200 and string.find(body, '\"errors\"', 1, true)) then\n\
                 unexpected = unexpected + 1\n\
                 if unexpected == 1 then io.write('BENCH-SAMPLE ' .. status .. ' ' .. string.sub(body, 1, 400) .. '\\n') end\n\
               end\n\
             end\n"
        ));
    }
    // When every status is checked, an expected error status (the token case's 400) is no error.
    let status_errors = if load.check_status.is_some() { "0" } else { "e.status" };
    lua.push_str(&
        "function done(summary, latency, requests)\n\
           local unexpected = 0\n\
           for _, t in ipairs(threads) do unexpected = unexpected + (t:get(\"unexpected\") or 0) end\n\
           local e = summary.errors\n\
           io.write(string.format('BENCH-JSON {\"requests\":%d,\"duration_us\":%d,\"p50_us\":%d,\"p99_us\":%d,\"errors\":%d,\"unexpected\":%d,\"bytes\":%d}\\n',\n\
             summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),\n\
             e.connect + e.read + e.write + e.timeout + STATUS_ERRORS, unexpected, summary.bytes))\n\
         end\n"
            .replace("STATUS_ERRORS", status_errors),
    );
    lua
}

/// Runs wrk (two threads, as many cores as the machine has for it to share; one for a single
/// connection) and reads its summary.
pub fn run(load: &Load, scratch: &std::path::Path) -> Result<Outcome> {
    let path = scratch.join("case.lua");
    std::fs::write(&path, script(load)).context("writing the wrk script")?;
    let threads = load.connections.clamp(1, 2);
    let output = Command::new("wrk")
        .arg(format!("-t{threads}"))
        .args(["--timeout", "10s", "-c"])
        .arg(load.connections.to_string())
        .arg("-d")
        .arg(format!("{}s", load.duration.as_secs().max(1)))
        .arg("-s")
        .arg(&path)
        .arg(load.base_url)
        .output()
        .context("running wrk (apt-get install wrk)")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("BENCH-JSON ")) else {
        bail!(
            "wrk printed no summary: {}{}",
            stdout,
            String::from_utf8_lossy(&output.stderr)
        );
    };
    // The first unexpected answer of each thread, so a failing case says why.
    for sample in stdout.lines().filter_map(|l| l.strip_prefix("BENCH-SAMPLE ")) {
        eprintln!("    unexpected answer: {sample}");
    }
    serde_json::from_str(line).context("reading wrk's summary")
}
