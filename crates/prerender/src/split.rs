//! The page's wasm, split in two: the first screen's code, and the parts
//! below it (`offsetlab_web::below`), fetched once the page is usable.
//!
//! Trunk builds the page's crate with the `split` feature (index.html), whose
//! build script keeps the link's relocations (`--emit-relocs`), and runs
//! wasm-bindgen and no wasm-opt; this hook then makes the page's wasm itself
//! from cargo's: it cuts cargo's module at its split point
//! (`wasm_split_cli_support`), runs wasm-bindgen on the first part (keeping
//! the exports the second imports), wasm-opt on both parts in a release
//! build, and puts them in place of trunk's wasm and js, with their
//! integrity in `index.html`. The second part and its loader are named after
//! trunk's js, whose name changes with every build's code, so a page never
//! loads another build's part.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use sha2::{Digest as _, Sha384};

/// The cargo profile trunk builds a release page with (index.html's
/// `data-cargo-profile-release`; a test holds them together).
pub const RELEASE_PROFILE: &str = "wasm-release";

/// wasm-opt's flags for a release build, on each part. `-Oz` inlines every
/// function that has one caller, however large; a
/// one-caller-inline-max-function-size of 20 keeps that to small ones, since
/// the browser compiles each function on its first call: one 53 KB function
/// held the whole scenario reader, and every branch of it was compiled before
/// the first render (docs/page-build.md).
pub const WASM_OPT_FLAGS: &[&str] = &[
    "-Oz",
    "--low-memory-unused",
    "--converge",
    "--strip-producers",
    "--strip-target-features",
    "--one-caller-inline-max-function-size=20",
];

/// The page's binary, as cargo and trunk name it.
const BIN: &str = "offsetlab-web";

/// What [`run`] made, for the hook's report.
#[derive(Debug)]
pub struct Split {
    /// The staged files it wrote, each with its size in bytes.
    pub written: Vec<(String, u64)>,
}

/// Splits the page's wasm in `staging` (trunk's staging directory, whose
/// `index.html` names trunk's js and wasm), from cargo's module for
/// `release` or a dev build under `target_dir`.
pub fn run(staging: &Path, target_dir: &Path, release: bool) -> Result<Split, String> {
    let js_name = staged(staging, |n| n.starts_with(&format!("{BIN}-")) && n.ends_with(".js"))?;
    let wasm_name = staged(staging, |n| n.starts_with(&format!("{BIN}-")) && n.ends_with("_bg.wasm"))?;
    let js_stem = js_name.trim_end_matches(".js");
    let profile = if release { RELEASE_PROFILE } else { "debug" };
    let cargo_wasm = target_dir.join("wasm32-unknown-unknown").join(profile).join(format!("{BIN}.wasm"));
    let input = fs::read(&cargo_wasm)
        .map_err(|e| format!("cannot read cargo's wasm {}: {e}", cargo_wasm.display()))?;

    let work = target_dir.join("offsetlab-split");
    if work.exists() {
        fs::remove_dir_all(&work).map_err(|e| format!("cannot empty {}: {e}", work.display()))?;
    }
    let cut = work.join("cut");
    fs::create_dir_all(&cut).map_err(|e| format!("cannot create {}: {e}", cut.display()))?;
    let main_cut = cut.join(format!("{BIN}.wasm"));
    let loader_name = format!("{js_stem}-split.js");
    let link_name = format!("./{loader_name}");
    let main_module = format!("./{js_name}");
    let mut options = wasm_split_cli_support::Options::new(&input);
    options.output_dir = &cut;
    options.main_out_path = &main_cut;
    options.link_name = &link_name;
    options.main_module = &main_module;
    let parts = wasm_split_cli_support::transform(options).map_err(|e| {
        format!(
            "cannot split {} ({e}); was it built with the page's `split` feature, which keeps the \
             relocations (crates/web/build.rs)?",
            cargo_wasm.display()
        )
    })?;
    if parts.split_modules.len() != 1 {
        return Err(format!(
            "the split made {} parts besides the first, not one (the `below` split point of \
             crates/web/src/below.rs): {:?}",
            parts.split_modules.len(),
            parts.split_modules
        ));
    }

    // wasm-bindgen on the first part, as trunk runs it, keeping the exports
    // the second part imports (the memory, the table, shared functions).
    let bindgen = work.join("bindgen");
    run_tool(Command::new("wasm-bindgen").arg(&main_cut).arg("--out-dir").arg(&bindgen).args([
        "--out-name",
        BIN,
        "--target",
        "web",
        "--no-typescript",
        "--keep-lld-exports",
    ]))?;

    let below_cut = &parts.split_modules[0];
    let below_cut_name = file_name(below_cut)?;
    let below_name = format!("{js_stem}-below.wasm");
    let loader = fs::read_to_string(cut.join(&loader_name))
        .map_err(|e| format!("cannot read the split's loader {loader_name}: {e}"))?;
    let cut_path = format!("\"./{below_cut_name}\"");
    let loader = crate::replace_once(&loader, &cut_path, &format!("\"./{below_name}\""))
        .map_err(|n| format!("the split's loader {loader_name} has {n} of {cut_path}, not one"))?;

    let mut page = fs::read_to_string(staging.join("index.html"))
        .map_err(|e| format!("cannot read {}: {e}", staging.join("index.html").display()))?;
    let mut written = Vec::new();
    let mut place = |from: &Path, name: &str, optimize: bool| -> Result<(), String> {
        let to = staging.join(name);
        let before = fs::read(&to).ok();
        if optimize {
            run_tool(Command::new("wasm-opt").args(WASM_OPT_FLAGS).arg(from).arg("-o").arg(&to))?;
        } else {
            fs::copy(from, &to)
                .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
        }
        let after = fs::read(&to).map_err(|e| format!("cannot read {}: {e}", to.display()))?;
        // Trunk's integrity of a file it staged follows the file's new bytes.
        if let Some(before) = before {
            page = page.replace(&integrity(&before), &integrity(&after));
        }
        written.push((name.to_owned(), after.len() as u64));
        Ok(())
    };
    place(&bindgen.join(format!("{BIN}_bg.wasm")), &wasm_name, release)?;
    place(below_cut, &below_name, release)?;
    place(&bindgen.join(format!("{BIN}.js")), &js_name, false)?;
    let loader_path = work.join(&loader_name);
    fs::write(&loader_path, loader).map_err(|e| format!("cannot write {}: {e}", loader_path.display()))?;
    place(&loader_path, &loader_name, false)?;
    let index = staging.join("index.html");
    fs::write(&index, page).map_err(|e| format!("cannot write {}: {e}", index.display()))?;
    Ok(Split { written })
}

/// The one file in `dir` whose name `matches`.
fn staged(dir: &Path, matches: impl Fn(&str) -> bool) -> Result<String, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| matches(name))
        .collect();
    match names.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!("expected one of trunk's {BIN} files in {}, found {names:?}", dir.display())),
    }
}

fn file_name(path: &Path) -> Result<String, String> {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("a part without a file name: {}", path.display()))
}

fn run_tool(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let output = command.output().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({}): {}", output.status, String::from_utf8_lossy(&output.stderr)))
    }
}

/// A subresource integrity value, as trunk writes it: `sha384-` and the base64 digest.
#[must_use]
pub fn integrity(bytes: &[u8]) -> String {
    format!("sha384-{}", base64::engine::general_purpose::STANDARD.encode(Sha384::digest(bytes)))
}

/// Cargo's target directory, as trunk's build used it: `CARGO_TARGET_DIR`, or
/// the workspace's `target/`.
#[must_use]
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"), PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrity_is_trunks_sha384() {
        // `printf abc | openssl dgst -sha384 -binary | base64`
        assert_eq!(
            integrity(b"abc"),
            "sha384-ywB1P0WjXou1oD1pmsZQBycsMqsO3tFjGotgWkP/W+2AhgcroefMI1i67KE0yCWn"
        );
    }

    /// The page's build and this hook agree: trunk builds the split feature
    /// with the profile this hook reads, and leaves wasm-opt to it.
    #[test]
    fn index_html_builds_what_the_hook_splits() {
        let page =
            fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../index.html")).unwrap();
        assert!(page.contains(&format!("data-cargo-profile-release=\"{RELEASE_PROFILE}\"")));
        assert!(page.contains("data-cargo-features=\"split\""));
        assert!(page.contains("data-wasm-opt=\"0\""));
    }
}
