//! `offsetlab-prerender [INDEX_HTML]`: renders the page's first render with
//! Yew's server renderer and writes it into the built `index.html`, in place
//! of the marker `index.html` holds (`offsetlab_web::prerender::MARKER`).
//!
//! Trunk runs it after every build (`Trunk.toml`, `[[hooks]] stage =
//! "post_build"`), on `$TRUNK_STAGING_DIR/index.html`, before the staged
//! files move to `dist/`. The HTML comes from the page's own components, so
//! the prerender follows whatever they render; nothing here knows the layout.
//! It also writes the built-in scenarios the page fetches beside `index.html`
//! and names that file in it ([`builtins`]). As trunk's hook, it first splits
//! the page's wasm in two ([`split`]).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod builtins;
mod render;
mod split;

/// `text` with its one `from` replaced by `to`, or how many `from` it has
/// when that is not one: each text the hook fills in has its place once.
fn replace_once(text: &str, from: &str, to: &str) -> Result<String, usize> {
    match text.matches(from).count() {
        1 => Ok(text.replacen(from, to, 1)),
        n => Err(n),
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("offsetlab-prerender: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<String, String> {
    let path = match (env::args_os().nth(1), env::var_os("TRUNK_STAGING_DIR")) {
        (Some(path), _) => PathBuf::from(path),
        (None, Some(staging)) => PathBuf::from(staging).join("index.html"),
        (None, None) => {
            return Err("usage: offsetlab-prerender INDEX_HTML (or run as a trunk hook, \
                        which sets TRUNK_STAGING_DIR)"
                .to_owned());
        }
    };
    let mut report = String::new();
    if let Some(staging) = env::var_os("TRUNK_STAGING_DIR") {
        let release = env::var_os("TRUNK_PROFILE").is_some_and(|p| p == "release");
        let split = split::run(Path::new(&staging), &split::target_dir(), release)?;
        let files: Vec<String> =
            split.written.iter().map(|(name, bytes)| format!("{name} ({bytes} bytes)")).collect();
        report = format!("split the wasm: {}\n", files.join(", "));
    }
    let page = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let html = render::first_render();
    let (file, content) = builtins::file();
    let written = builtins::name_in(&render::inject(&page, &html)?, &file)?;
    let beside = path.with_file_name(&file);
    fs::write(&beside, &content).map_err(|e| format!("cannot write {}: {e}", beside.display()))?;
    fs::write(&path, &written).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!(
        "{report}prerendered the page into {} ({} bytes of HTML), and its built-ins into {file} ({} bytes)",
        path.display(),
        html.len(),
        content.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::replace_once;

    #[test]
    fn replace_once_refuses_none_and_two() {
        assert_eq!(
            replace_once("a \"./x.wasm\" b", "\"./x.wasm\"", "\"./y.wasm\""),
            Ok("a \"./y.wasm\" b".to_owned())
        );
        assert_eq!(replace_once("nothing", "x", "y"), Err(0));
        assert_eq!(replace_once("x x", "x", "y"), Err(2));
    }
}
