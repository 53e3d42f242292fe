//! `--profile DIR`: a CPU profile of the server during each case's first round, for finding
//! where a case's time goes. `perf record -e cpu-clock` (these virtual machines have no hardware
//! cycle counter) samples the server's process with call graphs while wrk loads it; the samples
//! are folded into one line per stack (`inferno-collapse-perf`) and drawn as a flame graph
//! (`inferno-flamegraph`) when those tools are installed (`cargo install inferno`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result};

/// A running `perf record` of one server during one case.
pub struct Recording {
    child: Child,
    data: PathBuf,
}

/// Starts sampling `pid` into `DIR/<server>-<case>.perf.data`.
pub fn start(dir: &Path, server: &str, case: &str, pid: u32) -> Result<Recording> {
    std::fs::create_dir_all(dir)?;
    let data = dir.join(format!("{server}-{case}.perf.data"));
    let child = Command::new("perf")
        .args([
            "record",
            "-e",
            "cpu-clock",
            "-F",
            "499",
            "--call-graph",
            "dwarf,8192",
            "-q",
            "-o",
        ])
        .arg(&data)
        .arg("-p")
        .arg(pid.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("running perf (apt-get install linux-perf)")?;
    Ok(Recording { child, data })
}

impl Recording {
    /// Stops sampling (SIGINT, as perf expects), then folds and draws the profile if inferno is
    /// installed; returns the files written.
    pub fn finish(mut self) -> Result<Vec<PathBuf>> {
        // perf writes its data file on SIGINT; kill(1) is the portable way to send it.
        Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .context("stopping perf")?;
        self.child.wait()?;
        let mut written = vec![self.data.clone()];
        let script = Command::new("perf")
            .args(["script", "-i"])
            .arg(&self.data)
            .stderr(Stdio::null())
            .output()
            .context("perf script")?;
        let folded_path = self.data.with_extension("folded");
        let Ok(folded) = pipe("inferno-collapse-perf", &script.stdout) else {
            return Ok(written);
        };
        std::fs::write(&folded_path, &folded)?;
        written.push(folded_path);
        if let Ok(svg) = pipe("inferno-flamegraph", &folded) {
            let svg_path = self.data.with_extension("svg");
            std::fs::write(&svg_path, svg)?;
            written.push(svg_path);
        }
        Ok(written)
    }
}

/// Runs `program` with `input` on its standard input and returns its standard output.
fn pipe(program: &str, input: &[u8]) -> Result<Vec<u8>> {
    use std::io::Write;
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("running {program}"))?;
    child.stdin.take().context("stdin")?.write_all(input)?;
    let output = child.wait_with_output()?;
    anyhow::ensure!(output.status.success(), "{program} failed");
    Ok(output.stdout)
}
