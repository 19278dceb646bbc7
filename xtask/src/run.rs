//! Running child processes with the tools' PATH, and timing steps.

use std::env;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

pub type Result<T = ()> = std::result::Result<T, String>;

/// The repository root and the PATH every child process gets.
#[derive(Debug)]
pub struct Ctx {
    pub root: PathBuf,
    path: OsString,
}

impl Ctx {
    pub fn new() -> Result<Ctx> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .ok_or("xtask's manifest directory has no parent")?
            .to_path_buf();
        // Tools installed by `npm ci` and `cargo install` come first, whether or not the user's
        // shell has them on PATH, so trunk finds wasm-opt and cargo finds the test runner.
        let mut dirs = vec![root.join("node_modules").join(".bin")];
        dirs.extend(cargo_bin_dir());
        dirs.extend(env::var_os("PATH").iter().flat_map(env::split_paths));
        let path = env::join_paths(dirs).map_err(|e| format!("cannot build PATH: {e}"))?;
        Ok(Ctx { root, path })
    }

    /// `program` run from the repository root with the tools' PATH.
    pub fn cmd(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root).env("PATH", &self.path);
        cmd
    }

    pub fn cargo(&self) -> Command {
        self.cmd("cargo")
    }

    /// trunk, without its update check (which would reach the network).
    pub fn trunk(&self) -> Command {
        let mut cmd = self.cmd("trunk");
        cmd.env("TRUNK_SKIP_VERSION_CHECK", "true");
        cmd
    }
}

/// `$CARGO_HOME/bin`, where `cargo install` puts binaries.
fn cargo_bin_dir() -> Option<PathBuf> {
    let home = env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))?;
    Some(home.join("bin"))
}

/// The command line, for messages.
pub fn describe(cmd: &Command) -> String {
    let mut words = vec![cmd.get_program().to_string_lossy().into_owned()];
    words.extend(cmd.get_args().map(|arg| arg.to_string_lossy().into_owned()));
    words.join(" ")
}

/// Runs `cmd` with inherited stdio; an error names the command.
pub fn run(cmd: &mut Command) -> Result {
    let status = cmd.status().map_err(|e| format!("cannot start `{}`: {e}", describe(cmd)))?;
    if status.success() { Ok(()) } else { Err(format!("`{}` failed ({status})", describe(cmd))) }
}

/// Runs `cmd` quietly and returns its trimmed stdout, or `None` if it can't start or fails.
pub fn probe(cmd: &mut Command) -> Option<String> {
    let output = cmd.stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The `n`th whitespace-separated word of `text`'s first line: `trunk 0.22.1` → `0.22.1`.
pub fn word(text: &str, n: usize) -> Option<String> {
    text.lines().next()?.split_whitespace().nth(n).map(str::to_owned)
}

/// Runs one named step, printing its elapsed time and the disk space left after it; a failure
/// names the step.
pub fn step(name: &str, body: impl FnOnce() -> Result) -> Result {
    println!("\n==> {name}");
    let start = Instant::now();
    let result = body();
    let secs = start.elapsed().as_secs_f64();
    let disk = disk_free_text();
    match result {
        Ok(()) => {
            println!("<== {name}: ok in {secs:.1}s; {disk}");
            Ok(())
        }
        Err(message) => {
            println!("<== {name}: FAILED after {secs:.1}s; {disk}");
            Err(format!("step `{name}` failed: {message}"))
        }
    }
}

/// Where cargo writes: `$CARGO_TARGET_DIR`, or `target/` beside the workspace's manifest.
pub fn target_dir() -> PathBuf {
    match env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("target"),
    }
}

/// Bytes free to this user on the disk that holds the target directory (or the nearest of its
/// ancestors that exists), or `None` where the system does not say.
pub fn disk_free_bytes() -> Option<u64> {
    let target = target_dir();
    let existing = target.ancestors().find(|dir| dir.exists())?;
    fs4::available_space(existing).ok()
}

/// `"disk: 41.3 GB free"` for the step lines: a full disk is the likeliest failure of a clean run
/// that is not the project's own, and this line is how its log shows it.
pub fn disk_free_text() -> String {
    match disk_free_bytes() {
        Some(bytes) => format!("disk: {} free", gigabytes(bytes)),
        None => "disk: free space unknown".to_owned(),
    }
}

/// Bytes as decimal gigabytes with one decimal: `41_300_000_000` → `41.3 GB`.
pub fn gigabytes(bytes: u64) -> String {
    // Tenths of a gigabyte, rounded, in integers: no float formatting surprises.
    let tenths = (bytes + 50_000_000) / 100_000_000;
    format!("{}.{} GB", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_takes_from_the_first_line() {
        assert_eq!(word("trunk 0.22.1\nmore", 1).as_deref(), Some("0.22.1"));
        assert_eq!(word("wasm-opt version 132 (version_132)", 2).as_deref(), Some("132"));
        assert_eq!(word("", 0), None);
    }

    #[test]
    fn gigabytes_round_to_a_tenth() {
        assert_eq!(gigabytes(41_300_000_000), "41.3 GB");
        assert_eq!(gigabytes(287_000_000), "0.3 GB");
        assert_eq!(gigabytes(49_999_999), "0.0 GB");
        assert_eq!(gigabytes(950_000_000), "1.0 GB");
    }

    #[test]
    fn describe_joins_program_and_args() {
        let mut cmd = Command::new("cargo");
        cmd.args(["fmt", "--all"]);
        assert_eq!(describe(&cmd), "cargo fmt --all");
    }
}
