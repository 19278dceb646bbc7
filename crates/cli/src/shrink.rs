//! `offsetlab shrink`: the smallest scenario found that still shows an
//! anomaly, written in the scenario format, with a report of what it took.

use crate::Failure;
use crate::run;
use offsetlab_engine::{Metric, Scenario, ShrinkLimit, ShrinkReport, anomaly, shrink};
use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// The wall-clock bound of `--max-seconds`, in seconds: the engine has no
/// clock, so this one is the command's.
pub const SECONDS_DEFAULT: u64 = 60;
/// The most `--max-seconds` takes: a day.
pub const SECONDS_MAX: u64 = 86_400;

/// `--anomaly`: a counter's name, refused with the list of names.
pub fn parse_anomaly(text: &str) -> Result<Metric, String> {
    anomaly(text).map_err(|e| e.to_string())
}

/// `--max-runs`: the runs a shrink may make.
pub fn parse_max_runs(text: &str) -> Result<u32, String> {
    use offsetlab_engine::limits::{SHRINK_RUNS_MAX, SHRINK_RUNS_MIN};
    let range = || {
        format!(
            "a shrink makes {SHRINK_RUNS_MIN} to {SHRINK_RUNS_MAX} runs (the original's and the check of \
             the result at least)"
        )
    };
    match text.parse::<u64>() {
        Ok(n) if (u64::from(SHRINK_RUNS_MIN)..=u64::from(SHRINK_RUNS_MAX)).contains(&n) => Ok(n as u32),
        Ok(n) => Err(format!("{}; got {n}", range())),
        Err(_) => Err(format!("{}; {text:?} is not a whole number", range())),
    }
}

/// `--max-seconds`: the wall-clock time a shrink may take.
pub fn parse_max_seconds(text: &str) -> Result<u64, String> {
    let range = || format!("a shrink may take 1 to {SECONDS_MAX} seconds");
    match text.parse::<u64>() {
        Ok(n) if (1..=SECONDS_MAX).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{}; got {n}", range())),
        Err(_) => Err(format!("{}; {text:?} is not a whole number", range())),
    }
}

/// What the command was asked.
#[derive(Debug)]
pub struct Request<'a> {
    pub scenario: &'a str,
    pub counter: Metric,
    pub max_runs: u32,
    pub max_seconds: u64,
}

/// A finished shrink: the report and the shrunk scenario as the format writes it.
#[derive(Debug)]
pub struct Shrunk {
    pub name: String,
    pub report: ShrinkReport,
    /// `report.scenario` as scenario JSON (what `run --scenario FILE` reads).
    pub json: String,
}

/// Loads the scenario as `run` does and shrinks it, stopping at the runs or
/// the seconds given (the original's run and the check of the result always
/// run whole).
pub fn shrink_scenario(request: &Request) -> Result<Shrunk, Failure> {
    let loaded = run::load(request.scenario)?;
    let deadline = Instant::now() + Duration::from_secs(request.max_seconds);
    let report = shrink(&loaded.scenario, request.counter, request.max_runs, || Instant::now() < deadline)
        .map_err(|e| Failure::new(format!("scenario {}: {e}", loaded.name)))?;
    let json = report.scenario.to_json();
    // The file is what the user keeps: it must read back as the scenario that was checked.
    if Scenario::parse(&json).as_ref() != Ok(&report.scenario) {
        return Err(Failure::new(format!(
            "scenario {}: the shrunk scenario does not read back as it was written",
            loaded.name
        )));
    }
    Ok(Shrunk { name: loaded.name, report, json })
}

/// Writes the shrunk scenario to `out`.
pub fn write_out(shrunk: &Shrunk, out: &Path) -> Result<(), Failure> {
    std::fs::write(out, format!("{}\n", shrunk.json))
        .map_err(|e| Failure::new(format!("cannot write {}: {e}", out.display())))
}

/// What stopped the search, in the options' words.
fn stopped_by(request: &Request, stopped: Option<ShrinkLimit>) -> Option<String> {
    stopped.map(|limit| match limit {
        ShrinkLimit::Runs => format!("--max-runs {}", request.max_runs),
        ShrinkLimit::Caller => format!("--max-seconds {}", request.max_seconds),
    })
}

/// The report as text (for stderr): a line each, labels padded as `run`'s counters.
pub fn report_text(request: &Request, shrunk: &Shrunk, out: Option<&Path>) -> String {
    let r = &shrunk.report;
    let mut text = String::new();
    let _ = writeln!(text, "shrunk {} for {} in {} runs", shrunk.name, r.counter.name(), r.runs_tried);
    let _ = writeln!(text, "{:<17}{} -> {}", "inputs", r.inputs_before, r.inputs_after);
    let _ = writeln!(text, "{:<17}{} -> {}", "ticks", r.ticks_before, r.ticks_after);
    let _ = writeln!(text, "{:<17}{} -> {}", r.counter.name(), r.value_before, r.value_after);
    let stopped = match stopped_by(request, r.stopped) {
        Some(option) => format!("{option}: a smaller scenario may still show it"),
        None => "nothing: no smaller candidate tried shows it".to_string(),
    };
    let _ = writeln!(text, "{:<17}{stopped}", "stopped by");
    if let Some(out) = out {
        let _ = writeln!(text, "{:<17}{}", "written to", out.display());
    }
    text
}

/// `--json`'s object, fields in this order.
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    scenario: &'a str,
    anomaly: &'static str,
    inputs_before: usize,
    inputs_after: usize,
    ticks_before: u64,
    ticks_after: u64,
    value_before: u64,
    value_after: u64,
    runs_tried: u32,
    /// The option that ended the search early (`--max-runs N`), or null.
    stopped_by: Option<String>,
    /// Where the shrunk scenario was written, with `--out`.
    out: Option<String>,
    /// The shrunk scenario, as the format writes it on one line (its
    /// fields in the format's order, which a JSON value would sort).
    shrunk: Box<RawValue>,
}

/// The report and the shrunk scenario as one JSON object on one line.
pub fn report_json(request: &Request, shrunk: &Shrunk, out: Option<&Path>) -> Result<String, Failure> {
    let r = &shrunk.report;
    let scenario = RawValue::from_string(r.scenario.to_json_compact()).map_err(|e| {
        Failure::new(format!("scenario {}: the shrunk scenario is not JSON: {e}", shrunk.name))
    })?;
    let report = JsonReport {
        scenario: &shrunk.name,
        anomaly: r.counter.name(),
        inputs_before: r.inputs_before,
        inputs_after: r.inputs_after,
        ticks_before: r.ticks_before,
        ticks_after: r.ticks_after,
        value_before: r.value_before,
        value_after: r.value_after,
        runs_tried: r.runs_tried,
        stopped_by: stopped_by(request, r.stopped),
        out: out.map(|p| p.display().to_string()),
        shrunk: scenario,
    };
    Ok(serde_json::to_string(&report).expect("strings, integers and JSON text always serialize"))
}
