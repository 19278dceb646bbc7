//! Installing what a fresh machine lacks, and skipping what is present.
//!
//! Each tool prints one line: `ok <tool> <version>` or `installing <tool>…`.
//! Sources: Debian apt (node, npm, Chromium, chromedriver, gzip, a JDK ≥ 17 and Maven), rustup
//! (the wasm32 target), crates.io (trunk, wasm-bindgen-cli, the workspace's crates), npm
//! (binaryen's wasm-opt) and Maven Central (Apache Kafka and the conformance project's other
//! dependencies, through `mvn`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::pins;
use crate::run::{self, Ctx, Result, probe, word};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// Installed when `trunk --version` is missing or not 0.22.x (Trunk.toml has
/// `trunk-version = "^0.22"`).
const TRUNK_VERSION: &str = "0.22.1";
const TRUNK_SERIES: &str = "0.22.";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Everything: the page's tools and the conformance harness's.
pub fn all(ctx: &Ctx) -> Result {
    page(ctx)?;
    conformance(ctx)
}

/// What serving, testing and measuring the page needs.
pub fn page(ctx: &Ctx) -> Result {
    system_packages(ctx, &APT_TOOLS)?;
    wasm_target(ctx)?;
    trunk(ctx)?;
    wasm_bindgen(ctx)?;
    binaryen(ctx)?;
    crates(ctx)
}

/// What `cargo xtask conformance` needs: Java ≥ 17, Maven, and the Maven project built (which
/// resolves Kafka and the other dependencies; incremental).
pub fn conformance(ctx: &Ctx) -> Result {
    java_tools(ctx)?;
    let built = maven_build(ctx)?;
    println!("ok conformance classes ({} jars on the classpath, Maven Central)", built.classpath.len());
    Ok(())
}

/// A tool that comes from a Debian package.
struct AptTool {
    name: &'static str,
    package: &'static str,
    /// The installed version, or `None` when missing.
    version: fn(&Ctx) -> Option<String>,
}

const APT_TOOLS: [AptTool; 5] = [
    AptTool { name: "node", package: "nodejs", version: |ctx| probe(ctx.cmd("node").arg("--version")) },
    AptTool { name: "npm", package: "npm", version: |ctx| probe(ctx.cmd("npm").arg("--version")) },
    AptTool { name: "chromium", package: "chromium", version: |ctx| installed_version(ctx, CHROMIUM) },
    AptTool {
        name: "chromedriver",
        package: "chromium-driver",
        version: |ctx| installed_version(ctx, CHROMEDRIVER),
    },
    AptTool {
        name: "gzip",
        package: "gzip",
        version: |ctx| probe(ctx.cmd("gzip").arg("--version")).and_then(|out| word(&out, 1)),
    },
];

/// Java ≥ 17 and Maven, from apt when missing.
pub fn java_tools(ctx: &Ctx) -> Result {
    system_packages(ctx, &JAVA_TOOLS)
}

/// The oldest Java the conformance project compiles for (its pom's maven.compiler.release).
const JAVA_MIN_MAJOR: u32 = 17;

const JAVA_TOOLS: [AptTool; 2] = [
    AptTool { name: "java", package: "openjdk-17-jdk-headless", version: java_version },
    AptTool {
        name: "mvn",
        package: "maven",
        version: |ctx| {
            let out = probe(ctx.cmd("mvn").args(["-B", "--version"]))?;
            word(&strip_ansi(&out), 2)
        },
    },
];

/// `java --version` (`openjdk 17.0.15 2025-04-15` → `17.0.15`) when it is at least
/// [`JAVA_MIN_MAJOR`] and a `javac` comes with it (Maven compiles with it); otherwise `None`, so
/// the JDK package is installed.
fn java_version(ctx: &Ctx) -> Option<String> {
    let version = probe(ctx.cmd("java").arg("--version")).and_then(|out| word(&out, 1))?;
    probe(ctx.cmd("javac").arg("--version"))?;
    (java_major(&version)? >= JAVA_MIN_MAJOR).then_some(version)
}

/// `17.0.15` → 17, `1.8.0_392` → 8, `21` → 21.
fn java_major(version: &str) -> Option<u32> {
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 { parts.next()?.parse().ok() } else { Some(first) }
}

/// `text` without ANSI colour sequences (`ESC [ … m`): Maven colours even `--version`.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The conformance project, as Maven built it.
#[derive(Debug)]
pub struct MavenBuild {
    /// The dependencies' jars, in Maven's order.
    pub classpath: Vec<PathBuf>,
    /// The project's own classes.
    pub jar: PathBuf,
}

/// `target/conformance` under the repository root: where the pom sends Maven's output and the
/// harness writes its files.
pub fn conformance_dir(ctx: &Ctx) -> PathBuf {
    ctx.root.join("target").join("conformance")
}

/// `mvn package dependency:build-classpath` on conformance/pom.xml: downloads what
/// ~/.m2 lacks from Maven Central, compiles the project's classes into their jar and writes the
/// dependencies' classpath to target/conformance/classpath.txt. A failure gives the command and
/// Maven's own output.
pub fn maven_build(ctx: &Ctx) -> Result<MavenBuild> {
    let dir = conformance_dir(ctx);
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let classpath_file = dir.join("classpath.txt");
    let mut mvn = ctx.cmd("mvn");
    mvn.args(["-q", "-B", "-Dstyle.color=never", "-f", "conformance/pom.xml"])
        .args(["package", "dependency:build-classpath"])
        .arg(format!("-Dmdep.outputFile={}", classpath_file.display()))
        .stdin(Stdio::null());
    let output = mvn.output().map_err(|e| format!("cannot start `{}`: {e}", run::describe(&mvn)))?;
    if !output.status.success() {
        let mut said = strip_ansi(&String::from_utf8_lossy(&output.stdout));
        said.push_str(&strip_ansi(&String::from_utf8_lossy(&output.stderr)));
        return Err(format!(
            "`{}` failed ({}); it needs Maven Central (https://repo.maven.apache.org) for what \
             ~/.m2 lacks. Maven said:\n{}",
            run::describe(&mvn),
            output.status,
            said.trim()
        ));
    }
    let text = fs::read_to_string(&classpath_file)
        .map_err(|e| format!("Maven wrote no classpath to {}: {e}", classpath_file.display()))?;
    let classpath: Vec<PathBuf> = std::env::split_paths(text.trim()).collect();
    let jar = dir.join("maven").join(format!("offsetlab-conformance-{}.jar", env!("CARGO_PKG_VERSION")));
    if !jar.exists() {
        return Err(format!("Maven succeeded but {} is missing", jar.display()));
    }
    Ok(MavenBuild { classpath, jar })
}

/// `Chromium 156.0.8078.108 built on …` → `156.0.8078.108`, for a binary that must exist at `path`.
fn installed_version(ctx: &Ctx, path: &str) -> Option<String> {
    if !Path::new(path).exists() {
        return None;
    }
    let version = probe(ctx.cmd(path).arg("--version")).and_then(|out| word(&out, 1));
    Some(version.unwrap_or_else(|| "(version unknown)".to_owned()))
}

fn system_packages(ctx: &Ctx, tools: &[AptTool]) -> Result {
    let mut missing = Vec::new();
    for tool in tools {
        match (tool.version)(ctx) {
            Some(version) => println!("ok {} {version}", tool.name),
            None => {
                println!("installing {}… (apt package {})", tool.name, tool.package);
                missing.push(tool);
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing.iter().map(|tool| tool.package).collect();
    apt_install(ctx, &packages)?;
    for tool in missing {
        let version = (tool.version)(ctx)
            .ok_or_else(|| format!("{} is still missing after installing {}", tool.name, tool.package))?;
        println!("ok {} {version}", tool.name);
    }
    Ok(())
}

/// `apt-get update` then `apt-get install -y <packages>`, through sudo when not root.
fn apt_install(ctx: &Ctx, packages: &[&str]) -> Result {
    let list = packages.join(" ");
    if probe(ctx.cmd("apt-get").arg("--version")).is_none() {
        return Err(format!("apt-get not found: install {list} with the system's package manager"));
    }
    let root = probe(ctx.cmd("id").arg("-u")).as_deref() == Some("0");
    let sudo = !root;
    if sudo && probe(ctx.cmd("sudo").arg("--version")).is_none() {
        return Err(format!("installing {list} needs root: run as root, or install sudo"));
    }
    let apt_get = |args: &[&str]| {
        let mut cmd = if sudo { ctx.cmd("sudo") } else { ctx.cmd("env") };
        if sudo {
            cmd.arg("env");
        }
        cmd.arg("DEBIAN_FRONTEND=noninteractive").arg("apt-get").args(args);
        cmd
    };
    run::run(&mut apt_get(&["update"]))?;
    let mut install = apt_get(&["install", "-y"]);
    install.args(packages);
    run::run(&mut install)
}

fn wasm_target(ctx: &Ctx) -> Result {
    let rustc = probe(ctx.cmd("rustc").arg("--version")).and_then(|out| word(&out, 1));
    let rustc = rustc.unwrap_or_else(|| "(version unknown)".to_owned());
    let installed = probe(ctx.cmd("rustup").args(["target", "list", "--installed"]));
    if installed.as_deref().is_some_and(|list| list.lines().any(|line| line.trim() == WASM_TARGET)) {
        println!("ok {WASM_TARGET} target (rustc {rustc})");
        return Ok(());
    }
    if probe(ctx.cmd("rustup").arg("--version")).is_none() {
        return Err(format!("rustup not found: add the {WASM_TARGET} target to the Rust toolchain"));
    }
    println!("installing {WASM_TARGET} target… (rustup)");
    run::run(ctx.cmd("rustup").args(["target", "add", WASM_TARGET]))
}

fn trunk_version(ctx: &Ctx) -> Option<String> {
    probe(ctx.cmd("trunk").arg("--version")).and_then(|out| word(&out, 1))
}

fn trunk(ctx: &Ctx) -> Result {
    let found = trunk_version(ctx);
    if let Some(version) = found.as_deref().filter(|v| v.starts_with(TRUNK_SERIES)) {
        println!("ok trunk {version}");
        return Ok(());
    }
    let instead = found.map(|v| format!(", replacing {v}")).unwrap_or_default();
    println!("installing trunk {TRUNK_VERSION}… (cargo install, several minutes{instead})");
    run::run(ctx.cargo().args([
        "install",
        "--locked",
        "trunk",
        "--version",
        TRUNK_VERSION,
        "--ignore-rust-version",
    ]))?;
    let version = trunk_version(ctx).ok_or("trunk was installed but `trunk --version` fails")?;
    println!("ok trunk {version}");
    Ok(())
}

/// The wasm-bindgen version in Cargo.lock, which wasm-bindgen-cli must match exactly.
fn locked_wasm_bindgen(ctx: &Ctx) -> Result<String> {
    // Resolve first, so Cargo.lock exists and reflects the manifests as they are now.
    run::run(ctx.cargo().args(["metadata", "--format-version", "1"]).stdout(Stdio::null()))?;
    let lock = fs::read_to_string(ctx.root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    pins::lock_version(&lock, "wasm-bindgen")
        .ok_or_else(|| "Cargo.lock has no wasm-bindgen package; crates/web should depend on it".to_owned())
}

fn wasm_bindgen(ctx: &Ctx) -> Result {
    let want = locked_wasm_bindgen(ctx)?;
    // Both binaries come from the wasm-bindgen-cli crate; cargo's wasm32 runner is the second.
    let versions = || {
        ["wasm-bindgen", "wasm-bindgen-test-runner"]
            .map(|bin| probe(ctx.cmd(bin).arg("--version")).and_then(|out| word(&out, 1)))
    };
    let matches = |found: &[Option<String>; 2]| found.iter().all(|v| v.as_deref() == Some(want.as_str()));
    let found = versions();
    if matches(&found) {
        println!("ok wasm-bindgen {want}");
        return Ok(());
    }
    let instead = match &found[0] {
        Some(other) => format!(", replacing {other}"),
        None => String::new(),
    };
    println!("installing wasm-bindgen {want}… (cargo install wasm-bindgen-cli{instead})");
    run::run(ctx.cargo().args(["install", "wasm-bindgen-cli", "--version", &want, "--force"]))?;
    let found = versions();
    if !matches(&found) {
        return Err(format!("wasm-bindgen-cli {want} was installed but PATH finds {found:?}"));
    }
    println!("ok wasm-bindgen {want}");
    Ok(())
}

/// The exact binaryen version package.json pins, after checking Trunk.toml requires its wasm-opt.
fn pinned_binaryen(ctx: &Ctx) -> Result<String> {
    let read =
        |name: &str| fs::read_to_string(ctx.root.join(name)).map_err(|e| format!("cannot read {name}: {e}"));
    let want = pins::json_string(&read("package.json")?, "binaryen")
        .ok_or("package.json has no \"binaryen\" devDependency")?;
    if !pins::is_exact(&want) {
        return Err(format!("package.json must pin binaryen to an exact version, not {want:?}"));
    }
    let major = want.split('.').next().unwrap_or_default();
    let trunk_wants = pins::toml_string(&read("Trunk.toml")?, "wasm_opt");
    let expected = format!("version_{major}");
    if trunk_wants.as_deref() != Some(expected.as_str()) {
        return Err(format!(
            "Trunk.toml's [tools] wasm_opt is {trunk_wants:?} but package.json pins binaryen {want}: \
             set wasm_opt = \"{expected}\""
        ));
    }
    Ok(want)
}

fn binaryen(ctx: &Ctx) -> Result {
    let want = pinned_binaryen(ctx)?;
    let major = want.split('.').next().unwrap_or_default().to_owned();
    let wasm_opt = ctx.root.join("node_modules").join(".bin").join("wasm-opt");
    let installed = || {
        let package = fs::read_to_string(ctx.root.join("node_modules/binaryen/package.json")).ok()?;
        let version = pins::json_string(&package, "version")?;
        let runs = probe(ctx.cmd(&wasm_opt).arg("--version")).and_then(|out| word(&out, 2));
        (version == want && runs.as_deref() == Some(major.as_str())).then_some(version)
    };
    if installed().is_some() {
        println!("ok wasm-opt {major} (binaryen {want})");
        return Ok(());
    }
    let npm_command = if ctx.root.join("package-lock.json").exists() { "ci" } else { "install" };
    println!("installing wasm-opt… (npm {npm_command}: binaryen {want})");
    run::run(ctx.cmd("npm").args([npm_command, "--no-audit", "--no-fund"]))?;
    installed().ok_or_else(|| format!("npm installed binaryen but {} does not run", wasm_opt.display()))?;
    println!("ok wasm-opt {major} (binaryen {want})");
    Ok(())
}

/// The workspace's crates, for every target: trunk builds with `cargo --offline`, which finds
/// none of them on a fresh machine otherwise.
fn crates(ctx: &Ctx) -> Result {
    run::run(ctx.cargo().args(["fetch", "--quiet"]))?;
    println!("ok crates (cargo fetch)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_java_majors() {
        assert_eq!(java_major("17.0.15"), Some(17));
        assert_eq!(java_major("21"), Some(21));
        assert_eq!(java_major("1.8.0_392"), Some(8));
        assert_eq!(java_major("openjdk"), None);
    }

    #[test]
    fn strips_maven_colours() {
        let out = "\u{1b}[0m\u{1b}[1mApache Maven 3.8.7\u{1b}[m\nMaven home: /usr/share/maven";
        assert_eq!(word(&strip_ansi(out), 2).as_deref(), Some("3.8.7"));
    }
}
