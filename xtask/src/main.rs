//! `cargo xtask`: the project's set-up commands.
//!
//! * `cargo xtask serve [--dev]`: install what the machine lacks, then serve the page with trunk
//!   (the release build as it is published, or `--dev`'s, faster to build and unoptimised).
//! * `cargo xtask test [--skip-setup]`: install what the machine lacks, then run every check,
//!   ending with the conformance subset.
//! * `cargo xtask setup`: only install what the machine lacks (the page's tools, Java and Maven)
//!   and build the conformance Maven project, which resolves its dependencies.
//! * `cargo xtask bench-page [busy|max|sustained|all]…`: set up, build the release page, measure
//!   its frame rate under load (and, sustained, its memory).
//! * `cargo xtask conformance [--subset] [--seed N]`: set up Java and Maven, then run offsetlab's
//!   assignors and scenarios against a real Apache Kafka broker on 127.0.0.1, and the replication
//!   stories against a three-node cluster there (see [`conformance`]), writing
//!   target/conformance/report.json and report.md.
//!
//! Downloads happen only through crates.io (`cargo install`, `cargo fetch`), the npm registry
//! (`npm ci`), Debian apt and Maven Central (`mvn`); trunk itself runs offline.

mod checks;
mod conformance;
mod pins;
mod report;
mod run;
mod setup;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  serve [--dev]        set up the tools, then serve the page on http://127.0.0.1:8080
                       (the release build, as published, by default; --dev for a faster,
                       unoptimised build)
  test [--skip-setup]  set up the tools, then run fmt, clippy, tests (native and wasm32 in
                       headless Chromium), the release build with its byte guard, the
                       end-to-end tests and the conformance subset
  setup                only install the tools the machine lacks (Java 17 and Maven included)
                       and build the conformance Maven project
  conformance [--subset] [--seed N] [--only PROGRAM] [--story NAME]...
                       set up Java and Maven, build offsetlab and the conformance project,
                       then compare offsetlab with Apache Kafka (the version conformance/pom.xml
                       pins): the assignors, then the scenarios against a single-node KRaft
                       broker started on 127.0.0.1 for the run and stopped after it, then the
                       free-running stories against a broker of their own, then the
                       replication stories against a three-node KRaft cluster, likewise. Writes
                       target/conformance/report.json and report.md (broker output:
                       target/conformance/broker.log and cluster/nodeN.log); fails if an
                       entry is different or a comparison program fails. --subset: the short
                       scenario set
                       (8 minutes at most; cargo xtask test runs it); --seed: the seed
                       (default: from the clock, printed); --only: one comparison program
                       (Assignors, Scenarios, ShareGroups, Kafka4Groups, Transactions,
                       Delivery, FreeRunning, Replication) and only the broker it needs;
                       --story: FreeRunning alone, only the free-running stories named
                       (repeatable; in the subset or not, e.g. --story
                       partitions-added-latest-skips)
  bench-page [MODE…]   set up the tools, build the release page and measure it in headless
                       Chromium at the highest speed; modes (default busy):
                         busy       busy-group, frame rate over 10 s
                         max        256 partitions, 64 consumers: frame rate, DOM elements and
                                    where the main thread's time goes, over 10 s
                         sustained  busy-group for 10 minutes: mean fps per minute, and JS heap,
                                    wasm memory and DOM elements every 30 s
                         load       a cold load at 150 ms latency, 1.6 Mbit/s and 4x CPU
                                    slowdown, served gzip, as built and padded to the byte
                                    guard: first paint, first and largest contentful paint,
                                    layout shift until the live app, first usable control
                         all        the four
                       OFFSETLAB_BENCH_SECONDS sets every mode's duration (e.g. 60 for a quick
                       sustained run)";

/// The page bench's modes (tests/bench/fps.mjs reads them from OFFSETLAB_BENCH).
const BENCH_MODES: [&str; 5] = ["busy", "max", "sustained", "load", "all"];

#[derive(Debug, PartialEq, Eq)]
enum Command {
    Serve { dev: bool },
    Test { skip_setup: bool },
    Setup,
    BenchPage { modes: Vec<String> },
    Conformance(conformance::Options),
    Help,
}

fn parse(args: &[String]) -> Result<Command, String> {
    let Some((command, options)) = args.split_first() else {
        return Ok(Command::Help);
    };
    let mut flags: Vec<&str> = options.iter().map(String::as_str).collect();
    let mut take = |flag: &str| {
        let found = flags.contains(&flag);
        flags.retain(|f| *f != flag);
        found
    };
    let parsed = match command.as_str() {
        "serve" => Command::Serve { dev: take("--dev") },
        "test" => Command::Test { skip_setup: take("--skip-setup") },
        "setup" => Command::Setup,
        "bench-page" => {
            // `cargo xtask bench-page -- max` passes the `--` on.
            let modes: Vec<String> = flags.drain(..).filter(|m| *m != "--").map(str::to_owned).collect();
            if let Some(bad) = modes.iter().find(|m| !BENCH_MODES.contains(&m.as_str())) {
                return Err(format!("unknown bench mode `{bad}`: choose from {}", BENCH_MODES.join(", ")));
            }
            Command::BenchPage { modes }
        }
        "conformance" => {
            let subset = take("--subset");
            let only = match flags.iter().position(|f| *f == "--only") {
                None => None,
                Some(at) => {
                    let choices = conformance::PROGRAMS.join(", ");
                    let value = flags
                        .get(at + 1)
                        .ok_or_else(|| format!("--only needs a program: one of {choices}"))?;
                    if !conformance::PROGRAMS.contains(value) {
                        return Err(format!("--only takes one of {choices}, not `{value}`"));
                    }
                    let only = (*value).to_owned();
                    flags.drain(at..at + 2);
                    Some(only)
                }
            };
            // `--story NAME`, repeatable: FreeRunning alone, only those stories (the program
            // checks the names).
            let mut stories = Vec::new();
            while let Some(at) = flags.iter().position(|f| *f == "--story") {
                let value = flags
                    .get(at + 1)
                    .filter(|v| !v.starts_with("--"))
                    .ok_or("--story needs a free-running story's name")?;
                stories.push((*value).to_owned());
                flags.drain(at..at + 2);
            }
            let only = match only {
                Some(program) if !stories.is_empty() && program != "FreeRunning" => {
                    return Err(format!("--story runs FreeRunning alone, not with --only {program}"));
                }
                None if !stories.is_empty() => Some("FreeRunning".to_owned()),
                only => only,
            };
            let seed = match flags.iter().position(|f| *f == "--seed") {
                None => None,
                Some(at) => {
                    let value = flags.get(at + 1).ok_or("--seed needs a value: --seed <unsigned integer>")?;
                    let seed = value
                        .parse::<u64>()
                        .map_err(|_| format!("--seed takes an unsigned integer, not `{value}`"))?;
                    flags.drain(at..at + 2);
                    Some(seed)
                }
            };
            Command::Conformance(conformance::Options { subset, seed, only, stories })
        }
        "help" | "-h" | "--help" => Command::Help,
        other => return Err(format!("unknown command `{other}`")),
    };
    match flags.first() {
        Some(flag) => Err(format!("unknown option `{flag}` for `{command}`")),
        None => Ok(parsed),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let command = match parse(&args) {
        Ok(command) => command,
        Err(message) => {
            eprintln!("xtask: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = run::Ctx::new().and_then(|ctx| match command {
        Command::Serve { dev } => setup::page(&ctx).and_then(|()| serve(&ctx, dev)),
        Command::Test { skip_setup } => checks::all(&ctx, skip_setup),
        Command::Setup => setup::all(&ctx),
        Command::BenchPage { modes } => checks::bench_page(&ctx, &modes),
        Command::Conformance(options) => conformance::run(&ctx, &options, true),
        Command::Help => {
            println!("{USAGE}");
            Ok(())
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("\nxtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// `trunk serve`, in the foreground with inherited stdio, until interrupted.
fn serve(ctx: &run::Ctx, dev: bool) -> run::Result {
    let mut trunk = ctx.trunk();
    trunk.arg("serve");
    if !dev {
        trunk.arg("--release");
    }
    let build = if dev { "dev" } else { "release" };
    println!("\nserving the page ({build} build) on http://127.0.0.1:8080 — Ctrl-C stops");
    run::run(&mut trunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_commands_and_flags() {
        assert_eq!(parse(&args(&[])), Ok(Command::Help));
        assert_eq!(parse(&args(&["serve"])), Ok(Command::Serve { dev: false }));
        assert_eq!(parse(&args(&["serve", "--dev"])), Ok(Command::Serve { dev: true }));
        assert!(parse(&args(&["serve", "--cluster"])).is_err());
        assert_eq!(parse(&args(&["test"])), Ok(Command::Test { skip_setup: false }));
        assert_eq!(parse(&args(&["test", "--skip-setup"])), Ok(Command::Test { skip_setup: true }));
        assert_eq!(parse(&args(&["setup"])), Ok(Command::Setup));
        assert_eq!(parse(&args(&["bench-page"])), Ok(Command::BenchPage { modes: vec![] }));
        assert_eq!(
            parse(&args(&["bench-page", "max", "sustained"])),
            Ok(Command::BenchPage { modes: args(&["max", "sustained"]) })
        );
        assert_eq!(
            parse(&args(&["bench-page", "--", "all"])),
            Ok(Command::BenchPage { modes: args(&["all"]) })
        );
    }

    #[test]
    fn parses_conformance() {
        let conformance = |subset, seed| {
            Ok(Command::Conformance(conformance::Options { subset, seed, only: None, stories: vec![] }))
        };
        assert_eq!(parse(&args(&["conformance"])), conformance(false, None));
        assert_eq!(parse(&args(&["conformance", "--subset"])), conformance(true, None));
        assert_eq!(parse(&args(&["conformance", "--seed", "42"])), conformance(false, Some(42)));
        assert_eq!(parse(&args(&["conformance", "--seed", "7", "--subset"])), conformance(true, Some(7)));
        assert_eq!(parse(&args(&["conformance", "--subset", "--seed", "0"])), conformance(true, Some(0)));
        assert_eq!(
            parse(&args(&["conformance", "--subset", "--only", "FreeRunning"])),
            Ok(Command::Conformance(conformance::Options {
                subset: true,
                seed: None,
                only: Some("FreeRunning".to_owned()),
                stories: vec![]
            }))
        );
        let free = |stories: &[&str]| {
            Ok(Command::Conformance(conformance::Options {
                subset: false,
                seed: None,
                only: Some("FreeRunning".to_owned()),
                stories: args(stories),
            }))
        };
        assert_eq!(
            parse(&args(&["conformance", "--story", "partitions-added-latest-skips"])),
            free(&["partitions-added-latest-skips"])
        );
        assert_eq!(
            parse(&args(&["conformance", "--only", "FreeRunning", "--story", "a", "--story", "b"])),
            free(&["a", "b"])
        );
    }

    #[test]
    fn rejects_bad_conformance_options() {
        assert_eq!(
            parse(&args(&["conformance", "--seed"])),
            Err("--seed needs a value: --seed <unsigned integer>".to_owned())
        );
        assert_eq!(
            parse(&args(&["conformance", "--seed", "-1"])),
            Err("--seed takes an unsigned integer, not `-1`".to_owned())
        );
        assert_eq!(
            parse(&args(&["conformance", "--seed", "--subset"])),
            Err("--seed needs a value: --seed <unsigned integer>".to_owned())
        );
        assert_eq!(
            parse(&args(&["conformance", "--full"])),
            Err("unknown option `--full` for `conformance`".to_owned())
        );
        assert!(parse(&args(&["test", "--subset"])).is_err());
        assert!(parse(&args(&["conformance", "--only"])).unwrap_err().starts_with("--only needs a program"));
        assert!(
            parse(&args(&["conformance", "--only", "Free"])).unwrap_err().starts_with("--only takes one of")
        );
        assert!(parse(&args(&["conformance", "--story"])).unwrap_err().starts_with("--story needs"));
        assert!(
            parse(&args(&["conformance", "--story", "--subset"])).unwrap_err().starts_with("--story needs")
        );
        assert_eq!(
            parse(&args(&["conformance", "--only", "Scenarios", "--story", "a"])),
            Err("--story runs FreeRunning alone, not with --only Scenarios".to_owned())
        );
    }

    #[test]
    fn rejects_unknown_commands_and_flags() {
        assert!(parse(&args(&["build"])).is_err());
        assert!(parse(&args(&["serve", "--skip-setup"])).is_err());
        assert!(parse(&args(&["setup", "--dev"])).is_err());
        assert!(parse(&args(&["bench-page", "fast"])).is_err());
    }
}
