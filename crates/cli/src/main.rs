//! `offsetlab`: Kafka's default partitioner, what growing a topic moves,
//! Kafka's client assignors, headless runs of the consumer-group simulation,
//! and the shrinking of a scenario to what shows an anomaly.
//!
//! Errors go to stderr as `offsetlab: <problem>` with exit code 2; `check`
//! exits 1 when the split check finds a violation.

mod assign;
mod explain;
mod keys;
mod run;
mod shrink;

use clap::{Args, Parser, Subcommand};
use keys::Key;
use offsetlab_engine::{murmur2, partition_for_key, to_positive};
use std::io::{self, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

/// Partition counts the `partition` and `expand` commands accept.
const PARTITIONS_MAX: u32 = 1_000_000;

#[derive(Debug, Parser)]
#[command(
    name = "offsetlab",
    version,
    about = "Kafka's partitioner, partition growth, assignors, headless consumer-group runs, and shrinking."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the partition Kafka's default partitioner picks for each key.
    ///
    /// One line per key, in input order: the key as given, a tab, the
    /// partition (`toPositive(murmur2(key)) % N`).
    Partition(PartitionArgs),
    /// Show which keys change partition when a topic grows from N to M partitions.
    ///
    /// Prints `moved K of T keys (x.y%)`; with --verbose, first one line per
    /// moved key: `KEY OLD -> NEW`.
    Expand(ExpandArgs),
    /// Print the partitions Kafka's client assignors give each member of a group.
    ///
    /// Every member subscribes to every topic. Prints one JSON object on one
    /// line: member -> topic -> partitions, every member and topic listed.
    /// With --previous, sticky and cooperative-sticky keep what members owned
    /// where balance allows; cooperative-sticky prints where its two
    /// rebalances end (--first-round: the first).
    Assign(assign::AssignArgs),
    /// Run a scenario headless and print the group's offsets and the counters.
    ///
    /// Prints `scenario NAME seed S ticks T`, the `kafka-consumer-groups
    /// --describe` table, then one counter per line, and with brokers or a producer delivery
    /// path a `producer` block (acknowledged then lost, written twice by the producer, reordered by the producer, writes refused); with
    /// --json, one JSON object. A scenario with a guide ends with its outcome check: `outcome: reproduced:
    /// WHAT IT SAYS` or `outcome: not reproduced (THE FIRST FAILING CONDITION)`.
    Run(RunArgs),
    /// Explain each anomaly of a run: the chain of events from its cause to the record.
    ///
    /// Without --record or --anomaly, every counter above zero: its count,
    /// its name in Jepsen's Kafka checker, the records by cause, then one line
    /// per record, e.g. `P1@0 delivered twice — t2 c1 handled it (generation 1,
    /// commit after); t3 c1 crashed before committing; …; t14 c2 handled it
    /// again`, or per run of records whose chains read the same, e.g.
    /// `P0@60..79 (20 records) delivered twice — t4..5 c1 handled it; …`. With
    /// --json, one JSON object: the reports per group, a record each.
    Explain(ExplainArgs),
    /// Run a scenario headless, then booblik's split check: every record
    /// reached a consumer, and each partition's written records equal the
    /// position its consumer holds. Exits 1 on a violation, listing it.
    Check(CheckArgs),
    /// List the built-in scenarios under their topics: name, then what it shows.
    Scenarios,
    /// Open a link shared from the page and print that moment as `run` does.
    ///
    /// Takes the whole URL or its query (`h=…&s=…&seed=…&t=…&in=…`); replays
    /// the scenario with the seed and the inputs made by hand up to the tick the
    /// link shows. A changed or cut link is refused. With --export, prints the
    /// run as scenario JSON instead (what `run --scenario FILE` reads).
    Open(OpenArgs),
    /// Shrink a scenario to a smaller one whose run still ends with COUNTER above 0.
    ///
    /// Removes timeline inputs (delta debugging), lowers counts, rates,
    /// partitions and consumers, moves inputs earlier and ends the run sooner,
    /// keeping only what a run shows still ends with the counter above 0 (in
    /// any group): the result reproduces with `offsetlab run --scenario FILE`.
    /// Prints the shrunk scenario JSON (or writes it to --out), and to stderr:
    /// inputs and ticks before -> after, the counter before -> after, the runs
    /// tried, and whether --max-runs or --max-seconds stopped it early (the
    /// result then still shows the counter). With --json, one JSON object on
    /// stdout with the report and the scenario (`shrunk`).
    Shrink(ShrinkArgs),
}

#[derive(Debug, Args)]
struct ShrinkArgs {
    #[command(flatten)]
    scenario: ScenarioName,
    /// The counter that must stay above 0, named as `run --json` names it:
    /// duplicates, never_processed, out_of_key_order, acked_lost,
    /// producer_duplicates, commit_failed, …
    #[arg(long, value_name = "COUNTER", value_parser = shrink::parse_anomaly)]
    anomaly: offsetlab_engine::Metric,
    /// Write the shrunk scenario to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Runs the shrink may make, the original's and the check of the result included.
    #[arg(long, value_name = "N", value_parser = shrink::parse_max_runs,
          default_value_t = offsetlab_engine::limits::SHRINK_RUNS_DEFAULT)]
    max_runs: u32,
    /// Seconds the shrink may take: no run starts after them, and a run under way stops.
    #[arg(long, value_name = "S", value_parser = shrink::parse_max_seconds,
          default_value_t = shrink::SECONDS_DEFAULT)]
    max_seconds: u64,
    /// Print one JSON object on one line: the report and the shrunk scenario.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct OpenArgs {
    /// The link (quote it: it contains `&`).
    #[arg(value_name = "LINK")]
    link: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Print the run as scenario JSON.
    #[arg(long, conflicts_with = "json")]
    export: bool,
}

#[derive(Debug, Args)]
struct KeyArgs {
    /// Keys: UTF-8 text, or hex bytes with --hex. Put `--` before keys that start with `-`.
    #[arg(value_name = "KEY")]
    keys: Vec<String>,
    /// Also read keys from FILE (`-` for stdin), one per line, after the KEY arguments.
    ///
    /// Keys from the arguments come first, then the file's, in order. Empty
    /// lines are skipped (give the empty key as an argument: ""); a line's
    /// trailing CR is dropped; other lines are keys exactly as written, spaces
    /// included. With --hex, each line is one hex key.
    #[arg(long, value_name = "FILE")]
    keys_file: Option<PathBuf>,
    /// Keys are hex bytes, two digits per byte (`666f6f` is "foo"), in arguments and file.
    #[arg(long)]
    hex: bool,
}

#[derive(Debug, Args)]
struct PartitionArgs {
    /// Partitions of the topic (1 to 1000000).
    #[arg(long, value_name = "N", value_parser = parse_partitions)]
    partitions: u32,
    #[command(flatten)]
    keys: KeyArgs,
}

#[derive(Debug, Args)]
struct ExpandArgs {
    /// Partitions before (1 to 1000000).
    #[arg(long, value_name = "N", value_parser = parse_partitions)]
    from: u32,
    /// Partitions after: more than --from, since Kafka can only add partitions.
    #[arg(long, value_name = "M", value_parser = parse_partitions)]
    to: u32,
    /// Also print each moved key: `KEY OLD -> NEW`.
    #[arg(long, short)]
    verbose: bool,
    #[command(flatten)]
    keys: KeyArgs,
}

/// Which scenario: shared by `run`, `check` and `shrink`.
#[derive(Debug, Args)]
struct ScenarioName {
    /// A built-in scenario's name (see `offsetlab scenarios`) or the path of a scenario JSON file.
    ///
    /// A built-in's name wins over a file of the same name; write `./NAME` for the file.
    #[arg(long = "scenario", value_name = "NAME|FILE.json", conflicts_with = "scenario_positional")]
    scenario_option: Option<String>,
    /// The scenario, as `--scenario` takes it: `offsetlab run acks1-leader-crash` is
    /// `offsetlab run --scenario acks1-leader-crash`.
    #[arg(value_name = "SCENARIO", required_unless_present = "scenario_option", id = "scenario_positional")]
    scenario_positional: Option<String>,
}

impl ScenarioName {
    /// The scenario named by `--scenario` or in the first position (clap requires exactly one).
    fn get(&self) -> &str {
        self.scenario_option.as_deref().or(self.scenario_positional.as_deref()).unwrap_or_default()
    }
}

/// Which scenario to run, and how: shared by `run` and `check`.
#[derive(Debug, Args)]
struct ScenarioArgs {
    #[command(flatten)]
    name: ScenarioName,
    /// Seed for every random choice; defaults to the scenario's config.seed.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Ticks to run; defaults to the scenario's ticks.
    #[arg(long, value_name = "T")]
    ticks: Option<u64>,
    /// Print one JSON object on one line (`run`: scenario, seed, tick, metrics, describe,
    /// outcome; `check`: the split check).
    #[arg(long)]
    json: bool,
}

impl ScenarioArgs {
    /// The scenario named by `--scenario` or in the first position.
    fn scenario(&self) -> &str {
        self.name.get()
    }
}

#[derive(Debug, Args)]
struct RunArgs {
    #[command(flatten)]
    run: ScenarioArgs,
    /// Keep each consumer's position in DIR across runs (booblik's FileOffsetStore:
    /// DIR/cN/orders-P.pos). The run uses consumer-side offset stores, loads them
    /// at the start, prints resumedFrom per consumer, and saves them at the end.
    #[arg(long, value_name = "DIR")]
    offset_dir: Option<PathBuf>,
    /// Leave out the timeline's learner inputs, as the page's guided run does:
    /// what happens if nobody does the guide's steps.
    #[arg(long)]
    guided: bool,
    /// With --json: also print the scenario's config and every event the run
    /// emitted, in order (`config`, `events`): what the conformance harness
    /// replays against a real Kafka.
    #[arg(long, requires = "json", conflicts_with = "offset_dir")]
    events: bool,
    /// Which `kafka-consumer-groups --describe` view to print: the offsets
    /// (default), `--members` or `--state`, as Kafka 4.4 prints them.
    #[arg(long, value_enum, value_name = "VIEW", default_value_t = run::DescribeView::Offsets)]
    describe: run::DescribeView,
    /// With --json: also explain every anomaly (`explanations`, as `explain --json` prints them).
    #[arg(long, requires = "json", conflicts_with = "events")]
    explain: bool,
    /// `--verbose` for the describe view: LEADER-EPOCH (offsets), the member
    /// and target epochs and assignments (members), the group epochs (state).
    #[arg(long, short)]
    verbose: bool,
}

// `--all`'s help says the bound.
const _: () = assert!(offsetlab_engine::EXPLANATIONS_MAX == 200);

#[derive(Debug, Args)]
struct ExplainArgs {
    #[command(flatten)]
    run: ScenarioArgs,
    /// One counter's records: duplicates, never_processed (or skipped_by_reset), out_of_key_order.
    #[arg(long, value_name = "COUNTER", conflicts_with = "record")]
    anomaly: Option<String>,
    /// One record's explanations: PARTITION@OFFSET, like P1@17.
    #[arg(long, value_name = "P@OFFSET")]
    record: Option<String>,
    /// List every record explained, not the first 20 lines (a counter explains its first 200 records
    /// one by one; its causes count them all).
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
struct CheckArgs {
    #[command(flatten)]
    run: ScenarioArgs,
}

fn parse_partitions(text: &str) -> Result<u32, String> {
    let range = || format!("a topic has 1 to {PARTITIONS_MAX} partitions");
    match text.parse::<u64>() {
        Ok(n) if (1..=u64::from(PARTITIONS_MAX)).contains(&n) => Ok(n as u32),
        Ok(n) => Err(format!("{}; got {n}", range())),
        Err(_) => Err(format!("{}; {text:?} is not a whole number", range())),
    }
}

/// Why the command failed: printed as `offsetlab: <message>`, exit code 2.
#[derive(Debug)]
pub enum Failure {
    Message(String),
    /// Writing to stdout failed (a closed pipe ends quietly).
    Output(io::Error),
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Failure {
        Failure::Message(message.into())
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Output(e)
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprint!("offsetlab: no command given\n\n{}", e.render());
            return ExitCode::from(2);
        }
        Err(e) => {
            let text = e.render().to_string();
            eprint!("offsetlab: {}", text.strip_prefix("error: ").unwrap_or(&text));
            return ExitCode::from(2);
        }
    };
    match execute(cli.command) {
        Ok(Verdict::Pass) => ExitCode::SUCCESS,
        Ok(Verdict::Violations) => ExitCode::from(1),
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            eprintln!("offsetlab: cannot write the output: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Message(message)) => {
            eprintln!("offsetlab: {message}");
            ExitCode::from(2)
        }
    }
}

/// How a command that ran went.
enum Verdict {
    Pass,
    /// `check` found violations: exit code 1.
    Violations,
}

fn execute(command: Command) -> Result<Verdict, Failure> {
    let mut verdict = Verdict::Pass;
    let mut out = io::BufWriter::new(io::stdout().lock());
    match command {
        Command::Partition(args) => {
            let keys = read_keys(&args.keys)?;
            for key in &keys {
                writeln!(out, "{}\t{}", key.shown, partition_for_key(&key.bytes, args.partitions))?;
            }
        }
        Command::Expand(args) => {
            if args.to <= args.from {
                return Err(Failure::new(format!(
                    "--to must be more than --from: Kafka can only add partitions (got --from {} --to {})",
                    args.from, args.to
                )));
            }
            let keys = read_keys(&args.keys)?;
            let mut moved: u64 = 0;
            for key in &keys {
                let hash = to_positive(murmur2(&key.bytes));
                let (old, new) = (hash % args.from, hash % args.to);
                if old != new {
                    moved += 1;
                    if args.verbose {
                        writeln!(out, "{} {old} -> {new}", key.shown)?;
                    }
                }
            }
            writeln!(out, "{}", moved_summary(moved, keys.len() as u64))?;
        }
        Command::Run(args) => {
            let RunArgs { run, offset_dir, guided, events, describe, verbose, explain } = args;
            let ScenarioArgs { seed, ticks, json, .. } = run;
            let mut loaded = run::load(run.scenario())?;
            if guided {
                loaded.scenario = loaded.scenario.guided();
            }
            let mut outcome = match &offset_dir {
                Some(dir) => run::run_with_offset_dir(loaded, seed, ticks, dir)?,
                None if events => {
                    let (mut outcome, events) = run::run_with_events(loaded, seed, ticks)?;
                    outcome.describe = (describe, verbose);
                    writeln!(out, "{}", outcome.json_with_events(&events))?;
                    out.flush()?;
                    return Ok(verdict);
                }
                None => run::run(loaded, seed, ticks)?,
            };
            outcome.describe = (describe, verbose);
            if explain {
                outcome.explanations = Some(explain::answer(&outcome.sim, explain::Query::All)?);
            }
            if json {
                writeln!(out, "{}", outcome.json())?;
            } else {
                write!(out, "{}", outcome.text())?;
            }
        }
        Command::Explain(args) => {
            let query = explain::Query::parse(args.anomaly.as_deref(), args.record.as_deref())?;
            let ScenarioArgs { seed, ticks, json, .. } = args.run;
            let loaded = run::load(args.run.scenario())?;
            let outcome = run::run(loaded, seed, ticks)?;
            let answers = explain::answer(&outcome.sim, query)?;
            if json {
                let json = serde_json::to_string(&answers)
                    .map_err(|e| Failure::new(format!("cannot write the explanations as JSON: {e}")))?;
                writeln!(out, "{json}")?;
            } else {
                let listed =
                    if args.all { offsetlab_engine::EXPLANATIONS_MAX } else { explain::LISTED_DEFAULT };
                write!(out, "{}", explain::text(&answers, query, listed))?;
            }
        }
        Command::Check(args) => {
            let ScenarioArgs { seed, ticks, json, .. } = args.run;
            let loaded = run::load(args.run.scenario())?;
            let outcome = run::run(loaded, seed, ticks)?;
            let check = outcome.sim.split_check();
            if json {
                writeln!(out, "{}", outcome.check_json(&check))?;
            } else {
                write!(out, "{}", outcome.check_text(&check))?;
            }
            if !check.passed() {
                verdict = Verdict::Violations;
            }
        }
        Command::Assign(args) => assign::run(&args, &mut out)?,
        Command::Scenarios => write!(out, "{}", run::listing())?,
        Command::Shrink(args) => {
            let request = shrink::Request {
                scenario: args.scenario.get(),
                counter: args.anomaly,
                max_runs: args.max_runs,
                max_seconds: args.max_seconds,
            };
            let shrunk = shrink::shrink_scenario(&request)?;
            let out_path = args.out.as_deref();
            if let Some(path) = out_path {
                shrink::write_out(&shrunk, path)?;
            }
            if args.json {
                writeln!(out, "{}", shrink::report_json(&request, &shrunk, out_path)?)?;
            } else {
                if out_path.is_none() {
                    writeln!(out, "{}", shrunk.json)?;
                }
                out.flush()?;
                eprint!("{}", shrink::report_text(&request, &shrunk, out_path));
            }
        }
        Command::Open(args) => {
            let (outcome, scenario) = run::open(&args.link)?;
            if args.export {
                writeln!(out, "{}", scenario.to_json())?;
            } else if args.json {
                writeln!(out, "{}", outcome.json())?;
            } else {
                write!(out, "{}", outcome.text())?;
            }
        }
    }
    out.flush()?;
    Ok(verdict)
}

fn read_keys(args: &KeyArgs) -> Result<Vec<Key>, Failure> {
    keys::collect(&args.keys, args.keys_file.as_deref(), args.hex)
}

/// `moved K of T keys (x.y%)`, the percentage rounded half up to one decimal.
fn moved_summary(moved: u64, total: u64) -> String {
    let tenths =
        if total == 0 { 0 } else { (u128::from(moved) * 1000 + u128::from(total) / 2) / u128::from(total) };
    format!("moved {moved} of {total} keys ({}.{}%)", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_rounds_to_one_decimal() {
        assert_eq!(moved_summary(2, 4), "moved 2 of 4 keys (50.0%)");
        assert_eq!(moved_summary(1, 3), "moved 1 of 3 keys (33.3%)");
        assert_eq!(moved_summary(2, 3), "moved 2 of 3 keys (66.7%)");
        assert_eq!(moved_summary(1, 8), "moved 1 of 8 keys (12.5%)");
        assert_eq!(moved_summary(1, 16), "moved 1 of 16 keys (6.3%)");
        assert_eq!(moved_summary(0, 0), "moved 0 of 0 keys (0.0%)");
        assert_eq!(moved_summary(7, 7), "moved 7 of 7 keys (100.0%)");
    }

    #[test]
    fn partition_counts_are_checked() {
        assert_eq!(parse_partitions("1"), Ok(1));
        assert_eq!(parse_partitions("1000000"), Ok(1_000_000));
        assert!(parse_partitions("0").unwrap_err().contains("got 0"));
        assert!(parse_partitions("1000001").is_err());
        assert!(parse_partitions("-3").unwrap_err().contains("not a whole number"));
        assert!(parse_partitions("99999999999999999999999").is_err());
    }

    #[test]
    fn the_cli_is_well_formed() {
        use clap::CommandFactory as _;
        Cli::command().debug_assert();
    }
}
