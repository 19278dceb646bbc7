//! `offsetlab run` and `offsetlab scenarios`.

use crate::Failure;
use offsetlab_engine::{BUILTINS, SCENARIO_BYTES_MAX, Scenario, ScenarioError, Sim, Tick, builtin, builtins};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;

/// A scenario ready to run, and the name its output shows.
#[derive(Debug)]
pub struct Loaded {
    pub name: String,
    pub scenario: Scenario,
}

/// A built-in by name; otherwise a JSON file when `arg` looks like a path.
pub fn load(arg: &str) -> Result<Loaded, Failure> {
    if BUILTINS.iter().any(|(name, _)| *name == arg) {
        let scenario = builtin(arg).map_err(|e| Failure::new(e.to_string()))?;
        return Ok(Loaded { name: arg.to_string(), scenario });
    }
    let path = Path::new(arg);
    let looks_like_path = arg.contains('/')
        || arg.contains(std::path::MAIN_SEPARATOR)
        || arg.ends_with(".json")
        || path.exists();
    if !looks_like_path {
        return Err(Failure::new(format!(
            "{} (or give the path of a scenario .json file)",
            ScenarioError::UnknownBuiltin(arg.to_string())
        )));
    }
    let text = read_scenario_file(path)?;
    let scenario = Scenario::parse(&text).map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    let name = if scenario.name.is_empty() { arg.to_string() } else { scenario.name.clone() };
    Ok(Loaded { name, scenario })
}

fn read_scenario_file(path: &Path) -> Result<String, Failure> {
    let cannot = |e: std::io::Error| Failure::new(format!("cannot read {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    // One byte past the limit is enough for the parser to refuse the size.
    file.take(SCENARIO_BYTES_MAX as u64 + 1).read_to_end(&mut bytes).map_err(cannot)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Failure::new(format!("{}: not UTF-8 text (invalid byte at offset {at})", path.display()))
    })
}

/// The outcome of one headless run.
#[derive(Debug)]
pub struct Outcome {
    pub name: String,
    pub seed: u64,
    pub ticks: u64,
    pub sim: Sim,
}

/// Runs `loaded` with the seed and tick count overridden where given.
pub fn run(loaded: Loaded, seed: Option<u64>, ticks: Option<u64>) -> Result<Outcome, Failure> {
    let seed = seed.unwrap_or(loaded.scenario.config.seed);
    let ticks = ticks.unwrap_or(loaded.scenario.ticks);
    let sim = loaded
        .scenario
        .run(Some(seed), Some(ticks))
        .map_err(|e| Failure::new(format!("scenario {} (seed {seed}, ticks {ticks}): {e}", loaded.name)))?;
    Ok(Outcome { name: loaded.name, seed, ticks, sim })
}

const COUNTERS: [&str; 8] = [
    "delivered",
    "duplicates",
    "effects",
    "never processed",
    "out of key order",
    "total lag",
    "active consumers",
    "generation",
];

impl Outcome {
    fn counters(&self) -> [u64; 8] {
        let m = self.sim.metrics();
        [
            m.delivered,
            m.duplicates,
            m.effects,
            m.never_processed,
            m.out_of_key_order,
            m.total_lag,
            u64::from(m.active_consumers),
            u64::from(m.generation),
        ]
    }

    /// The header line, the describe table, then one counter per line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "scenario {} seed {} ticks {}", self.name, self.seed, self.ticks);
        let table = offsetlab_engine::describe(&self.sim);
        let table = table.trim_end_matches('\n');
        if !table.is_empty() {
            let _ = writeln!(out, "\n{table}");
        }
        out.push('\n');
        for (label, value) in COUNTERS.iter().zip(self.counters()) {
            let _ = writeln!(out, "{label:<17}{value}");
        }
        out
    }

    /// One JSON object, on one line.
    pub fn json(&self) -> String {
        let m = self.sim.metrics();
        let describe = offsetlab_engine::describe(&self.sim);
        let report = JsonReport {
            scenario: &self.name,
            seed: self.seed,
            tick: self.sim.now(),
            metrics: JsonMetrics {
                delivered: m.delivered,
                duplicates: m.duplicates,
                effects: m.effects,
                never_processed: m.never_processed,
                out_of_key_order: m.out_of_key_order,
                total_lag: m.total_lag,
                active_consumers: m.active_consumers,
                generation: m.generation,
            },
            describe: &describe,
        };
        serde_json::to_string(&report).expect("strings and integers always serialize")
    }
}

/// `run --json`'s object, fields in this order.
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    scenario: &'a str,
    seed: u64,
    tick: Tick,
    metrics: JsonMetrics,
    describe: &'a str,
}

#[derive(Debug, Serialize)]
struct JsonMetrics {
    delivered: u64,
    duplicates: u64,
    effects: u64,
    never_processed: u64,
    out_of_key_order: u64,
    total_lag: u64,
    active_consumers: u32,
    generation: u32,
}

/// `offsetlab scenarios`: name, padded, then the summary.
pub fn listing() -> String {
    // The names `run --scenario` takes, beside each scenario's summary.
    let width = BUILTINS.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for ((name, _), s) in BUILTINS.iter().zip(builtins()) {
        let line = format!("{name:<width$}  {}", s.summary);
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}
