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

/// Runs one named step, printing its elapsed time; a failure names the step.
pub fn step(name: &str, body: impl FnOnce() -> Result) -> Result {
    println!("\n==> {name}");
    let start = Instant::now();
    let result = body();
    let secs = start.elapsed().as_secs_f64();
    match result {
        Ok(()) => {
            println!("<== {name}: ok in {secs:.1}s");
            Ok(())
        }
        Err(message) => {
            println!("<== {name}: FAILED after {secs:.1}s");
            Err(format!("step `{name}` failed: {message}"))
        }
    }
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
    fn describe_joins_program_and_args() {
        let mut cmd = Command::new("cargo");
        cmd.args(["fmt", "--all"]);
        assert_eq!(describe(&cmd), "cargo fmt --all");
    }
}
