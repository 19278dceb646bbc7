//! `cargo xtask conformance [--subset] [--seed N] [--only PROGRAM] [--story NAME]...`: offsetlab
//! against a real Apache Kafka (the version conformance/pom.xml pins), on 127.0.0.1 only. `--only`
//! runs one comparison program of [`PROGRAMS`] (and starts only the broker it needs); the report
//! then lists the others as not run. `--story` runs `FreeRunning` alone, and of its stories only
//! those named (in the subset or not).
//!
//! 1. The conformance Maven project is built (setup: Java ≥ 17 and Maven; then
//!    `mvn package dependency:build-classpath`, incremental) and so is the release `offsetlab`.
//! 2. `dev.offsetlab.conformance.Assignors` compares the assignors, without a broker.
//! 3. A single-node KRaft broker (`kafka.Kafka`) starts on free loopback ports with a log
//!    directory formatted afresh under target/conformance/kafka/, its output going to
//!    target/conformance/broker.log; `dev.offsetlab.conformance.Ready` waits (at most
//!    [`READY_LIMIT`]) until it serves.
//! 4. `dev.offsetlab.conformance.Scenarios` plays the scenarios against it and offsetlab;
//!    `dev.offsetlab.conformance.ShareGroups` runs the share-group built-ins on it with
//!    `KafkaShareConsumer`s; `dev.offsetlab.conformance.Kafka4Groups` runs the consumer-protocol
//!    and static-member built-ins on it, one consumer JVM per member;
//!    `dev.offsetlab.conformance.Transactions` tells the exactly-once built-ins on it
//!    (`eos-read-process-write`, read with read_committed and, as `eos-read-uncommitted`, with
//!    read_uncommitted; `eos-zombie-fenced`): a transactional consume-transform-produce
//!    application, one JVM per instance, one killed or stopped and fenced mid-transaction (the
//!    same in the subset: together under half a minute). The broker's server.properties lowers
//!    `transaction.abort.timed.out.transaction.cleanup.interval.ms` to 1 s for the killed
//!    instance's transaction, which only that program uses. `dev.offsetlab.conformance.Delivery`
//!    tells the producer's lost-acknowledgement and lost-request built-ins
//!    (`retry-without-idempotence`, `idempotent-producer`, `inflight-reorders`) through a fault
//!    proxy of its own on 127.0.0.1, in front of the broker's second listener (FAULTY, which
//!    advertises the proxy's port: [`BrokerPorts`]); together about ten seconds.
//! 5. The broker is stopped.
//! 6. A second single-node broker starts, the free-running one ([`BrokerKind::FreeRunning`]:
//!    target/conformance/free-running-kafka/, output in free-running-broker.log, its group
//!    coordinator logging at INFO by conformance/log4j2-free-running.properties), with
//!    [`FREE_RUNNING_SETTINGS`] in place of the single broker's (an initial rebalance delay of 30 ms,
//!    short minimum sessions and heartbeats, offsets retention 1 minute checked every second),
//!    which `dev.offsetlab.conformance.FreeRunning` is told. It tells built-ins in real time,
//!    150 ms a tick, each consumer a JVM running its own poll loop, three runs per story
//!    (`slow-handler-poll-timeout` and `new-group-latest-skips` in the subset: about a minute),
//!    and
//!    the broker is stopped.
//! 7. A three-node KRaft cluster starts ([`cluster`]: three combined broker+controller nodes with
//!    small heaps, on free loopback ports, log directories under target/conformance/cluster/,
//!    each node's output in cluster/nodeN.log) and `dev.offsetlab.conformance.Replication` tells
//!    the replication stories on it, `acks1-leader-crash` then `acks-all-survives` (the same in
//!    the subset: together about a minute and a half), pausing the followers and killing the
//!    leader by the pids the harness gives it; the node a story killed is started again before
//!    the next. The cluster is stopped.
//! 8. The programs' entries are merged into target/conformance/report.json and report.md and
//!    printed.
//!
//! The comparisons together, the cluster phase included, are bounded by [`FULL_LIMIT`]
//! ([`SUBSET_LIMIT`] with `--subset`); a program still running then is killed and counts as
//! failed. The command fails if a program failed or an entry is `different`, naming the seed to
//! rerun with. A program whose source is not in conformance/src yet is skipped with a printed
//! line (and the broker is not started when Scenarios is skipped).
//!
//! The broker is stopped on every path: [`Broker`] is a guard whose `Drop` stops it (SIGTERM,
//! then SIGKILL after [`STOP_GRACE`]), so an error, a failing comparison or a panic (xtask
//! unwinds) all stop it; the cluster's nodes likewise ([`cluster::Cluster`], which first
//! continues a node a killed `Replication` left paused). If xtask itself dies without unwinding
//! (Ctrl-C, SIGKILL), the JVMs it started are launched through util-linux's `setpriv --pdeathsig
//! TERM`, so the kernel sends them SIGTERM when xtask dies (and `Replication`'s shutdown hook
//! continues the nodes it paused, which would otherwise hold that SIGTERM); a Ctrl-C also reaches
//! them directly, as they share the terminal's process group. Without setpriv (not Linux), a
//! printed line says that only the guard remains.

use std::ffi::OsString;
use std::fs::{self, File};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::pins;
use crate::report::{self, Entry, ProgramRun, ProgramStatus, Report, Verdict};
use crate::run::{self, Ctx, Result, probe, step};
use crate::setup;

mod cluster;

/// How long the broker may take from its start until it serves.
pub const READY_LIMIT: Duration = Duration::from_secs(90);
/// How long the comparison programs may take together, in a full run (the free-running stories
/// alone take about eleven and a half minutes: twelve stories, three runs each, 150 ms a tick;
/// the whole full run about 22 minutes).
pub const FULL_LIMIT: Duration = Duration::from_secs(30 * 60);
/// …and with `--subset`, which `cargo xtask test` runs: it must stay under 10 minutes overall.
pub const SUBSET_LIMIT: Duration = Duration::from_secs(8 * 60);
/// How long the broker has to shut down after SIGTERM before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(20);
/// The assignor cases per run.
const ASSIGNOR_CASES: u32 = 10_000;

const PACKAGE: &str = "dev.offsetlab.conformance";
const BROKER_HEAP: [&str; 2] = ["-Xmx512m", "-Xms256m"];
const PROGRAM_HEAP: [&str; 1] = ["-Xmx1g"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub subset: bool,
    /// The seed of the generated assignor cases, and of every scenario when given; `None`: the
    /// assignors' from the clock (printed), each scenario its own.
    pub seed: Option<u64>,
    /// `--only PROGRAM`: run that comparison program alone (and only the broker it needs).
    pub only: Option<String>,
    /// `--story NAME`…: the free-running stories to run (`FreeRunning` alone then); empty: the
    /// mode's.
    pub stories: Vec<String>,
}

/// The comparison programs, in the order they run: what `--only` takes.
pub const PROGRAMS: [&str; 8] = [
    "Assignors",
    "Scenarios",
    "ShareGroups",
    "Kafka4Groups",
    "Transactions",
    "Delivery",
    "FreeRunning",
    "Replication",
];
/// The programs that run on the single broker.
const SINGLE_BROKER: [&str; 5] = ["Scenarios", "ShareGroups", "Kafka4Groups", "Transactions", "Delivery"];

impl Options {
    /// Why `program` does not run: another was chosen with `--only`.
    fn left_out(&self, program: &str) -> Option<String> {
        match &self.only {
            Some(only) if only != program => Some(format!("--only {only}")),
            _ => None,
        }
    }
}

/// Runs the harness; `setup` also ensures Java and Maven are installed (`cargo xtask test` has
/// done that in its own setup step).
pub fn run(ctx: &Ctx, options: &Options, setup: bool) -> Result {
    let start = Instant::now();
    let seed = options.seed.unwrap_or_else(clock_seed);
    let mode = if options.subset { "subset" } else { "full" };
    let dir = setup::conformance_dir(ctx);
    let kafka_version = kafka_version(ctx)?;
    println!("conformance against Apache Kafka {kafka_version}: {mode} run, seed {seed}");

    if setup {
        step("setup (java, maven)", || setup::java_tools(ctx))?;
    }
    let mut built = None;
    step("maven build (conformance/pom.xml)", || {
        built = Some(setup::maven_build(ctx)?);
        Ok(())
    })?;
    let built = built.ok_or("the maven build gave no classes")?;
    step("cargo build --release -p offsetlab-cli", || {
        run::run(ctx.cargo().args(["build", "--release", "-p", "offsetlab-cli"]))
    })?;
    let offsetlab =
        target_dir(ctx).join("release").join(format!("offsetlab{}", std::env::consts::EXE_SUFFIX));
    if !offsetlab.exists() {
        return Err(format!("cargo built offsetlab-cli but {} is missing", offsetlab.display()));
    }
    let java = Java::new(ctx, &built)?;

    let limit = if options.subset { SUBSET_LIMIT } else { FULL_LIMIT };
    let deadline = Instant::now() + limit;
    let seed_arg = seed.to_string();
    let offsetlab_arg = offsetlab.display().to_string();
    let mut files: Vec<Vec<Entry>> = Vec::new();
    let mut programs: Vec<ProgramRun> = Vec::new();
    // The assignors need no broker.
    let assignors = dir.join("assignors.json");
    match options.left_out("Assignors").or_else(|| missing_source(ctx, "Assignors")) {
        Some(why) => skip(&mut programs, "Assignors", why),
        None => {
            let cases = ASSIGNOR_CASES.to_string();
            let args = ["--offsetlab", &offsetlab_arg, "--cases", &cases, "--seed", &seed_arg, "--out"];
            let outcome = comparison(&java, "Assignors", &args, &assignors, deadline);
            record(&mut files, &mut programs, "Assignors", outcome);
        }
    }

    let scenarios = dir.join("scenarios.json");
    let single_left_out = SINGLE_BROKER.iter().all(|program| options.left_out(program).is_some());
    match missing_source(ctx, "Scenarios") {
        Some(why) => skip(&mut programs, "Scenarios", why),
        None if single_left_out => {
            for program in SINGLE_BROKER {
                skip(&mut programs, program, options.left_out(program).unwrap_or_default());
            }
        }
        None => {
            // Each program's outcome; `None`: not run (left out, or its source is missing).
            let mut scenarios_outcome = None;
            let mut share_groups = None;
            let mut kafka4_groups = None;
            let mut transactions = None;
            let mut delivery = None;
            let mut broker = None;
            let started = step("start the broker", || {
                broker = Some(Broker::start(&java, &dir, BrokerKind::Single)?);
                Ok(())
            });
            let wanted =
                |program: &str| options.left_out(program).or_else(|| missing_source(ctx, program)).is_none();
            let outcome: Result = match (started, broker.as_mut()) {
                (Ok(()), Some(broker)) => {
                    let bootstrap = format!("127.0.0.1:{}", broker.port);
                    if wanted("Scenarios") {
                        let mut args = vec!["--bootstrap", &bootstrap, "--offsetlab", &offsetlab_arg];
                        // Each scenario runs with its own seed (the one its story is told with)
                        // unless a seed is given: a clock seed would change the stories run to run.
                        if options.seed.is_some() {
                            args.extend(["--seed", &seed_arg]);
                        }
                        if options.subset {
                            args.push("--subset");
                        }
                        args.push("--out");
                        scenarios_outcome = Some(comparison(&java, "Scenarios", &args, &scenarios, deadline));
                    }
                    // The share-group built-ins, on the same broker.
                    if wanted("ShareGroups") {
                        let args = ["--bootstrap", &bootstrap, "--offsetlab", &offsetlab_arg, "--out"];
                        let out = dir.join("share-groups.json");
                        share_groups = Some(comparison(&java, "ShareGroups", &args, &out, deadline));
                    }
                    // The consumer-protocol and static-member built-ins, on the same broker.
                    if wanted("Kafka4Groups") {
                        let mut args = vec!["--bootstrap", &bootstrap, "--offsetlab", &offsetlab_arg];
                        if options.subset {
                            args.push("--subset");
                        }
                        args.push("--out");
                        let out = dir.join("kafka4-groups.json");
                        kafka4_groups = Some(comparison(&java, "Kafka4Groups", &args, &out, deadline));
                    }
                    // The exactly-once built-ins, on the same broker (both stories in the subset).
                    if wanted("Transactions") {
                        let mut args = vec!["--bootstrap", &bootstrap, "--offsetlab", &offsetlab_arg];
                        if options.seed.is_some() {
                            args.extend(["--seed", &seed_arg]);
                        }
                        args.push("--out");
                        let out = dir.join("transactions.json");
                        transactions = Some(comparison(&java, "Transactions", &args, &out, deadline));
                    }
                    // The producer's lost request and lost acknowledgement, through the fault
                    // proxy in front of the broker's FAULTY listener.
                    if wanted("Delivery") {
                        let proxy = broker.ports.proxy.to_string();
                        let upstream = broker.ports.faulty.to_string();
                        let args = [
                            "--bootstrap",
                            &bootstrap,
                            "--proxy",
                            &proxy,
                            "--upstream",
                            &upstream,
                            "--offsetlab",
                            &offsetlab_arg,
                            "--out",
                        ];
                        delivery =
                            Some(comparison(&java, "Delivery", &args, &dir.join("delivery.json"), deadline));
                    }
                    // Stopped here, not only by the guard, to time it and to notice a broker
                    // that died during the comparison.
                    broker.stop()
                }
                (Err(why), _) => Err(why),
                (Ok(()), None) => Err("the broker did not start".to_owned()),
            };
            drop(broker);
            let outcomes = [
                ("Scenarios", scenarios_outcome),
                ("ShareGroups", share_groups),
                ("Kafka4Groups", kafka4_groups),
                ("Transactions", transactions),
                ("Delivery", delivery),
            ];
            // The broker's failure (to start, or found dead at its stop) is the first program's.
            let mut broker_error = outcome.err();
            for (program, ran) in outcomes {
                if let Some(why) = options.left_out(program).or_else(|| missing_source(ctx, program)) {
                    skip(&mut programs, program, why);
                    continue;
                }
                let result = match (ran, broker_error.take()) {
                    (Some(result), Some(why)) => result.and(Err(why)),
                    (Some(result), None) => result,
                    (None, Some(why)) => Err(why),
                    (None, None) => {
                        skip(&mut programs, program, "the broker did not run".to_owned());
                        continue;
                    }
                };
                record(&mut files, &mut programs, program, result);
            }
        }
    }

    // The free-running stories, on a broker of their own (its group settings differ from the
    // single broker's), once that one has stopped.
    match options.left_out("FreeRunning").or_else(|| missing_source(ctx, "FreeRunning")) {
        Some(why) => skip(&mut programs, "FreeRunning", why),
        None => {
            let outcome = free_running(&java, &dir, &offsetlab_arg, options, deadline);
            record(&mut files, &mut programs, "FreeRunning", outcome);
        }
    }

    // The replication stories on a three-node cluster, once the single broker has stopped.
    match options.left_out("Replication").or_else(|| missing_source(ctx, "Replication")) {
        Some(why) => skip(&mut programs, "Replication", why),
        None => {
            let outcome = cluster::replication(&java, &dir, &offsetlab_arg, deadline);
            record(&mut files, &mut programs, "Replication", outcome);
        }
    }

    let entries: Vec<Entry> = files.into_iter().flatten().collect();
    if let Err(name) = report::unique_names(&entries) {
        return Err(format!("two programs' entries files both name `{name}` (seed {seed})"));
    }
    let report = Report {
        kafka_version: &kafka_version,
        seed,
        subset: options.subset,
        entries: &entries,
        programs: &programs,
        elapsed_secs: start.elapsed().as_secs_f64(),
    };
    write(&dir.join("report.json"), &report::json(&entries))?;
    write(&dir.join("report.md"), &report.markdown())?;
    print!("{}", report.terminal());
    println!("report: target/conformance/report.md, target/conformance/report.json");

    let stories: String = options.stories.iter().map(|s| format!(" --story {s}")).collect();
    let rerun = format!(
        "rerun with `cargo xtask conformance{}{stories} --seed {seed}`",
        if options.subset { " --subset" } else { "" }
    );
    let failed: Vec<String> = programs
        .iter()
        .filter_map(|run| match &run.status {
            ProgramStatus::Failed(why) => Some(format!("{}: {why}", run.program)),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        return Err(format!("conformance (seed {seed}): {}; {rerun}", failed.join("; ")));
    }
    let different: Vec<&str> =
        entries.iter().filter(|e| e.result == Verdict::Different).map(|e| e.name.as_str()).collect();
    if !different.is_empty() {
        return Err(format!(
            "conformance (seed {seed}): offsetlab differs from Kafka {kafka_version} in {}: {}; {rerun}",
            different.len(),
            different.join(", ")
        ));
    }
    Ok(())
}

/// Keeps a program's entries, and how it ended.
fn record(
    files: &mut Vec<Vec<Entry>>,
    programs: &mut Vec<ProgramRun>,
    program: &'static str,
    outcome: std::result::Result<Vec<Entry>, String>,
) {
    let status = match outcome {
        Ok(entries) => {
            let status = ProgramStatus::Ran(entries.len());
            files.push(entries);
            status
        }
        Err(why) => ProgramStatus::Failed(why),
    };
    programs.push(ProgramRun { program, status });
}

fn skip(programs: &mut Vec<ProgramRun>, program: &'static str, why: String) {
    println!("\nskipped {program}: {why}");
    programs.push(ProgramRun { program, status: ProgramStatus::Skipped(why) });
}

/// Why `class` cannot run: its source is not in the Maven project yet.
fn missing_source(ctx: &Ctx, class: &str) -> Option<String> {
    let relative = format!("conformance/src/main/java/{}/{class}.java", PACKAGE.replace('.', "/"));
    (!ctx.root.join(&relative).exists()).then(|| format!("no {relative} yet"))
}

/// A seed from the clock, for runs that don't name one.
fn clock_seed() -> u64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    (nanos % 1_000_000_000) as u64
}

/// The Kafka version conformance/pom.xml pins (its `kafka.version` property).
fn kafka_version(ctx: &Ctx) -> Result<String> {
    let pom = fs::read_to_string(ctx.root.join("conformance/pom.xml"))
        .map_err(|e| format!("cannot read conformance/pom.xml: {e}"))?;
    pins::xml_text(&pom, "kafka.version")
        .ok_or_else(|| "conformance/pom.xml has no <kafka.version>".to_owned())
}

/// Cargo's target directory: $CARGO_TARGET_DIR, or target/ under the repository root.
fn target_dir(ctx: &Ctx) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => ctx.root.join(dir),
        None => ctx.root.join("target"),
    }
}

fn write(path: &Path, text: &str) -> Result {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Starting JVMs on the conformance classpath, with our log4j2 configuration, tied to xtask's
/// life when setpriv is there.
#[derive(Debug)]
struct Java<'a> {
    ctx: &'a Ctx,
    /// The dependencies only: what the broker and the storage tool run on.
    kafka_classpath: OsString,
    /// The dependencies and the project's jar.
    classpath: OsString,
    log4j: PathBuf,
    setpriv: bool,
}

impl<'a> Java<'a> {
    fn new(ctx: &'a Ctx, built: &setup::MavenBuild) -> Result<Java<'a>> {
        let join = |paths: &[PathBuf]| {
            std::env::join_paths(paths).map_err(|e| format!("cannot join the conformance classpath: {e}"))
        };
        let mut with_jar = built.classpath.clone();
        with_jar.push(built.jar.clone());
        let setpriv = probe(ctx.cmd("setpriv").arg("--version")).is_some();
        if !setpriv {
            println!(
                "note: no setpriv (util-linux) here, so a JVM outlives xtask if xtask is killed \
                 without unwinding; the broker guard still stops it on every other path"
            );
        }
        Ok(Java {
            ctx,
            kafka_classpath: join(&built.classpath)?,
            classpath: join(&with_jar)?,
            log4j: ctx.root.join("conformance").join("log4j2.properties"),
            setpriv,
        })
    }

    /// `java <jvm options> -cp … <main>`, SIGTERMed by the kernel if xtask dies.
    fn cmd(&self, jvm: &[&str], own_classes: bool, main: &str) -> Command {
        self.cmd_logged(jvm, own_classes, main, &self.log4j)
    }

    /// The free-running broker's and program's log4j2 configuration.
    fn free_running_log4j(&self) -> PathBuf {
        self.ctx.root.join("conformance").join("log4j2-free-running.properties")
    }

    /// [`Java::cmd`] with the log4j2 configuration `log4j`.
    fn cmd_logged(&self, jvm: &[&str], own_classes: bool, main: &str, log4j: &Path) -> Command {
        let mut cmd = if self.setpriv {
            let mut cmd = self.ctx.cmd("setpriv");
            cmd.args(["--pdeathsig", "TERM", "--", "java"]);
            cmd
        } else {
            self.ctx.cmd("java")
        };
        cmd.args(jvm)
            .arg(format!("-Dlog4j2.configurationFile={}", log4j.display()))
            .arg("-cp")
            .arg(if own_classes { &self.classpath } else { &self.kafka_classpath })
            .arg(main)
            .stdin(Stdio::null());
        cmd
    }
}

/// Runs one comparison program until it exits or `deadline`, then reads the entries it wrote to
/// `out` (passed after `args`, which end with `--out`).
fn comparison(
    java: &Java,
    class: &str,
    args: &[&str],
    out: &Path,
    deadline: Instant,
) -> std::result::Result<Vec<Entry>, String> {
    comparison_logged(java, class, args, out, deadline, &java.log4j)
}

/// [`comparison`] with the log4j2 configuration `log4j`.
fn comparison_logged(
    java: &Java,
    class: &str,
    args: &[&str],
    out: &Path,
    deadline: Instant,
    log4j: &Path,
) -> std::result::Result<Vec<Entry>, String> {
    let mut result = Err(String::new());
    let _ = step(&format!("{class} (comparison)"), || {
        result = run_comparison(java, class, args, out, deadline, log4j);
        result.as_ref().map(|_| ()).map_err(Clone::clone)
    });
    result
}

fn run_comparison(
    java: &Java,
    class: &str,
    args: &[&str],
    out: &Path,
    deadline: Instant,
    log4j: &Path,
) -> std::result::Result<Vec<Entry>, String> {
    let shown = relative(java.ctx, out);
    if out.exists() {
        fs::remove_file(out).map_err(|e| format!("cannot remove the old {shown}: {e}"))?;
    }
    let mut cmd = java.cmd_logged(&PROGRAM_HEAP, true, &format!("{PACKAGE}.{class}"), log4j);
    cmd.args(args).arg(out);
    let line = format!("java … {PACKAGE}.{class} {} {}", args.join(" "), out.display());
    if Instant::now() >= deadline {
        return Err("not started: the time limit for the comparisons had passed".to_owned());
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot start `{line}`: {e}"))?;
    let status = match wait_until(&mut child, deadline) {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Err("killed: it was still running at the time limit for the comparisons".to_owned());
        }
    };
    match status.code() {
        Some(0) => {}
        Some(1) => return Err(format!("harness failure (exit 1) in `{line}`")),
        Some(2) => return Err(format!("it rejected its arguments (exit 2): `{line}`")),
        _ => return Err(format!("`{line}` failed ({status})")),
    }
    let text = fs::read_to_string(out).map_err(|e| format!("it exited 0 but {shown} cannot be read: {e}"))?;
    report::parse_entries(&shown, &text)
}

/// Waits for `child` until `deadline`: its status, or `None` if it is still running.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        thread::sleep(Duration::from_millis(100));
    }
}

fn relative(ctx: &Ctx, path: &Path) -> String {
    path.strip_prefix(&ctx.root).unwrap_or(path).display().to_string()
}

/// The single broker's loopback ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokerPorts {
    /// Its PLAINTEXT listener, which every program but Delivery bootstraps from.
    pub broker: u16,
    pub controller: u16,
    /// Its FAULTY listener, which advertises `proxy` instead of its own port: a client that
    /// bootstraps from the proxy (Delivery's `FaultProxy`) sends everything through it.
    pub faulty: u16,
    pub proxy: u16,
}

/// Four distinct free loopback ports for the single broker.
fn free_ports() -> Result<BrokerPorts> {
    let ports = free_port_list(4)?;
    Ok(BrokerPorts { broker: ports[0], controller: ports[1], faulty: ports[2], proxy: ports[3] })
}

/// `count` distinct free loopback ports: all bound at once on 127.0.0.1:0, then released for the
/// JVMs to take.
fn free_port_list(count: usize) -> Result<Vec<u16>> {
    let listeners = (0..count)
        .map(|_| TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot bind 127.0.0.1:0: {e}")))
        .collect::<Result<Vec<_>>>()?;
    listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()).map_err(|e| format!("no local address: {e}")))
        .collect()
}

/// The single-node KRaft broker's configuration: broker and controller in one process, both on
/// 127.0.0.1, one replica for every internal topic, no topic auto-creation, and short group
/// delays so runs are quick and deterministic. A second client listener, FAULTY, advertises the
/// fault proxy's port (see [`BrokerPorts`]).
pub fn server_properties(ports: &BrokerPorts, log_dir: &Path) -> String {
    let BrokerPorts { broker: port, controller: controller_port, faulty, proxy } = *ports;
    format!(
        "\
# Written by `cargo xtask conformance` for one run; the log directory is formatted afresh.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:{controller_port}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port},FAULTY://127.0.0.1:{faulty}
advertised.listeners=PLAINTEXT://127.0.0.1:{port},FAULTY://127.0.0.1:{proxy}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,FAULTY:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs={log_dir}
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# Share groups' record locks may be as short as 1 s (15 s by default), for the lock-timeout run.
group.share.min.record.lock.duration.ms=1000
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=1000
group.min.session.timeout.ms=500
group.max.session.timeout.ms=60000
# Consumer-protocol groups (KIP-848): heartbeats every 200 ms, a 10 s session (a crashed member's
# partitions wait that long), and a new target assignment at every group epoch, as the model
# computes it (by default Kafka computes one at most once a second).
group.consumer.min.heartbeat.interval.ms=100
group.consumer.heartbeat.interval.ms=200
group.consumer.min.session.timeout.ms=1000
group.consumer.session.timeout.ms=10000
group.consumer.assignment.interval.ms=0
# Transactions: one partition for the coordinator's log (like the offsets topic), and timed-out
# transactions aborted within a second of their timeout (every 10 s by default), for the killed
# instance's open transaction in eos-read-process-write.
transaction.state.log.num.partitions=1
transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
",
        log_dir = log_dir.display()
    )
}

/// The free-running broker's group settings that differ from the single broker's, which
/// FreeRunning is told: an initial rebalance delay of a fifth of one of its 150 ms ticks (the model
/// completes a rebalance a tick after it starts, gathering every join of that tick; Kafka's
/// `InitialDelayedJoin` waits its delay, then once more as members joined during it, so joins sent
/// at one moment, which reach the coordinator within a few ms, make one generation; no built-in it
/// tells sets a delay of its own), sessions and heartbeats as short as a few ticks, and offsets of
/// an empty group kept for the least Kafka allows, one minute, checked every second
/// (`offsets-expired`).
pub const FREE_RUNNING_SETTINGS: [(&str, &str); 6] = [
    ("group.initial.rebalance.delay.ms", "30"),
    ("group.min.session.timeout.ms", "100"),
    ("group.consumer.min.session.timeout.ms", "100"),
    ("group.consumer.min.heartbeat.interval.ms", "50"),
    ("offsets.retention.minutes", "1"),
    ("offsets.retention.check.interval.ms", "1000"),
];

/// The free-running broker's configuration: the single broker's, with [`FREE_RUNNING_SETTINGS`]
/// in place of its values (added when it has none).
pub fn free_running_properties(ports: &BrokerPorts, log_dir: &Path) -> String {
    let mut text = String::new();
    let mut left: Vec<(&str, &str)> = FREE_RUNNING_SETTINGS.to_vec();
    for line in server_properties(ports, log_dir).lines() {
        let key = line.split('=').next().unwrap_or_default();
        match left.iter().position(|(k, _)| *k == key && !line.starts_with('#')) {
            Some(at) => {
                let (k, v) = left.remove(at);
                text.push_str(&format!("{k}={v}\n"));
            }
            None => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    if !left.is_empty() {
        text.push_str("# The free-running stories' group settings.\n");
        for (k, v) in left {
            text.push_str(&format!("{k}={v}\n"));
        }
    }
    text
}

/// The value of `key` in [`FREE_RUNNING_SETTINGS`].
fn free_running_setting(key: &str) -> &'static str {
    FREE_RUNNING_SETTINGS.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).unwrap_or("")
}

/// Starts the free-running broker, runs `FreeRunning` on it and stops it.
fn free_running(
    java: &Java,
    dir: &Path,
    offsetlab: &str,
    options: &Options,
    deadline: Instant,
) -> std::result::Result<Vec<Entry>, String> {
    if Instant::now() >= deadline {
        return Err("not started: the time limit for the comparisons had passed".to_owned());
    }
    let mut broker = None;
    step("start the free-running broker", || {
        broker = Some(Broker::start(java, dir, BrokerKind::FreeRunning)?);
        Ok(())
    })?;
    let Some(mut broker) = broker else {
        return Err("the free-running broker did not start".to_owned());
    };
    let bootstrap = format!("127.0.0.1:{}", broker.port);
    let log = broker.log.display().to_string();
    let delay = free_running_setting("group.initial.rebalance.delay.ms");
    let minutes: u64 = free_running_setting("offsets.retention.minutes").parse().unwrap_or(1);
    let retention = (minutes * 60_000).to_string();
    let mut args = vec![
        "--bootstrap",
        &bootstrap,
        "--offsetlab",
        offsetlab,
        "--broker-log",
        &log,
        "--initial-rebalance-delay-ms",
        delay,
        "--offsets-retention-ms",
        &retention,
    ];
    if options.subset {
        args.push("--subset");
    }
    for story in &options.stories {
        args.extend(["--story", story.as_str()]);
    }
    args.push("--out");
    let out = dir.join("free-running.json");
    let outcome = comparison_logged(java, "FreeRunning", &args, &out, deadline, &java.free_running_log4j());
    match broker.stop() {
        Ok(()) => outcome,
        Err(why) => outcome.and(Err(why)),
    }
}

/// Runs Kafka's storage tool (`kafka-storage`) with `args`: what it printed.
fn storage_tool(java: &Java, args: &[&str]) -> Result<String> {
    let mut cmd = java.cmd(&[], false, "kafka.tools.StorageTool");
    cmd.args(args);
    let line = format!("kafka.tools.StorageTool {}", args.join(" "));
    let output = cmd.output().map_err(|e| format!("cannot start {line}: {e}"))?;
    let said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{line} failed ({}):\n{said}\n{}", output.status, err.trim()));
    }
    Ok(said)
}

/// Which single-node broker to start: the one most programs share, or FreeRunning's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BrokerKind {
    Single,
    FreeRunning,
}

impl BrokerKind {
    /// Its log directory's folder under target/conformance/, and its output's file there.
    fn paths(self) -> (&'static str, &'static str) {
        match self {
            BrokerKind::Single => ("kafka", "broker.log"),
            BrokerKind::FreeRunning => ("free-running-kafka", "free-running-broker.log"),
        }
    }

    fn properties(self, ports: &BrokerPorts, log_dir: &Path) -> String {
        match self {
            BrokerKind::Single => server_properties(ports, log_dir),
            BrokerKind::FreeRunning => free_running_properties(ports, log_dir),
        }
    }

    /// Its log4j2 configuration: FreeRunning reads the group coordinator's INFO lines.
    fn log4j(self, java: &Java) -> PathBuf {
        match self {
            BrokerKind::Single => java.log4j.clone(),
            BrokerKind::FreeRunning => java.free_running_log4j(),
        }
    }
}

/// A running broker, stopped when dropped.
#[derive(Debug)]
struct Broker {
    child: Child,
    port: u16,
    ports: BrokerPorts,
    log: PathBuf,
    stopped: bool,
}

impl Broker {
    /// Formats a fresh log directory, starts the broker and waits until it serves. On failure the
    /// broker (if it started) is stopped before returning, and the error has broker.log's tail.
    fn start(java: &Java, dir: &Path, kind: BrokerKind) -> Result<Broker> {
        let (folder, log_name) = kind.paths();
        let kafka = dir.join(folder);
        if kafka.exists() {
            fs::remove_dir_all(&kafka).map_err(|e| format!("cannot remove {}: {e}", kafka.display()))?;
        }
        let logs = kafka.join("logs");
        fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
        let ports = free_ports()?;
        let (port, controller_port) = (ports.broker, ports.controller);
        let properties = kafka.join("server.properties");
        write(&properties, &kind.properties(&ports, &logs))?;

        let cluster_id = storage_tool(java, &["random-uuid"])?;
        let config = properties.display().to_string();
        storage_tool(java, &["format", "-t", &cluster_id, "-c", &config])?;
        println!("formatted {} (cluster {cluster_id})", relative(java.ctx, &logs));

        let log = dir.join(log_name);
        let out = File::create(&log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| format!("cannot share {}: {e}", log.display()))?;
        let mut cmd = java.cmd_logged(&BROKER_HEAP, false, "kafka.Kafka", &kind.log4j(java));
        cmd.arg(&properties).stdout(out).stderr(err);
        let started = Instant::now();
        let child =
            cmd.spawn().map_err(|e| format!("cannot start the broker (`{}`): {e}", run::describe(&cmd)))?;
        let mut broker = Broker { child, port, ports, log, stopped: false };
        println!(
            "broker started (pid {}) on 127.0.0.1:{port}, controller on :{controller_port}",
            broker.child.id()
        );
        match broker.wait_ready(java, started) {
            Ok(()) => {
                println!("broker serves after {:.1}s", started.elapsed().as_secs_f64());
                Ok(broker)
            }
            Err(why) => {
                let _ = broker.stop();
                Err(format!(
                    "{why}\nthe end of {}:\n{}",
                    relative(java.ctx, &broker.log),
                    broker.log_tail(40)
                ))
            }
        }
    }

    /// Runs Ready until it says the broker serves, the broker exits, or [`READY_LIMIT`] passes.
    fn wait_ready(&mut self, java: &Java, started: Instant) -> Result {
        let bootstrap = format!("127.0.0.1:{}", self.port);
        await_ready(java, &bootstrap, 1, started + READY_LIMIT, "the broker", || {
            match self.child.try_wait() {
                Ok(Some(status)) => Some(format!("the broker exited ({status}) before it served")),
                _ => None,
            }
        })
    }

    /// Stops the broker: SIGTERM (a controlled shutdown), then SIGKILL after [`STOP_GRACE`]. An
    /// error if it had exited on its own before. Stopping twice does nothing.
    fn stop(&mut self) -> Result {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        let pid = self.child.id();
        if let Ok(Some(status)) = self.child.try_wait() {
            return Err(format!(
                "the broker (pid {pid}) had exited on its own ({status}); see {}",
                self.log.display()
            ));
        }
        let begin = Instant::now();
        let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
        let how = match wait_until(&mut self.child, begin + STOP_GRACE) {
            Some(status) => format!("on SIGTERM ({status})"),
            None => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                format!("killed after {STOP_GRACE:?} of SIGTERM")
            }
        };
        println!("broker (pid {pid}) stopped {how} in {:.1}s", begin.elapsed().as_secs_f64());
        Ok(())
    }

    /// The last `lines` lines of broker.log.
    fn log_tail(&self, lines: usize) -> String {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        if all.is_empty() {
            return "(empty)".to_owned();
        }
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Err(why) = self.stop() {
            eprintln!("{why}");
        }
    }
}

/// Runs Ready against `bootstrap` until it says `brokers` brokers serve (unfenced), `exited`
/// names a process that is gone, or `deadline` passes; Ready gets a little longer to say why
/// itself. `what` names the broker or the cluster in the messages.
fn await_ready(
    java: &Java,
    bootstrap: &str,
    brokers: usize,
    deadline: Instant,
    what: &str,
    mut exited: impl FnMut() -> Option<String>,
) -> Result {
    let limit = deadline.saturating_duration_since(Instant::now());
    let timeout_ms = limit.as_millis().to_string();
    let mut ready = java.cmd(&[], true, &format!("{PACKAGE}.Ready"));
    ready.args(["--bootstrap", bootstrap, "--timeout-ms", &timeout_ms]);
    if brokers > 1 {
        ready.args(["--brokers", &brokers.to_string()]);
    }
    let mut ready = ready.spawn().map_err(|e| format!("cannot start Ready: {e}"))?;
    let hard = deadline + Duration::from_secs(5);
    let outcome = loop {
        if let Some(why) = exited() {
            break Err(why);
        }
        match ready.try_wait() {
            Ok(Some(status)) if status.success() => break Ok(()),
            Ok(Some(status)) => {
                break Err(format!("{what} did not serve within {limit:.1?} (Ready: {status})"));
            }
            _ if Instant::now() >= hard => break Err(format!("{what} did not serve within {limit:.1?}")),
            _ => thread::sleep(Duration::from_millis(100)),
        }
    };
    if outcome.is_err() {
        let _ = ready.kill();
    }
    let _ = ready.wait();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn renders_server_properties() {
        let ports = BrokerPorts { broker: 40001, controller: 40002, faulty: 40003, proxy: 40004 };
        let text = server_properties(&ports, Path::new("/tmp/conformance/kafka/logs"));
        expect![[r#"
            # Written by `cargo xtask conformance` for one run; the log directory is formatted afresh.
            process.roles=broker,controller
            node.id=1
            controller.quorum.voters=1@127.0.0.1:40002
            listeners=PLAINTEXT://127.0.0.1:40001,CONTROLLER://127.0.0.1:40002,FAULTY://127.0.0.1:40003
            advertised.listeners=PLAINTEXT://127.0.0.1:40001,FAULTY://127.0.0.1:40004
            controller.listener.names=CONTROLLER
            listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,FAULTY:PLAINTEXT
            inter.broker.listener.name=PLAINTEXT
            log.dirs=/tmp/conformance/kafka/logs
            offsets.topic.replication.factor=1
            offsets.topic.num.partitions=1
            transaction.state.log.replication.factor=1
            transaction.state.log.min.isr=1
            share.coordinator.state.topic.replication.factor=1
            share.coordinator.state.topic.min.isr=1
            # Share groups' record locks may be as short as 1 s (15 s by default), for the lock-timeout run.
            group.share.min.record.lock.duration.ms=1000
            auto.create.topics.enable=false
            group.initial.rebalance.delay.ms=1000
            group.min.session.timeout.ms=500
            group.max.session.timeout.ms=60000
            # Consumer-protocol groups (KIP-848): heartbeats every 200 ms, a 10 s session (a crashed member's
            # partitions wait that long), and a new target assignment at every group epoch, as the model
            # computes it (by default Kafka computes one at most once a second).
            group.consumer.min.heartbeat.interval.ms=100
            group.consumer.heartbeat.interval.ms=200
            group.consumer.min.session.timeout.ms=1000
            group.consumer.session.timeout.ms=10000
            group.consumer.assignment.interval.ms=0
            # Transactions: one partition for the coordinator's log (like the offsets topic), and timed-out
            # transactions aborted within a second of their timeout (every 10 s by default), for the killed
            # instance's open transaction in eos-read-process-write.
            transaction.state.log.num.partitions=1
            transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
        "#]]
        .assert_eq(&text);
        assert!(!text.contains("0.0.0.0") && !text.contains("localhost"));
    }

    #[test]
    fn the_free_running_broker_differs_only_in_its_group_settings() {
        let ports = BrokerPorts { broker: 40001, controller: 40002, faulty: 40003, proxy: 40004 };
        let dir = Path::new("/tmp/conformance/free-running-kafka/logs");
        let single = server_properties(&ports, dir);
        let free = free_running_properties(&ports, dir);
        for (key, value) in FREE_RUNNING_SETTINGS {
            let lines: Vec<&str> = free.lines().filter(|l| l.split('=').next() == Some(key)).collect();
            assert_eq!(lines, [format!("{key}={value}")], "{key}");
        }
        let settings: Vec<&str> = FREE_RUNNING_SETTINGS.iter().map(|(k, _)| *k).collect();
        let rest = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !settings.contains(&l.split('=').next().unwrap_or_default()))
                .filter(|l| !l.starts_with("# The free-running"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(rest(&free), rest(&single));
        assert_eq!(free_running_setting("offsets.retention.minutes"), "1");
    }

    #[test]
    fn free_ports_are_distinct_and_loopback() {
        let p = free_ports().unwrap();
        let all = [p.broker, p.controller, p.faulty, p.proxy];
        assert!(all.iter().all(|&port| port > 0));
        assert_eq!(all.iter().collect::<std::collections::BTreeSet<_>>().len(), 4, "{p:?}");
    }

    #[test]
    fn the_subset_fits_in_the_test_run() {
        assert!(SUBSET_LIMIT + READY_LIMIT + STOP_GRACE < Duration::from_secs(10 * 60));
    }
}
