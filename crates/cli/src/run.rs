//! `offsetlab run` and `offsetlab scenarios`.

use crate::Failure;
use offsetlab_engine::LetterTopicId;
use offsetlab_engine::{
    BUILTINS, CheckpointWrites, ConsumerId, Fate, FindingKind, Input, Metric, Metrics, PayoutRecordView,
    PositionModel, SCENARIO_BYTES_MAX, Scenario, ScenarioError, Sim, SplitCheck, SplitStatus, Tick,
    TimedInput, Topic, builtin, builtins,
};
use offsetlab_store::FileOffsetStore;
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
    /// With `--offset-dir`: where each consumer resumed, `(consumer, partition, offset)`.
    pub resumed: Option<Vec<(ConsumerId, u32, u64)>>,
    /// The guide's outcome check at the end of the run, when the scenario has a guide:
    /// what it says when reproduced, or the first condition that does not hold.
    pub guide_outcome: Option<Result<String, String>>,
    /// The describe view the output shows, and whether verbose.
    pub describe: (DescribeView, bool),
    /// `--explain`: every anomaly explained, per group.
    pub explanations: Option<Vec<crate::explain::GroupAnswer>>,
}

/// `kafka-consumer-groups --describe`'s views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DescribeView {
    /// The offsets table (`--offsets`, the default).
    Offsets,
    /// `--members`: each member's id, host, client id and partitions.
    Members,
    /// `--state`: the coordinator, assignor, state and member count.
    State,
    /// `kafka-topics --describe --topic orders`: each partition's leader,
    /// replicas and ISR (printed once, before the groups' counters).
    Topic,
}

/// `run --offset-dir DIR`: the run keeps positions in consumer-side stores,
/// loaded from `DIR/cN/orders-P.pos` at tick 0 and saved there at the end.
/// A torn or foreign file stops the run before anything is overwritten.
pub fn run_with_offset_dir(
    mut loaded: Loaded,
    seed: Option<u64>,
    ticks: Option<u64>,
    dir: &Path,
) -> Result<Outcome, Failure> {
    let config = &mut loaded.scenario.config;
    for group in &mut config.groups {
        if group.position == PositionModel::Group {
            group.position = PositionModel::Consumer { writes: CheckpointWrites::Atomic, write_ticks: 1 };
        }
    }
    // Consumers are numbered across the groups in config order.
    let consumers: u32 = config.groups.iter().map(|g| g.consumers).sum();
    let store_of = |consumer: ConsumerId| {
        FileOffsetStore::open(dir.join(consumer.to_string())).map_err(|e| Failure::new(e.to_string()))
    };
    let mut loads = Vec::new();
    for n in 1..=consumers {
        let consumer = ConsumerId(n);
        let store = store_of(consumer)?;
        for partition in 0..config.partitions {
            let stored =
                store.read(&format!("orders-{partition}")).map_err(|e| Failure::new(e.to_string()))?;
            if let Some(offset) = stored {
                loads.push(TimedInput {
                    tick: 0,
                    input: Input::LoadCheckpoint { consumer, partition, offset },
                    learner: false,
                });
            }
        }
    }
    loads.append(&mut loaded.scenario.timeline);
    loaded.scenario.timeline = loads;
    let mut outcome = run(loaded, seed, ticks)?;
    let view = outcome.sim.view();
    for consumer in &view.consumers {
        let store = store_of(consumer.id)?;
        for &(partition, offset) in &consumer.stored {
            store.write(&format!("orders-{partition}"), offset).map_err(|e| Failure::new(e.to_string()))?;
        }
    }
    let resumed =
        view.consumers.iter().flat_map(|c| c.resumed_from.iter().map(move |&(p, o)| (c.id, p, o))).collect();
    outcome.resumed = Some(resumed);
    Ok(outcome)
}

/// A shared link from the page (the whole URL, or only its query): the run it
/// reproduces, at the tick it shows, and that run as a scenario file.
pub fn open(link: &str) -> Result<(Outcome, offsetlab_engine::Scenario), Failure> {
    let query = link.split_once('?').map_or(link, |(_, query)| query);
    let query = query.split_once('#').map_or(query, |(query, _)| query);
    let link = offsetlab_engine::Link::parse_query(query).map_err(|e| Failure::new(format!("link: {e}")))?;
    let (scenario, guided) = link.scenario.resolve().map_err(|e| Failure::new(format!("link: {e}")))?;
    let scenario = if guided { scenario.guided() } else { scenario };
    let name = scenario.name.clone();
    let (seed, tick) = (link.seed, link.tick);
    let journal = link.inputs.into_iter().map(offsetlab_engine::JournalEntry::from).collect();
    let history = offsetlab_engine::History::replay(scenario, seed, journal, tick)
        .map_err(|e| Failure::new(format!("link (scenario {name}, seed {seed}, tick {tick}): {e}")))?;
    let sim = history.sim().clone();
    let guide_outcome = history.scenario().guide.as_ref().map(|g| g.outcome.evaluate(&sim));
    let outcome = Outcome {
        name,
        seed,
        ticks: tick,
        sim,
        resumed: None,
        guide_outcome,
        describe: (DescribeView::Offsets, false),
        explanations: None,
    };
    Ok((outcome, history.to_scenario()))
}

/// Events a run may print with `--events`: a run past this many is refused
/// rather than printed in part.
pub const RUN_EVENTS_MAX: usize = 1_000_000;

/// [`run`], keeping every event the simulation emitted, in order.
pub fn run_with_events(
    loaded: Loaded,
    seed: Option<u64>,
    ticks: Option<u64>,
) -> Result<(Outcome, Vec<offsetlab_engine::Event>), Failure> {
    let seed = seed.unwrap_or(loaded.scenario.config.seed);
    let ticks = ticks.unwrap_or(loaded.scenario.ticks);
    let mut events = Vec::new();
    let mut over = false;
    let sim = loaded
        .scenario
        .run_observed(Some(seed), Some(ticks), |event| {
            if events.len() < RUN_EVENTS_MAX {
                events.push(event);
            } else {
                over = true;
            }
        })
        .map_err(|e| Failure::new(format!("scenario {} (seed {seed}, ticks {ticks}): {e}", loaded.name)))?;
    if over {
        return Err(Failure::new(format!(
            "scenario {} (seed {seed}, ticks {ticks}) emits more than {RUN_EVENTS_MAX} events: run fewer ticks",
            loaded.name
        )));
    }
    Ok((Outcome::of(loaded, seed, ticks, sim), events))
}

/// Runs `loaded` with the seed and tick count overridden where given.
pub fn run(loaded: Loaded, seed: Option<u64>, ticks: Option<u64>) -> Result<Outcome, Failure> {
    let seed = seed.unwrap_or(loaded.scenario.config.seed);
    let ticks = ticks.unwrap_or(loaded.scenario.ticks);
    let sim = loaded
        .scenario
        .run(Some(seed), Some(ticks))
        .map_err(|e| Failure::new(format!("scenario {} (seed {seed}, ticks {ticks}): {e}", loaded.name)))?;
    Ok(Outcome::of(loaded, seed, ticks, sim))
}

/// The width of a counter's label in `run`'s text: every label is shorter, so a
/// space always parts it from its value.
const LABEL_WIDTH: usize = 17;

/// One counter's line: its label padded to [`LABEL_WIDTH`], then its value.
fn counter_line(out: &mut String, label: &str, value: u64) {
    assert!(label.len() < LABEL_WIDTH, "a counter's label fits its column: {label:?}");
    let _ = writeln!(out, "{label:<LABEL_WIDTH$}{value}");
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

/// The producer's counters (`--json`: acked_lost, producer_duplicates,
/// producer_reordered, writes_refused): acknowledged then cut by an election,
/// written twice by a retry, written out of order by a retry, refused with
/// NOT_ENOUGH_REPLICAS. Printed with the page's labels ([`Metric::label`]).
const PRODUCER_COUNTERS: [Metric; 4] =
    [Metric::AckedLost, Metric::ProducerDuplicates, Metric::ProducerReordered, Metric::WritesRefused];

/// A label's column in the producer block: its longest label and a space.
const PRODUCER_LABEL_WIDTH: usize = 35;

impl Outcome {
    /// A finished run of `loaded`, with its guide's outcome check and the offsets view.
    fn of(loaded: Loaded, seed: u64, ticks: u64, sim: Sim) -> Outcome {
        let guide_outcome = loaded.scenario.guide.as_ref().map(|g| g.outcome.evaluate(&sim));
        Outcome {
            name: loaded.name,
            seed,
            ticks,
            sim,
            resumed: None,
            guide_outcome,
            describe: (DescribeView::Offsets, false),
            explanations: None,
        }
    }
    fn counters(&self, g: usize) -> [u64; 8] {
        let m = self.sim.metrics_of(g);
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

    /// Group `g`'s describe view.
    fn table(&self, g: usize) -> String {
        let (view, verbose) = self.describe;
        match view {
            DescribeView::Offsets => offsetlab_engine::describe_offsets(&self.sim, g, verbose),
            DescribeView::Members => offsetlab_engine::describe_members(&self.sim, g, verbose),
            DescribeView::State => offsetlab_engine::describe_state(&self.sim, g, verbose),
            // The topic's, not a group's: printed once, with the first group.
            DescribeView::Topic if g == 0 => self.sim.describe_topic(),
            DescribeView::Topic => String::new(),
        }
    }

    /// The header line, the describe table, one counter per line, then (with a
    /// guide) whether the run reproduced the guide's outcome. With more than
    /// one group, each group's table and counters follow a `group NAME` line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "scenario {} seed {} ticks {}", self.name, self.seed, self.ticks);
        let groups = self.sim.group_count();
        for (g, view) in self.sim.view().groups.iter().enumerate() {
            if groups > 1 {
                let _ = writeln!(out, "\ngroup {}", view.name);
            }
            let table = self.table(g);
            let table = table.trim_end_matches('\n');
            if !table.is_empty() {
                let _ = writeln!(out, "\n{table}");
            }
            out.push('\n');
            for (label, value) in COUNTERS.iter().zip(self.counters(g)) {
                counter_line(&mut out, label, value);
            }
            // A share group's own counters; handler failures wherever there were any.
            let m = self.sim.metrics_of(g);
            if self.sim.config().groups[g].protocol == offsetlab_engine::GroupProtocol::Share {
                counter_line(&mut out, "archived", m.archived);
                counter_line(&mut out, "redelivered", m.redelivered);
            }
            if m.failed > 0 {
                counter_line(&mut out, "failed", m.failed);
            }
            // The poll timer's story, wherever it happened: members that left by
            // themselves and the commits that failed after.
            if m.skipped_by_reset > 0 {
                counter_line(&mut out, "skipped by reset", m.skipped_by_reset);
            }
            if m.members_left_poll_timeout > 0 || m.commit_failed > 0 {
                counter_line(&mut out, "left on poll", m.members_left_poll_timeout);
                counter_line(&mut out, "commits failed", m.commit_failed);
            }
            // Issue 40: what the error policy did with the failures, when it did anything.
            let failures = [
                ("handler skipped", m.skipped_by_handler),
                ("stuck ticks", m.stuck_partition_ticks),
                ("dead-lettered", m.dead_lettered),
                ("sent to retry", m.sent_to_retry),
                ("replayed", m.replayed),
                ("partial effects", m.partial_effects),
                ("double on replay", m.double_applied_on_replay),
            ];
            if failures.iter().any(|(_, v)| *v > 0) {
                for (label, value) in failures {
                    counter_line(&mut out, label, value);
                }
            }
            for (p, stuck) in view.stuck.iter().enumerate() {
                if let Some(f) = stuck.failing {
                    let _ = writeln!(
                        out,
                        "P{p} stuck at offset {} (record {}): {} failed attempts since tick {}",
                        f.offset, f.record_id, f.attempts, f.since
                    );
                }
            }
        }
        out.push_str(&letters_text(&self.sim));
        // The producer's side, once for the topic, when the run has brokers or a delivery path.
        let config = self.sim.config();
        if config.cluster.is_some() || config.producer.delivery.is_some() {
            let m = self.sim.metrics();
            let values = [m.acked_lost, m.producer_duplicates, m.producer_reordered, m.writes_refused];
            out.push_str("\nproducer\n");
            for (metric, value) in PRODUCER_COUNTERS.iter().zip(values) {
                let label = metric.label();
                let label = format!("{}{}", label[..1].to_ascii_lowercase(), &label[1..]);
                let _ = writeln!(out, "{label:<PRODUCER_LABEL_WIDTH$}{value}");
            }
        }
        if let Some(t) = self.sim.transactions_view() {
            out.push_str(&transactions_text(&t, &self.sim));
        }
        if let Some(resumed) = &self.resumed {
            out.push('\n');
            for (consumer, partition, offset) in resumed {
                let _ = writeln!(out, "{consumer} P{partition} resumedFrom {offset}");
            }
        }
        match &self.guide_outcome {
            Some(Ok(says)) => {
                let _ = writeln!(out, "outcome: reproduced: {says}");
            }
            Some(Err(failing)) => {
                let _ = writeln!(out, "outcome: not reproduced ({failing})");
            }
            None => {}
        }
        out
    }

    /// The split check as text: a line per partition, then the findings, then the verdict.
    pub fn check_text(&self, check: &SplitCheck) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "split check: scenario {} seed {} ticks {}", self.name, self.seed, self.ticks);
        for p in &check.partitions {
            let held = p.position.map_or("-".to_string(), |o| o.to_string());
            let holder = p.holder.map_or("nobody".to_string(), |c| c.to_string());
            let status = match p.status {
                SplitStatus::Equal => "equal".to_string(),
                SplitStatus::WithinOneBatch { behind } => format!("{behind} behind, within one batch"),
                SplitStatus::Behind { behind } => format!("{behind} behind"),
                SplitStatus::NoHolder => "no holder".to_string(),
            };
            let _ = writeln!(out, "P{} written {} held {held} by {holder}: {status}", p.partition, p.written);
        }
        for f in &check.findings {
            let label = match f.kind {
                FindingKind::LegalReplay => "legal replay",
                FindingKind::ResumedTooFarBack | FindingKind::NeverProcessed => "VIOLATION",
            };
            let ids: Vec<String> = f.record_ids.iter().map(u64::to_string).collect();
            let more = if f.more > 0 { format!(" (+{} more)", f.more) } else { String::new() };
            let _ = writeln!(
                out,
                "{label} at tick {}: {}; record ids {}{more}",
                f.tick,
                f.message,
                ids.join(", ")
            );
        }
        if check.passed() {
            let _ = writeln!(out, "passed: {} legal replays", check.legal_replays);
        } else {
            let _ = writeln!(out, "FAILED: {} violations", check.violations);
        }
        out
    }

    /// The split check as one JSON object.
    pub fn check_json(&self, check: &SplitCheck) -> String {
        let report = CheckReport {
            scenario: &self.name,
            seed: self.seed,
            tick: self.sim.now(),
            passed: check.passed(),
            check,
        };
        serde_json::to_string(&report).expect("plain data always serializes")
    }

    /// [`Outcome::json`] with two more fields: the config the run used and
    /// its events, in order.
    pub fn json_with_events(&self, events: &[offsetlab_engine::Event]) -> String {
        self.report(Some(events))
    }

    /// One JSON object, on one line: the first group's `metrics` and
    /// `describe` at the top (as before there were groups), then every group's.
    pub fn json(&self) -> String {
        self.report(None)
    }

    /// The `--json` object; with `events`, also the config and the event trace.
    fn report(&self, events: Option<&[offsetlab_engine::Event]>) -> String {
        let view = self.sim.view();
        let groups: Vec<JsonGroup> = view
            .groups
            .iter()
            .enumerate()
            .map(|(g, group)| JsonGroup {
                name: group.name.clone(),
                metrics: self.sim.metrics_of(g),
                describe: self.table(g),
            })
            .collect();
        let report = JsonReport {
            scenario: &self.name,
            seed: self.seed,
            tick: self.sim.now(),
            metrics: self.sim.metrics(),
            describe: &groups[0].describe,
            groups: &groups,
            resumed_from: self.resumed.as_ref().map(|r| {
                r.iter()
                    .map(|&(consumer, partition, offset)| JsonResume {
                        consumer,
                        partition,
                        resumed_from: offset,
                    })
                    .collect()
            }),
            outcome: self.guide_outcome.as_ref().map(|outcome| match outcome {
                Ok(says) => JsonOutcome { reproduced: true, message: says },
                Err(failing) => JsonOutcome { reproduced: false, message: failing },
            }),
            transactions: self.sim.transactions_view().map(|t| JsonTransactions {
                producers: t
                    .producers
                    .iter()
                    .map(|p| JsonTxnProducer {
                        consumer: p.consumer,
                        transactional_id: p.transactional_id.clone(),
                        epoch: p.epoch,
                        state: p.client_state(),
                        coordinator_state: p.coordinator_state,
                    })
                    .collect(),
            }),
            dead_letters: dead_letters(&self.sim),
            share_dead_letters: share_dead_letters(&self.sim),
            config: events.map(|_| self.sim.config()),
            events,
            explanations: self.explanations.as_deref(),
        };
        serde_json::to_string(&report).expect("strings and integers always serialize")
    }
}

#[derive(Debug, Serialize)]
struct CheckReport<'a> {
    scenario: &'a str,
    seed: u64,
    tick: Tick,
    passed: bool,
    check: &'a SplitCheck,
}

/// `run --json`'s object, fields in this order.
#[derive(Debug, Serialize)]
struct JsonReport<'a> {
    scenario: &'a str,
    seed: u64,
    tick: Tick,
    /// Every counter the engine keeps, serialized from its own type.
    metrics: Metrics,
    describe: &'a str,
    /// Every group, in config order.
    groups: &'a [JsonGroup],
    #[serde(skip_serializing_if = "Option::is_none")]
    resumed_from: Option<Vec<JsonResume>>,
    /// The guide's outcome check; null when the scenario has no guide.
    outcome: Option<JsonOutcome<'a>>,
    /// With `config.transactions`: each member's transactional producer.
    #[serde(skip_serializing_if = "Option::is_none")]
    transactions: Option<JsonTransactions>,
    /// The records on `orders.DLT`, when a group's policy dead-letters (issue 40).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dead_letters: Vec<offsetlab_engine::LetterRecordView>,
    /// The records the broker wrote to share groups' dead-letter topics (KIP-1191).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    share_dead_letters: Vec<JsonShareDeadLetter>,
    /// `--events` only: the config the run used and its event trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    config: Option<&'a offsetlab_engine::Config>,
    #[serde(skip_serializing_if = "Option::is_none")]
    events: Option<&'a [offsetlab_engine::Event]>,
    /// `--explain` only: every anomaly explained, per group.
    #[serde(skip_serializing_if = "Option::is_none")]
    explanations: Option<&'a [crate::explain::GroupAnswer]>,
}

/// `run --json`'s `transactions`.
#[derive(Debug, Serialize)]
struct JsonTransactions {
    producers: Vec<JsonTxnProducer>,
}

/// A member's transactional producer: its own state (`fenced`, `stopped`,
/// `in a transaction`, `ready`) and the coordinator's `TransactionState` for
/// its id (`Ongoing`, `CompleteAbort`, …).
#[derive(Debug, Serialize)]
struct JsonTxnProducer {
    consumer: ConsumerId,
    transactional_id: String,
    epoch: Option<u32>,
    state: &'static str,
    coordinator_state: &'static str,
}

/// Reproduced: what the guide says, `{n}` filled in. Not: the first failing condition.
#[derive(Debug, Serialize)]
struct JsonOutcome<'a> {
    reproduced: bool,
    message: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonResume {
    consumer: ConsumerId,
    partition: u32,
    resumed_from: u64,
}

/// One group in `run --json`.
#[derive(Debug, Serialize)]
struct JsonGroup {
    name: String,
    /// Every counter the engine keeps, serialized from its own type.
    metrics: Metrics,
    /// `kafka-consumer-groups --describe --group NAME`.
    describe: String,
}

/// Letters a table shows at most per topic.
const LETTERS_SHOWN_MAX: u32 = 20;

/// One record of a share group's dead-letter topic, as a consumer of it reads it.
#[derive(Debug, Serialize)]
struct JsonShareDeadLetter {
    group: String,
    topic: String,
    partition: u32,
    offset: u64,
    /// Null unless the group copies records (`errors.deadletterqueue.copy.record.enable`).
    key: Option<String>,
    /// The copied value's payout operation (the record id); null when not copied.
    value_record_id: Option<u64>,
    /// Kafka's `__dlq.errors.*` headers, in the order the broker writes them.
    headers: Vec<JsonHeader>,
}

#[derive(Debug, Serialize)]
struct JsonHeader {
    name: &'static str,
    value: String,
}

/// Every share group's dead letters, group by group.
fn share_dead_letters(sim: &Sim) -> Vec<JsonShareDeadLetter> {
    let mut out = Vec::new();
    for (g, group) in sim.config().groups.iter().enumerate() {
        let Some(topic) = &group.dead_letter_topic else { continue };
        for r in sim.share_dead_letters(g) {
            let copied = r.letter.copied;
            out.push(JsonShareDeadLetter {
                group: group.name.clone(),
                topic: topic.clone(),
                partition: r.partition,
                offset: r.offset,
                key: copied.filter(|c| c.keyed).map(|c| offsetlab_engine::subject_key(c.subject)),
                value_record_id: copied.map(|c| c.record_id),
                headers: r
                    .letter
                    .headers(&group.name)
                    .into_iter()
                    .map(|(name, value)| JsonHeader { name, value })
                    .collect(),
            });
        }
    }
    out
}

/// Every record on `orders.DLT`, oldest first per partition (at most [`LETTERS_SHOWN_MAX`] each).
fn dead_letters(sim: &Sim) -> Vec<offsetlab_engine::LetterRecordView> {
    let view = sim.view();
    let Some(dlt) = view.letter_topics.iter().find(|t| t.topic == LetterTopicId::DeadLetter) else {
        return Vec::new();
    };
    dlt.partitions
        .iter()
        .flat_map(|p| sim.letter_records(dlt.topic, p.partition, p.log_start, LETTERS_SHOWN_MAX))
        .collect()
}

/// Issue 40: each dead-letter and retry topic's records (offset, key, the
/// source partition and offset, the cause), then each replay job's
/// `--describe` lines (group `<name>-dlt-replay` on `orders.DLT`).
fn letters_text(sim: &Sim) -> String {
    let mut out = String::new();
    let view = sim.view();
    for topic in &view.letter_topics {
        let records: Vec<_> = topic
            .partitions
            .iter()
            .flat_map(|p| sim.letter_records(topic.topic, p.partition, p.log_start, LETTERS_SHOWN_MAX))
            .collect();
        let _ = writeln!(
            out,
            "
{} ({} record{})",
            topic.name,
            records.len(),
            if records.len() == 1 { "" } else { "s" }
        );
        if records.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "{:<10}{:<8}{:<10}{:<9}{:<6}CAUSE",
            "PARTITION", "OFFSET", "KEY", "SOURCE", "TRIES"
        );
        for r in records {
            let key =
                if r.letter.keyed { offsetlab_engine::subject_key(r.letter.subject) } else { "null".into() };
            let source = format!("P{}@{}", r.letter.source_partition, r.letter.source_offset);
            let _ = writeln!(
                out,
                "{:<10}{:<8}{:<10}{:<9}{:<6}{}",
                r.partition, r.offset, key, source, r.letter.attempts, r.letter.cause
            );
        }
    }
    for letter in share_dead_letters(sim) {
        let key = letter.key.as_deref().unwrap_or("null");
        let value = letter.value_record_id.map_or("null".to_string(), |id| format!("#{id}"));
        let _ = writeln!(
            out,
            "\n{} (group {}) P{}@{}: key {key}, value {value}",
            letter.topic, letter.group, letter.partition, letter.offset
        );
        for h in &letter.headers {
            let _ = writeln!(out, "  {}: {}", h.name, h.value);
        }
    }
    for (g, group) in view.groups.iter().enumerate() {
        let Some(positions) = sim.replay_positions(g) else { continue };
        let _ = writeln!(
            out,
            "
{:<22}{:<12}{:<10}{:<15}{:<15}LAG",
            "GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET"
        );
        let dlt = view.letter_topics.iter().find(|t| t.topic == LetterTopicId::DeadLetter);
        for (p, position) in positions.iter().enumerate() {
            let end = dlt.and_then(|t| t.partitions.get(p)).map_or(*position, |v| v.log_end);
            let _ = writeln!(
                out,
                "{:<22}{:<12}{:<10}{:<15}{:<15}{}",
                format!("{}-dlt-replay", group.name),
                offsetlab_engine::DEAD_LETTER_TOPIC,
                p,
                position,
                end,
                end.saturating_sub(*position)
            );
        }
    }
    out
}

/// The transactions block: payouts per partition (log end and last stable
/// offset, then its last offsets), each member's transactional producer,
/// the transactions committed and aborted, and what the downstream reader
/// received: results, results received twice, aborted results.
fn transactions_text(t: &offsetlab_engine::TransactionsView, sim: &Sim) -> String {
    let mut out = format!("\ntransactions (group {}, downstream {})\n", t.group, t.isolation_level.label());
    for p in &t.payouts {
        let _ = writeln!(
            out,
            "payouts-{:<10}log end {:<6}last stable {}",
            p.partition, p.log_end, p.last_stable_offset
        );
        let _ = writeln!(out, "  {}", payouts_tape(sim, p));
    }
    for p in &t.producers {
        let epoch = p.epoch.map_or_else(|| "-".to_string(), |e| e.to_string());
        let _ = writeln!(
            out,
            "{:<4}{:<18}epoch {:<5}{:<18}coordinator {}",
            p.consumer.to_string(),
            p.transactional_id,
            epoch,
            p.client_state(),
            p.coordinator_state
        );
    }
    let rows = [
        ("committed", t.committed_transactions),
        ("aborted", t.aborted_transactions),
        ("read downstream", t.downstream_delivered),
        ("read twice", t.downstream_duplicates),
        ("aborted read", t.aborted_seen),
        ("fenced writes", t.fenced_writes),
    ];
    for (label, value) in rows {
        let _ = writeln!(out, "{label:<17}{value}");
    }
    out
}

/// Offsets of a payouts partition the tape line shows, the last ones.
const PAYOUTS_TAPE_SHOWN: u32 = 16;

/// The last offsets of a payouts partition, as its tape on the page would
/// show them: `offset:#record` for a committed result, `(aborted)` or
/// `(open)` after one that is not, `offset:COMMIT` / `offset:ABORT` for the
/// control markers, `…` first when older offsets are left out.
fn payouts_tape(sim: &Sim, p: &offsetlab_engine::PayoutPartitionView) -> String {
    let from = p.log_end.saturating_sub(u64::from(PAYOUTS_TAPE_SHOWN)).max(p.log_start);
    let mut cells: Vec<String> = Vec::new();
    if from > p.log_start {
        cells.push("…".to_string());
    }
    for record in sim.payout_records(p.partition, from, PAYOUTS_TAPE_SHOWN) {
        cells.push(match record {
            PayoutRecordView::Result { offset, source_record_id, fate } => match fate {
                Fate::Committed => format!("{offset}:#{source_record_id}"),
                Fate::Aborted => format!("{offset}:#{source_record_id}(aborted)"),
                Fate::Open => format!("{offset}:#{source_record_id}(open)"),
            },
            PayoutRecordView::Marker { offset, commit: true } => format!("{offset}:COMMIT"),
            PayoutRecordView::Marker { offset, commit: false } => format!("{offset}:ABORT"),
        });
    }
    if cells.is_empty() {
        return "(empty)".to_string();
    }
    cells.join(" ")
}

/// `offsetlab scenarios`: the built-ins under their guides' topic headings, in the
/// page's order (listing order within a topic; any without a guide last, under
/// "Other"), each line the name, padded, then the summary.
pub fn listing() -> String {
    let all: Vec<Scenario> = builtins();
    let width = BUILTINS.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let topics = Topic::ALL.into_iter().map(|t| (Some(t), t.title())).chain([(None, "Other")]);
    let mut out = String::new();
    for (topic, title) in topics {
        let members: Vec<&Scenario> =
            all.iter().filter(|s| s.guide.as_ref().map(|g| g.topic) == topic).collect();
        if members.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "{title}");
        for s in members {
            let line = format!("  {:<width$}  {}", s.name, s.summary);
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}
