//! Why did that happen: each anomalous record explained by the chain of
//! events that made it, from the cause to the effect, built from the
//! evidence (`evidence.rs`) and the parts' plain data when asked. Nothing is
//! computed while the simulation runs but the evidence's bookkeeping.
//!
//! Each anomaly also carries its name in Jepsen's Kafka checker
//! (`jepsen.tests.kafka`) where one exists. Jepsen checks each consumer
//! process's polls; a group's reads here are checked as one reader's, so a
//! record another member reads again after a rebalance is the group's
//! `nonmonotonic-poll`.

use crate::app::HandledRecord;
use crate::config::CommitMode;
use crate::event::{Event, Tick};
use crate::evidence::{CommitFact, Handling};
use crate::input::ConsumerId;
use crate::sim::Sim;
use serde::Serialize;

/// A member that left on its poll timeout before it committed.
/// A duplicate's cause until an event of the first reader's names one.
const READ_AGAIN: &str = "read again";

/// The first of the first reader's events that names a cause is the cause:
/// sets `cause` to `why` when the event is `ours` and no cause is named yet.
/// Whether the event is `ours`, so that the chain shows it.
fn first_cause(cause: &mut &'static str, ours: bool, why: &'static str) -> bool {
    if ours && *cause == READ_AGAIN {
        *cause = why;
    }
    ours
}

const POLL_TIMEOUT: &str = "it left on its poll timeout before committing";

/// A frozen member that woke and handled the batch it held.
const ZOMBIE: &str = "a zombie handled its old batch";

/// Explanations one query returns at most; a counter's report counts the rest by cause.
pub const EXPLANATIONS_MAX: usize = 200;

/// An anomaly offsetlab counts, by the counter that counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Anomaly {
    /// `duplicates`: a record handled again by its group.
    Duplicates,
    /// `never_processed`: a record the group moved past unhandled.
    NeverProcessed,
    /// `out_of_key_order`: a record handled after a later record of its key.
    OutOfKeyOrder,
    /// `acked_lost`: records the producer was told were written, cut off
    /// the log by a leader election (the topic's).
    AckedLost,
    /// `producer_duplicates`: records the producer wrote twice (the topic's).
    ProducerDuplicates,
    /// `producer_reordered`: records the producer wrote after a later-sent
    /// one of their partition (the topic's).
    ProducerReordered,
    /// `aborted_seen`: results of aborted transactions the downstream
    /// consumer of `payouts` received.
    AbortedRead,
    /// `double_applied_on_replay`: dead letters whose payout a failed
    /// attempt had made before it threw, paid again by the replay job (a
    /// ledger without the unique constraint). An effect's anomaly, not a
    /// read's: nothing in Kafka's logs is out of place.
    DoubleAppliedOnReplay,
}

/// A standard name for an anomaly and its one-line definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StandardName {
    pub name: &'static str,
    pub definition: &'static str,
}

impl Anomaly {
    pub const ALL: [Anomaly; 8] = [
        Anomaly::Duplicates,
        Anomaly::NeverProcessed,
        Anomaly::OutOfKeyOrder,
        Anomaly::AckedLost,
        Anomaly::ProducerDuplicates,
        Anomaly::ProducerReordered,
        Anomaly::AbortedRead,
        Anomaly::DoubleAppliedOnReplay,
    ];

    /// A group's (its reads) or the topic's (its writes).
    #[must_use]
    pub fn of_a_group(self) -> bool {
        matches!(
            self,
            Anomaly::Duplicates
                | Anomaly::NeverProcessed
                | Anomaly::OutOfKeyOrder
                | Anomaly::DoubleAppliedOnReplay
        )
    }

    /// The counter's name, as `run --json` and the page have it.
    #[must_use]
    pub fn counter(self) -> &'static str {
        match self {
            Anomaly::Duplicates => "duplicates",
            Anomaly::NeverProcessed => "never_processed",
            Anomaly::OutOfKeyOrder => "out_of_key_order",
            Anomaly::AckedLost => "acked_lost",
            Anomaly::ProducerDuplicates => "producer_duplicates",
            Anomaly::ProducerReordered => "producer_reordered",
            Anomaly::AbortedRead => "aborted_seen",
            Anomaly::DoubleAppliedOnReplay => "double_applied_on_replay",
        }
    }

    /// The anomaly a counter counts (`skipped_by_reset` is part of never processed).
    #[must_use]
    pub fn from_counter(name: &str) -> Option<Anomaly> {
        match name {
            "skipped_by_reset" => Some(Anomaly::NeverProcessed),
            _ => Anomaly::ALL.into_iter().find(|a| a.counter() == name),
        }
    }

    /// What happened to the record, in words.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            Anomaly::Duplicates => "delivered twice",
            Anomaly::NeverProcessed => "never processed",
            Anomaly::OutOfKeyOrder => "out of key order",
            Anomaly::AckedLost => "acknowledged then lost",
            Anomaly::ProducerDuplicates => "written twice by the producer",
            Anomaly::ProducerReordered => "reordered by the producer",
            Anomaly::AbortedRead => "aborted, and read",
            Anomaly::DoubleAppliedOnReplay => "paid twice by the replay",
        }
    }

    /// Its name in Jepsen's Kafka checker, where it has one.
    #[must_use]
    pub fn standard_name(self) -> Option<StandardName> {
        match self {
            Anomaly::Duplicates => Some(StandardName {
                name: "nonmonotonic-poll",
                definition: "a read of a partition went back to an offset that had been read before",
            }),
            Anomaly::NeverProcessed => Some(StandardName {
                name: "poll-skip",
                definition: "reads of a partition jumped over offsets that hold records",
            }),
            // Jepsen orders each partition's offsets; key order across
            // partitions is the application's, and has no name there.
            Anomaly::OutOfKeyOrder => None,
            Anomaly::AckedLost => Some(StandardName {
                name: "lost-write",
                definition: "an acknowledged send is missing from the log, though later offsets were read",
            }),
            Anomaly::ProducerDuplicates => Some(StandardName {
                name: "duplicate",
                definition: "one value appears at more than one offset",
            }),
            Anomaly::ProducerReordered => Some(StandardName {
                name: "nonmonotonic-send",
                definition: "a process's sends to a partition landed at offsets out of their send order",
            }),
            Anomaly::AbortedRead => Some(StandardName {
                name: "aborted-read",
                definition: "a read observed a value written by a transaction that aborted",
            }),
            // Jepsen checks what Kafka's logs hold and what reads return; a
            // payout the application makes twice is its own effect's.
            Anomaly::DoubleAppliedOnReplay => None,
        }
    }
}

/// What a step concerns, so the page can highlight it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "part", rename_all = "kebab-case")]
pub enum Part {
    Consumer {
        consumer: ConsumerId,
    },
    Group {
        group: u32,
    },
    Record {
        partition: u32,
        offset: u64,
    },
    /// A partition's committed offset.
    Commit {
        partition: u32,
        offset: u64,
    },
    Producer,
    Topic,
}

/// One link of a chain: when, what it concerns, and what happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub tick: Tick,
    pub part: Part,
    pub text: String,
}

/// Why one record is an anomaly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub anomaly: Anomaly,
    /// The group whose reads it concerns (`None`: the topic's writes).
    pub group: Option<u32>,
    pub partition: u32,
    pub offset: u64,
    pub record_id: u64,
    /// Records it explains: 1, or those one election cut or one pipeline's
    /// aborted transactions gave (from `offset` on, for an election).
    pub records: u64,
    /// The kind of cause, short, for grouping a counter's records.
    pub cause: &'static str,
    /// From the cause to the effect, in tick order.
    pub steps: Vec<Step>,
}

impl Explanation {
    /// `P1@17 delivered twice — t13 c1 handled it …; t21 …`: the chain in one line.
    #[must_use]
    pub fn sentence(&self) -> String {
        let steps: Vec<String> = self.steps.iter().map(|s| format!("t{} {}", s.tick, s.text)).collect();
        format!("{} — {}", self.head(), steps.join("; "))
    }

    /// `P1@17 delivered twice`: what the sentence is about, before its chain.
    #[must_use]
    pub fn head(&self) -> String {
        match (self.anomaly, self.records) {
            (Anomaly::AbortedRead, n) => {
                format!("{n} result{} {}", if n == 1 { "" } else { "s" }, self.anomaly.words())
            }
            (_, 1) => format!("P{}@{} {}", self.partition, self.offset, self.anomaly.words()),
            (_, n) => records_head(self.partition, self.offset, n, self.anomaly),
        }
    }
}

/// `P0@60..259 (200 records) delivered twice`.
fn records_head(partition: u32, offset: u64, records: u64, anomaly: Anomaly) -> String {
    format!("P{partition}@{offset}..{} ({records} records) {}", offset + records - 1, anomaly.words())
}

/// `explanations` in runs of records whose chains read the same:
/// consecutive offsets of one partition, the same anomaly and cause, and the
/// same steps but for their ticks (a crash that replays a batch gives each of
/// its records the same story), so that one line can say a run.
#[must_use]
pub fn runs(explanations: &[Explanation]) -> Vec<&[Explanation]> {
    let mut runs = Vec::new();
    let mut start = 0;
    for i in 1..=explanations.len() {
        if i == explanations.len() || !reads_on(&explanations[i - 1], &explanations[i]) {
            runs.push(&explanations[start..i]);
            start = i;
        }
    }
    runs
}

/// Whether `next` is of the record after `last`'s, and its chain reads the same.
fn reads_on(last: &Explanation, next: &Explanation) -> bool {
    // A step may name the explanation's own record: each its own.
    let own = |part: Part, e: &Explanation| part == Part::Record { partition: e.partition, offset: e.offset };
    last.anomaly != Anomaly::AbortedRead
        && (last.anomaly, last.group, last.cause, last.partition)
            == (next.anomaly, next.group, next.cause, next.partition)
        && next.offset == last.offset + last.records.max(1)
        && last.steps.len() == next.steps.len()
        && last
            .steps
            .iter()
            .zip(&next.steps)
            .all(|(a, b)| a.text == b.text && (a.part == b.part || (own(a.part, last) && own(b.part, next))))
}

/// The records a run explains: its offsets are consecutive (`reads_on`), from
/// the first's to the last's last.
#[must_use]
pub fn run_records(run: &[Explanation]) -> u64 {
    match run {
        [first, .., last] => last.offset + last.records.max(1) - first.offset,
        [one] => one.records,
        [] => 0,
    }
}

/// A run's head: one record's own, or `P0@60..79 (20 records) delivered twice`.
#[must_use]
pub fn run_head(run: &[Explanation]) -> String {
    match run {
        [first, _, ..] => records_head(first.partition, first.offset, run_records(run), first.anomaly),
        [one] => one.head(),
        [] => String::new(),
    }
}

/// A run in one line: one record's sentence, or `P0@60..79 (20 records)
/// delivered twice — t4..5 c1 handled it; …`, a step whose tick differs from
/// record to record with the ticks it spans.
#[must_use]
pub fn run_sentence(run: &[Explanation]) -> String {
    let [first, _, ..] = run else { return run.first().map(Explanation::sentence).unwrap_or_default() };
    let steps: Vec<String> = first
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let ticks = || run.iter().map(|e| e.steps[i].tick);
            match (ticks().min(), ticks().max()) {
                (Some(from), Some(to)) if from < to => format!("t{from}..{to} {}", step.text),
                _ => format!("t{} {}", step.tick, step.text),
            }
        })
        .collect();
    format!("{} — {}", run_head(run), steps.join("; "))
}

/// A counter's records explained: the first [`EXPLANATIONS_MAX`], and every
/// record the evidence still knows, counted by cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    pub anomaly: Anomaly,
    pub standard_name: Option<StandardName>,
    /// What the counter says.
    pub counted: u64,
    pub explanations: Vec<Explanation>,
    /// Records per cause (explained ones and those past the first few alike).
    pub causes: Vec<(&'static str, u64)>,
    /// Counted records the evidence no longer holds (older than its bounds).
    pub unexplained: u64,
    /// Events the evidence forgot, the oldest (a chain that needs them is shorter).
    pub events_forgotten: u64,
}

/// Every record of group `g` that `anomaly` counts, explained (a topic's
/// anomaly, [`Anomaly::of_a_group`] false, whatever `g`).
#[must_use]
pub fn report(sim: &Sim, g: usize, anomaly: Anomaly) -> Report {
    let metrics = sim.metrics_of(g);
    let counted = match anomaly {
        Anomaly::Duplicates => metrics.duplicates,
        Anomaly::NeverProcessed => metrics.never_processed,
        Anomaly::OutOfKeyOrder => metrics.out_of_key_order,
        Anomaly::AckedLost => metrics.acked_lost,
        Anomaly::ProducerDuplicates => metrics.producer_duplicates,
        Anomaly::ProducerReordered => metrics.producer_reordered,
        Anomaly::AbortedRead => metrics.aborted_seen,
        Anomaly::DoubleAppliedOnReplay => metrics.double_applied_on_replay,
    };
    let all = explain_all(sim, g, anomaly, None);
    let mut causes: Vec<(&'static str, u64)> = Vec::new();
    for e in &all {
        match causes.iter_mut().find(|(c, _)| *c == e.cause) {
            Some((_, n)) => *n += e.records,
            None => causes.push((e.cause, e.records)),
        }
    }
    let explained: u64 = all.iter().map(|e| e.records).sum();
    let unexplained = counted.saturating_sub(explained);
    let explanations = all.into_iter().take(EXPLANATIONS_MAX).collect();
    Report {
        anomaly,
        standard_name: anomaly.standard_name(),
        counted,
        explanations,
        causes,
        unexplained,
        events_forgotten: sim.evidence().facts_dropped(),
    }
}

/// Why the record at `partition`@`offset` is an anomaly for group `g`'s
/// reads (`None`: for the topic's writes): one explanation per time it was
/// counted (none for a record that is not). Only that record's chains are
/// built where an anomaly is one record's (a click on a record of a long run).
#[must_use]
pub fn explain_record(sim: &Sim, g: Option<usize>, partition: u32, offset: u64) -> Vec<Explanation> {
    let only = Record { partition, offset };
    Anomaly::ALL
        .into_iter()
        .filter(|a| a.of_a_group() == g.is_some())
        .flat_map(|a| explain_all(sim, g.unwrap_or(0), a, Some(only)))
        .filter(|e| only.within(e))
        .collect()
}

/// The one record an explanation is asked for.
#[derive(Debug, Clone, Copy)]
struct Record {
    partition: u32,
    offset: u64,
}

impl Record {
    /// Whether `e` explains this record (an explanation may cover a run of records).
    fn within(self, e: &Explanation) -> bool {
        e.partition == self.partition && e.offset <= self.offset && self.offset < e.offset + e.records.max(1)
    }
}

/// The explanations of `anomaly` for group `g`. With `only`, those of an
/// anomaly of single records (a duplicate, an overtaking, a record never
/// processed) are built for that record alone; the caller filters the rest.
fn explain_all(sim: &Sim, g: usize, anomaly: Anomaly, only: Option<Record>) -> Vec<Explanation> {
    let evidence = sim.evidence();
    let wanted =
        |partition: u32, offset: u64| only.is_none_or(|r| r.partition == partition && r.offset == offset);
    match anomaly {
        Anomaly::Duplicates => {
            let (handled, _) = evidence.anomalies(g);
            handled
                .filter(|h| h.duplicate && wanted(h.partition, h.offset))
                .map(|h| duplicate(sim, g, h))
                .collect()
        }
        Anomaly::OutOfKeyOrder => {
            let (handled, _) = evidence.anomalies(g);
            handled
                .filter(|h| h.out_of_key_order && wanted(h.partition, h.offset))
                .map(|h| out_of_order(sim, g, h))
                .collect()
        }
        Anomaly::NeverProcessed => (0..sim.partition_count())
            .filter(|p| only.is_none_or(|r| r.partition == *p))
            .flat_map(|p| {
                let observer = sim.observer(g);
                let lost: Vec<u64> =
                    observer.lost_offsets(p).iter().copied().filter(|o| wanted(p, *o)).collect();
                lost.into_iter().map(move |o| never_processed(sim, g, p, o))
            })
            .collect(),
        Anomaly::AckedLost => acked_lost(sim),
        Anomaly::ProducerDuplicates | Anomaly::ProducerReordered => producer_written(sim, anomaly),
        Anomaly::AbortedRead => aborted_read(sim).into_iter().collect(),
        Anomaly::DoubleAppliedOnReplay => double_applied(sim, g),
    }
}

/// The facts of the evidence within `from..=to`, oldest first.
fn facts_between(sim: &Sim, from: Tick, to: Tick) -> impl DoubleEndedIterator<Item = &Event> + '_ {
    sim.evidence().facts().filter(move |e| (from..=to).contains(&e.tick()))
}

fn concerns(event: &Event, consumer: ConsumerId) -> bool {
    event.consumer() == Some(consumer)
}

/// The generation (or group epoch) group `g` was at, at `tick`.
fn generation_at(sim: &Sim, g: usize, tick: Tick) -> Option<u32> {
    sim.evidence().facts().rev().find_map(|e| match e {
        Event::RebalanceCompleted { tick: t, group, generation, .. }
            if *t <= tick && *group as usize == g =>
        {
            Some(*generation)
        }
        Event::GroupEpochBumped { tick: t, group, group_epoch, .. } if *t <= tick && *group as usize == g => {
            Some(*group_epoch)
        }
        _ => None,
    })
}

fn commit_words(sim: &Sim, g: usize) -> &'static str {
    match sim.group_setup(g).1.commit {
        CommitMode::After => "commit after",
        CommitMode::Before => "commit before",
        CommitMode::EachRecord => "commit each record",
        CommitMode::Auto { .. } => "auto-commit",
    }
}

fn handled_step(sim: &Sim, g: usize, run: &Handling, partition: u32, offset: u64, what: &str) -> Step {
    let word = match sim.group_setup(g).0.protocol {
        crate::config::GroupProtocol::Classic => "generation",
        _ => "group epoch",
    };
    let generation = generation_at(sim, g, run.tick).map(|n| format!("{word} {n}, ")).unwrap_or_default();
    Step {
        tick: run.tick,
        part: Part::Record { partition, offset },
        text: format!("{} {what} ({generation}{})", run.consumer, commit_words(sim, g)),
    }
}

fn fact_step(event: &Event) -> Step {
    let part = match (event.consumer(), event) {
        (Some(consumer), _) => Part::Consumer { consumer },
        (
            None,
            Event::RebalanceStarted { group, .. }
            | Event::RebalanceCompleted { group, .. }
            | Event::OffsetsExpired { group, .. }
            | Event::GroupDeleted { group, .. },
        ) => Part::Group { group: *group },
        _ => Part::Topic,
    };
    Step { tick: event.tick(), part, text: clause(event) }
}

/// An event as one clause of a chain: shorter than its announcement, which
/// also says what follows (the chain's next steps say that).
fn clause(event: &Event) -> String {
    let partitions = |offsets: &[(u32, u64)]| -> String {
        let list: Vec<String> = offsets.iter().map(|(p, o)| format!("P{p} up to {o}")).collect();
        list.join(", ")
    };
    match event {
        Event::RebalanceCompleted { generation, moved, .. } => {
            let moves: Vec<String> =
                moved.iter().filter_map(|m| m.to.map(|to| format!("P{} to {to}", m.partition))).collect();
            if moves.is_empty() {
                format!("generation {generation} began")
            } else {
                format!("generation {generation} gave {}", moves.join(", "))
            }
        }
        Event::RebalanceStarted { .. } => trim_sentence(event.announcement().unwrap_or_default()),
        Event::Crashed { consumer, .. } => format!("{consumer} crashed before committing"),
        Event::KilledBeforeCommit { consumer, .. } => {
            format!("{consumer} died between its effects and its commit")
        }
        Event::SessionExpired { consumer, .. } => format!("{consumer}'s session expired"),
        Event::MemberLeft { consumer, since_poll_ticks, .. } => format!(
            "{consumer} left the group: {since_poll_ticks} ticks since its last poll, more than max.poll.interval"
        ),
        Event::CommitFailed { consumer, offsets, .. } => {
            format!("{consumer}'s commit of {} failed: CommitFailedException", partitions(offsets))
        }
        Event::CommitRefused { consumer, offsets, .. } => {
            format!(
                "{consumer}'s commit of {} was refused: RebalanceInProgressException",
                partitions(offsets)
            )
        }
        Event::Rejoined { consumer, lost, .. } => {
            let lost: Vec<String> = lost.iter().map(|p| format!("P{p}")).collect();
            format!("{consumer} joined again as a new member; its partitions ({}) were lost", lost.join(" "))
        }
        Event::Stalled { consumer, until, .. } => format!("{consumer}'s process froze until t{until}"),
        Event::Woke { consumer, replaced: true, .. } => {
            format!("{consumer} woke: its group no longer knew it, but it still held its batch")
        }
        Event::Woke { consumer, .. } => format!("{consumer} woke"),
        Event::Fenced { consumer, error, .. } => format!("{consumer} was fenced ({error})"),
        Event::OffsetsExpired { .. } => {
            "the group's committed offsets expired (offsets.retention)".to_string()
        }
        Event::GroupDeleted { .. } => "the coordinator deleted the empty group".to_string(),
        Event::PartitionsAdded { from, to, .. } => format!("the topic grew from {from} to {to} partitions"),
        Event::PositionReset { consumer, partition, from, to, .. } => {
            format!("{consumer}'s position on P{partition} was reset from {from} to {to}")
        }
        Event::RetentionDeleted { partition, new_log_start, .. } => {
            format!("retention deleted P{partition} up to {new_log_start}")
        }
        Event::DeadLettered { consumer, partition, offset, dlt_offset, attempts, .. } => format!(
            "{consumer} wrote P{partition}@{offset} to orders.DLT (P{partition}@{dlt_offset}) after {attempts} failed \
             attempt{}",
            if *attempts == 1 { "" } else { "s" }
        ),
        Event::HandlerFixed { .. } => "the handler was fixed".to_string(),
        Event::ReplayStarted { .. } => "the replay job started reading orders.DLT from its start".to_string(),
        // Every event a chain names has words above or an announcement; a
        // Debug dump here would bring Event's Debug code into the page.
        _ => trim_sentence(event.announcement().unwrap_or_else(|| "the run moved on".to_string())),
    }
}

/// An announcement ends with a full stop; a step is one clause of a chain.
fn trim_sentence(text: String) -> String {
    text.strip_suffix('.').map(str::to_string).unwrap_or(text)
}

/// Where the owner after a handover resumed: the committed offset and
/// who wrote it, or the reset that placed it.
fn resume_step(sim: &Sim, g: usize, partition: u32, consumer: ConsumerId, at: Tick) -> Option<Step> {
    let reset = facts_between(sim, 0, at).filter(|e| concerns(e, consumer)).rev().find_map(|e| match e {
        &Event::ResetPosition { partition: p, policy, to, .. } if p == partition => {
            Some((e.tick(), policy, to))
        }
        _ => None,
    });
    let commit: Option<&CommitFact> = sim.evidence().commits(g, partition).rev().find(|c| c.tick <= at);
    match (commit, reset) {
        (Some(c), Some((t, _, _))) if c.tick > t => Some(committed_resume(partition, consumer, at, c)),
        (_, Some((t, policy, to))) => Some(Step {
            tick: t,
            part: Part::Consumer { consumer },
            text: format!(
                "{consumer} found no committed offset for P{partition}: auto.offset.reset={policy} put it at {to}"
            ),
        }),
        (Some(c), None) => Some(committed_resume(partition, consumer, at, c)),
        (None, None) => None,
    }
}

fn committed_resume(partition: u32, consumer: ConsumerId, at: Tick, c: &CommitFact) -> Step {
    let by = match c.consumer {
        Some(by) => format!("written by {by} at t{}", c.tick),
        None => format!("set by a reset of the offsets at t{}", c.tick),
    };
    Step {
        tick: at,
        part: Part::Commit { partition, offset: c.offset },
        text: format!("{consumer} resumed P{partition} at the committed offset {}, {by}", c.offset),
    }
}

/// Delivered twice: who handled it before, the commit that did not happen
/// (or the move back), the handover, and where the next reader resumed.
fn duplicate(sim: &Sim, g: usize, h: &HandledRecord) -> Explanation {
    let (p, o) = (h.partition, h.offset);
    let mut steps = Vec::new();
    let mut cause = READ_AGAIN;
    let runs: Vec<&Handling> = sim.evidence().handlings(g, p).filter(|r| r.from <= o && o < r.to).collect();
    // This handling's run, and the one before it that handled the record.
    let this = runs.iter().rposition(|r| r.consumer == h.consumer && r.tick == h.tick);
    let before = this.and_then(|i| i.checked_sub(1)).map(|i| runs[i]);
    let share = sim.group_setup(g).0.protocol == crate::config::GroupProtocol::Share;
    if h.from_producer {
        cause = "the producer wrote it twice";
        steps.push(Step {
            tick: h.produced_tick,
            part: Part::Producer,
            text: format!(
                "the producer wrote record #{} a second time, at P{p}@{o}: a retry after a lost acknowledgement, \
                 without idempotence",
                h.record_id
            ),
        });
    } else if let (Some(first), true) = (before, share) {
        steps.push(handled_step(sim, g, first, p, o, "handled it"));
        // A share group has no commit: the broker delivers a record again
        // when its acquisition lock runs out or its holder leaves.
        let given_back = facts_between(sim, 0, h.tick).rev().find(|e| match e {
            Event::LockExpired { partition, offset, .. } => *partition == p && *offset == o,
            Event::Released { partition, offsets, .. } => *partition == p && offsets.contains(&o),
            _ => false,
        });
        cause = match given_back {
            Some(Event::LockExpired { .. }) => "the acquisition lock expired",
            Some(_) => "released when its holder left",
            None => "delivered again",
        };
        steps.extend(given_back.map(fact_step));
    } else if let Some(first) = before {
        steps.push(handled_step(sim, g, first, p, o, "handled it"));
        // The commit that did not happen, and the handover.
        let mut handed_over: Option<Tick> = None;
        let mut resumed = false;
        for event in facts_between(sim, first.tick, h.tick) {
            let relevant = match event {
                Event::Crashed { consumer, .. } | Event::KilledBeforeCommit { consumer, .. } => {
                    let why = match sim.group_setup(g).1.commit {
                        CommitMode::Auto { .. } => "a crash before the next auto-commit",
                        _ => "a crash before the commit",
                    };
                    first_cause(&mut cause, *consumer == first.consumer, why)
                }
                Event::CommitFailed { consumer, offsets, .. }
                | Event::CommitRefused { consumer, offsets, .. } => {
                    let ours = *consumer == first.consumer && offsets.iter().any(|&(q, _)| q == p);
                    if ours && matches!(cause, READ_AGAIN | POLL_TIMEOUT) {
                        cause = match (event, cause) {
                            (Event::CommitFailed { .. }, POLL_TIMEOUT) => {
                                "CommitFailedException after the poll timeout"
                            }
                            (Event::CommitFailed { .. }, _) => "the commit failed (CommitFailedException)",
                            _ => "the commit was refused (rebalance in progress)",
                        };
                    }
                    ours
                }
                Event::MemberLeft { consumer, .. } => {
                    first_cause(&mut cause, *consumer == first.consumer, POLL_TIMEOUT)
                }
                Event::SessionExpired { consumer, .. } => first_cause(
                    &mut cause,
                    *consumer == first.consumer,
                    "its session expired before it committed",
                ),
                Event::ShutdownDeadlinePassed { consumer, .. } => first_cause(
                    &mut cause,
                    *consumer == first.consumer,
                    "it ran out of shutdown time before committing",
                ),
                Event::CheckpointTorn { consumer, partition, .. } => {
                    let ours = *consumer == first.consumer && *partition == p;
                    if ours {
                        cause = "a torn checkpoint";
                    }
                    ours
                }
                Event::Fenced { consumer, .. } => *consumer == first.consumer,
                Event::Stalled { consumer, .. } => first_cause(
                    &mut cause,
                    *consumer == first.consumer,
                    "its process froze before it committed",
                ),
                // A consumer-side store: where the restarted consumer resumed.
                Event::ResumedFrom { consumer, partition, .. } => {
                    let ours = *consumer == h.consumer && *partition == p;
                    if ours {
                        resumed = true;
                        handed_over = Some(event.tick());
                    }
                    ours
                }
                // A restart of the same consumer, or a static member's return.
                Event::Started { .. } | Event::StaticMemberReplaced(_) => {
                    let ours = event.consumer() == Some(h.consumer);
                    if ours && handed_over.is_none() {
                        handed_over = Some(event.tick());
                    }
                    ours
                }
                Event::Woke { consumer, .. } => {
                    // The second reader was frozen with the record in its batch.
                    if *consumer == h.consumer && h.consumer != first.consumer {
                        cause = ZOMBIE;
                    }
                    *consumer == first.consumer || *consumer == h.consumer
                }
                Event::Rejoined { consumer, lost, .. } => {
                    let ours = *consumer == first.consumer && lost.contains(&p);
                    if ours && *consumer == h.consumer {
                        handed_over = Some(event.tick());
                    }
                    ours
                }
                Event::PositionReset { consumer, partition, to, .. } => {
                    let back = *consumer == h.consumer && *partition == p && *to <= o;
                    if back {
                        cause = "the position was reset back";
                    }
                    back
                }
                Event::RebalanceCompleted { group, moved, generation, .. } => {
                    if *group as usize == g
                        && moved.iter().any(|m| m.partition == p && m.to == Some(h.consumer))
                    {
                        handed_over = Some(event.tick());
                        steps.push(Step {
                            tick: event.tick(),
                            part: Part::Group { group: *group },
                            text: format!("generation {generation} gave P{p} to {}", h.consumer),
                        });
                    }
                    false
                }
                // The consumer protocol: the member's assignment, reconciled.
                Event::Reconciled(reconciled) => {
                    let crate::event::Reconciled { consumer, assignment, member_epoch, .. } = &**reconciled;
                    if *consumer == h.consumer && assignment.contains(&p) {
                        handed_over = Some(event.tick());
                        steps.push(Step {
                            tick: event.tick(),
                            part: Part::Consumer { consumer: *consumer },
                            text: format!("{consumer} was given P{p} at member epoch {member_epoch}"),
                        });
                    }
                    false
                }
                _ => false,
            };
            if relevant {
                steps.push(fact_step(event));
            }
        }
        if cause == ZOMBIE {
            // Its freeze came before the first handling: say when.
            let stalled = facts_between(sim, 0, first.tick)
                .rev()
                .find(|e| concerns(e, h.consumer) && matches!(e, Event::Stalled { .. }));
            if let Some(stalled) = stalled {
                steps.push(fact_step(stalled));
                // Its session ran out meanwhile and the partition went on.
                for e in facts_between(sim, stalled.tick(), first.tick) {
                    match e {
                        Event::SessionExpired { consumer, .. } if *consumer == h.consumer => {
                            steps.push(fact_step(e))
                        }
                        Event::RebalanceCompleted { group, moved, generation, .. }
                            if *group as usize == g
                                && moved.iter().any(|m| m.partition == p && m.to == Some(first.consumer)) =>
                        {
                            steps.push(Step {
                                tick: e.tick(),
                                part: Part::Group { group: *group },
                                text: format!("generation {generation} gave P{p} to {}", first.consumer),
                            });
                        }
                        _ => {}
                    }
                }
            }
        } else if cause == READ_AGAIN && handed_over.is_some() {
            cause = "handed on before the commit";
        }
        if let (Some(at), false, false) = (handed_over, resumed, cause == ZOMBIE) {
            let resume = resume_step(sim, g, p, h.consumer, at).unwrap_or_else(|| Step {
                tick: at,
                part: Part::Consumer { consumer: h.consumer },
                text: format!(
                    "{} found no committed offset for P{p} and started at the log start (auto.offset.reset=earliest)",
                    h.consumer
                ),
            });
            steps.push(resume);
        }
        // Nothing above made the group lose its place: did it move past the
        // record, and then back (a zombie's commit, a reset of the offsets)?
        if cause == READ_AGAIN {
            let commits: Vec<&CommitFact> =
                sim.evidence().commits(g, p).filter(|c| c.tick >= first.tick && c.tick < h.tick).collect();
            let past = commits.iter().rposition(|c| c.offset > o);
            if let Some(back) = past.and_then(|i| commits[i + 1..].iter().find(|c| c.offset <= o)) {
                cause = "the committed offset moved back";
                let who = match back.consumer {
                    Some(c) => format!("{c}'s commit"),
                    None => "a reset of the offsets".to_string(),
                };
                steps.push(Step {
                    tick: back.tick,
                    part: Part::Commit { partition: p, offset: back.offset },
                    text: format!("{who} moved P{p}'s committed offset back to {}", back.offset),
                });
            }
        }
    }
    steps.push(Step {
        tick: h.tick,
        part: Part::Record { partition: p, offset: o },
        text: format!("{} handled it again", h.consumer),
    });
    sort_steps(&mut steps);
    Explanation {
        anomaly: Anomaly::Duplicates,
        group: Some(g as u32),
        partition: p,
        offset: o,
        record_id: h.record_id,
        records: 1,
        cause,
        steps,
    }
}

/// Never processed: the move past it (a commit ahead of the handling, a
/// reset forwards, retention) and what made it final.
fn never_processed(sim: &Sim, g: usize, p: u32, o: u64) -> Explanation {
    let record = sim.records_of(g, p, o, 1).into_iter().next();
    let record_id = record.as_ref().map_or(0, |r| r.record_id);
    let mut steps = Vec::new();
    if let Some(r) = &record {
        steps.push(Step {
            tick: r.produced_tick,
            part: Part::Record { partition: p, offset: o },
            text: format!("the producer wrote record #{} to P{p}@{o}", r.record_id),
        });
    }
    let mut cause = "moved past unhandled";
    let skipped = sim.observer(g).mark(p, o).is_some_and(|m| m.skipped);
    let reset = sim.evidence().facts().find(|e| match e {
        Event::ResetPosition { partition, to, skipped, consumer, .. } => {
            *partition == p && *to > o && *skipped > 0 && sim.group_of(*consumer) == Some(g)
        }
        _ => false,
    });
    if let (true, Some(reset)) = (skipped, reset) {
        cause = "auto.offset.reset skipped it";
        // Why the group had no committed offset to start from.
        let before = facts_between(sim, 0, reset.tick()).filter(|e| match e {
            Event::OffsetsExpired { group, .. } | Event::GroupDeleted { group, .. } => *group as usize == g,
            Event::PartitionsAdded { from, .. } => p >= *from,
            _ => false,
        });
        steps.extend(before.map(fact_step));
        if let Event::ResetPosition { consumer, policy, to, .. } = reset {
            steps.push(Step {
                tick: reset.tick(),
                part: Part::Consumer { consumer: *consumer },
                text: format!(
                    "{consumer} started P{p} with no committed offset: auto.offset.reset={policy} put it at {to}, past it"
                ),
            });
        }
    } else if let Some(archived) = sim.evidence().facts().find(|e| match e {
        Event::LockExpired { partition, offset, archived, .. } => {
            *partition == p && *offset == o && *archived
        }
        Event::Released { partition, archived, .. } => *partition == p && archived.contains(&o),
        Event::Acknowledged(ack) => ack.partition == p && ack.archived.contains(&o),
        _ => false,
    }) {
        cause = "archived after its last delivery";
        let failures = sim.evidence().facts().filter(|e| {
            matches!(e, Event::HandlerFailed { partition, offset, .. } if *partition == p && *offset == o)
        });
        steps.extend(failures.map(fact_step));
        steps.push(fact_step(archived));
        steps.extend(share_dead_letter_step(sim, g, p, o));
    } else if let Some(skipped) = handler_skipped(sim, g, p, o) {
        cause = "the handler failed and the error policy skipped it";
        steps.extend(failed_attempts(sim, g, p, o, skipped.tick()).map(|e| failed_step(sim, g, e)));
        if let Event::FailedRecordSkipped { consumer, .. } = skipped {
            steps.push(Step {
                tick: skipped.tick(),
                part: Part::Consumer { consumer: *consumer },
                text: "the error policy skip logged it and moved on".to_string(),
            });
        }
        if let Some(past) = sim.evidence().commits(g, p).find(|c| c.offset > o && c.tick >= skipped.tick()) {
            let who = past.consumer.map_or("a reset of the offsets".to_string(), |c| c.to_string());
            steps.push(Step {
                tick: past.tick,
                part: Part::Commit { partition: p, offset: past.offset },
                text: format!("{who} committed P{p} up to {}, past it", past.offset),
            });
        }
    } else if let Some(ahead) = sim.evidence().commits(g, p).find(|c| c.offset > o) {
        let who = ahead.consumer;
        cause = match sim.group_setup(g).1.commit {
            CommitMode::Before => "committed before handling",
            CommitMode::Auto { .. } => "auto-committed before handling",
            _ => "committed past it unhandled",
        };
        let by = match who {
            Some(c) => format!(
                "{c} committed P{p} up to {} before handling it ({})",
                ahead.offset,
                commit_words(sim, g)
            ),
            None => format!("a reset of the offsets moved P{p} to {}, past it", ahead.offset),
        };
        steps.push(Step {
            tick: ahead.tick,
            part: Part::Commit { partition: p, offset: ahead.offset },
            text: by,
        });
        if let Some(who) = who {
            let end = facts_between(sim, ahead.tick, Tick::MAX).find(|e| {
                concerns(e, who)
                    && matches!(
                        e,
                        Event::Crashed { .. }
                            | Event::KilledBeforeCommit { .. }
                            | Event::ShutdownDeadlinePassed { .. }
                    )
            });
            if let Some(end) = end {
                cause = if cause == "auto-committed before handling" {
                    "auto-commit ran ahead, then a crash"
                } else {
                    "a crash after a commit ahead of the handling"
                };
                // Here the commit came first: what the crash ended is the handling.
                let text = match end {
                    Event::Crashed { consumer, .. } | Event::KilledBeforeCommit { consumer, .. } => {
                        format!("{consumer} crashed before handling it; the group starts after it")
                    }
                    _ => clause(end),
                };
                steps.push(Step { tick: end.tick(), part: Part::Consumer { consumer: who }, text });
            }
        }
    } else if let Some(deleted) = sim.evidence().facts().find(|e| match e {
        Event::RetentionDeleted { group, partition, new_log_start, .. } => {
            *group as usize == g && *partition == p && *new_log_start > o
        }
        _ => false,
    }) {
        cause = "retention deleted it unread";
        steps.push(fact_step(deleted));
    }
    sort_steps(&mut steps);
    Explanation {
        anomaly: Anomaly::NeverProcessed,
        group: Some(g as u32),
        partition: p,
        offset: o,
        record_id,
        records: 1,
        cause,
        steps,
    }
}

/// Whether `consumer` is (or, removed, was) one of group `g`'s: a removed
/// consumer's group is no longer known, and with one group it is that one.
fn of_group(sim: &Sim, g: usize, consumer: ConsumerId) -> bool {
    sim.group_of(consumer).map_or(sim.group_count() == 1, |of| of == g)
}

/// The last `skip` of group `g`'s application past `p`@`o`, if its error
/// policy skipped it (a record skipped, redelivered and skipped again was
/// passed at the last).
fn handler_skipped(sim: &Sim, g: usize, p: u32, o: u64) -> Option<&Event> {
    sim.evidence().facts().rev().find(|e| match e {
        Event::FailedRecordSkipped { consumer, partition, offset, .. } => {
            *partition == p && *offset == o && of_group(sim, g, *consumer)
        }
        _ => false,
    })
}

/// Group `g`'s failed attempts at `p`@`o` up to `until`, oldest first.
fn failed_attempts(sim: &Sim, g: usize, p: u32, o: u64, until: Tick) -> impl Iterator<Item = &Event> + '_ {
    facts_between(sim, 0, until).filter(move |e| match e {
        Event::HandlerFailed { consumer, partition, offset, .. } => {
            *partition == p && *offset == o && of_group(sim, g, *consumer)
        }
        _ => false,
    })
}

/// A failed attempt, with what made it fail (the record is poison, or fails
/// its first attempts) and whether it paid before it threw.
fn failed_step(sim: &Sim, g: usize, event: &Event) -> Step {
    let Event::HandlerFailed { tick, consumer, partition, offset, attempt, after_effect, .. } = event else {
        return fact_step(event);
    };
    let poison = sim.records_of(g, *partition, *offset, 1).first().is_some_and(|r| r.poison);
    let why = if poison { "poison record" } else { "a failing attempt" };
    let again = if *attempt > 1 { format!(", attempt {attempt}") } else { String::new() };
    let paid = if *after_effect { " after making its payout" } else { "" };
    Step {
        tick: *tick,
        part: Part::Consumer { consumer: *consumer },
        text: format!("{consumer}'s handler failed on P{partition}@{offset}{paid} ({why}{again})"),
    }
}

/// Out of key order: the later record of its key it came after, and why the
/// two were not read in their order.
fn out_of_order(sim: &Sim, g: usize, h: &HandledRecord) -> Explanation {
    let (p, o) = (h.partition, h.offset);
    let mut steps = vec![Step {
        tick: h.produced_tick,
        part: Part::Record { partition: p, offset: o },
        text: format!("the producer wrote user-{}'s record #{} to P{p}@{o}", h.subject, h.record_id),
    }];
    let mut cause = "read in another order";
    let this = sim.records_of(g, p, o, 1).into_iter().next();
    // Retry topics: the record waited on orders-retry-N while its partition
    // flowed on; the retry consumer handled it.
    let retried: Vec<&Event> = facts_between(sim, 0, h.tick)
        .filter(|e| match e {
            Event::SentToRetryTopic { consumer, partition, offset, .. } => {
                *partition == p && *offset == o && of_group(sim, g, *consumer)
            }
            _ => false,
        })
        .collect();
    if let Some(first) = retried.first() {
        cause = "a retry topic: its partition went on without it";
        let failed = failed_attempts(sim, g, p, o, first.tick()).next();
        steps.extend(failed.map(|e| failed_step(sim, g, e)));
        for sent in &retried {
            if let Event::SentToRetryTopic { tick, consumer, level, due_tick, .. } = sent {
                steps.push(Step {
                    tick: *tick,
                    part: Part::Consumer { consumer: *consumer },
                    text: format!(
                        "P{p}@{o} went to orders-retry-{level} after its handler failed, due at t{due_tick}; \
                         P{p} went on"
                    ),
                });
            }
        }
    }
    if let Some(at) = h.overtaken_by {
        let later = sim.records_of(g, at.partition, at.offset, 1).into_iter().next();
        if let Some(later) = &later {
            steps.push(Step {
                tick: later.produced_tick,
                part: Part::Record { partition: at.partition, offset: at.offset },
                text: format!(
                    "the producer wrote user-{}'s later record #{} to P{}@{}",
                    later.subject, later.record_id, at.partition, at.offset
                ),
            });
        }
        if let Some(run) =
            sim.evidence().handlings(g, at.partition).find(|r| r.from <= at.offset && at.offset < r.to)
        {
            let what = if retried.is_empty() {
                format!("handled P{}@{} first", at.partition, at.offset)
            } else {
                format!("handled the later record of the same key, P{}@{}, first", at.partition, at.offset)
            };
            steps.push(handled_step(sim, g, run, at.partition, at.offset, &what));
        }
        let keyless = this.as_ref().is_some_and(|r| !r.keyed) || later.as_ref().is_some_and(|r| !r.keyed);
        if !retried.is_empty() {
            // Said above: the retry topic is why.
        } else if sim.group_setup(g).0.protocol == crate::config::GroupProtocol::Share {
            cause = "a share group hands a partition to several consumers";
            steps.push(Step {
                tick: h.tick,
                part: Part::Group { group: g as u32 },
                text: format!(
                    "a share group gives P{p}'s records to whichever member asks, several at once: no order by key"
                ),
            });
        } else if h.from_producer {
            cause = "a producer retry reordered the partition";
            steps.push(Step {
                tick: h.produced_tick,
                part: Part::Producer,
                text: format!(
                    "the producer's retry wrote #{} after a batch sent later (more than one request in flight, \
                     without idempotence)",
                    h.record_id
                ),
            });
        } else if at.partition != p && keyless {
            cause = "no key: the records went to different partitions";
            steps.push(Step {
                tick: h.produced_tick,
                part: Part::Producer,
                text: format!(
                    "without a key the producer put user-{}'s records on P{p} and P{}, which are read apart",
                    h.subject, at.partition
                ),
            });
        } else if at.partition != p {
            let grown = later.as_ref().and_then(|later| {
                facts_between(sim, h.produced_tick, later.produced_tick)
                    .find(|e| matches!(e, Event::PartitionsAdded { .. }))
            });
            if let Some(grown) = grown {
                cause = "partitions added: the key moved";
                steps.push(fact_step(grown));
            } else {
                cause = "on different partitions";
            }
        }
    }
    let by = if retried.is_empty() { h.consumer.to_string() } else { "the retry consumer".to_string() };
    steps.push(Step {
        tick: h.tick,
        part: Part::Record { partition: p, offset: o },
        text: format!("{by} handled P{p}@{o} after it"),
    });
    sort_steps(&mut steps);
    Explanation {
        anomaly: Anomaly::OutOfKeyOrder,
        group: Some(g as u32),
        partition: p,
        offset: o,
        record_id: h.record_id,
        records: 1,
        cause,
        steps,
    }
}

/// Tick order; steps of one tick keep the order they were found in, which
/// follows the cause.
/// KIP-1191: the broker's write of share group `g`'s archived record
/// `p@o` to the group's dead-letter topic, when it has one and the letter
/// is still retained: where it went and what its headers say.
fn share_dead_letter_step(sim: &Sim, g: usize, p: u32, o: u64) -> Option<Step> {
    let topic = sim.config().groups.get(g)?.dead_letter_topic.as_ref()?;
    let letter = sim
        .share_dead_letters(g)
        .into_iter()
        .find(|l| l.letter.source_partition == p && l.letter.source_offset == o)?;
    let l = letter.letter;
    let copy = match l.copied {
        Some(_) => "with a copy of its key and value",
        None => "with a null key and value (errors.deadletterqueue.copy.record.enable is off)",
    };
    Some(Step {
        tick: l.written_tick,
        part: Part::Group { group: g as u32 },
        text: format!(
            "the broker wrote it to {topic} P{}@{} (__dlq.errors.partition {p}, __dlq.errors.offset {o}, \
             __dlq.errors.delivery.count {}, __dlq.errors.message \"{}\") {copy}",
            letter.partition,
            letter.offset,
            l.delivery_count,
            l.cause.message(),
        ),
    })
}

fn sort_steps(steps: &mut [Step]) {
    crate::order::sort_stable_by(steps, |a, b| a.tick.cmp(&b.tick));
}

/// The producer's delivery settings, in words.
#[cfg(feature = "cluster")]
fn delivery_words(sim: &Sim) -> String {
    match &sim.config().producer.delivery {
        Some(d) => format!(
            "acks={}, enable.idempotence={}, max.in.flight.requests.per.connection={}",
            d.acks.name(),
            d.delivery_config().validate().is_ok_and(|r| r.idempotent),
            d.max_in_flight
        ),
        None => "acks=all".to_string(),
    }
}

/// Acknowledged then lost, per election that cut acknowledged records: the
/// settings they were written with, the ISR then, the leader's crash, the
/// election and the cut.
#[cfg(not(feature = "cluster"))]
fn acked_lost(_: &Sim) -> Vec<Explanation> {
    Vec::new()
}

#[cfg(feature = "cluster")]
fn acked_lost(sim: &Sim) -> Vec<Explanation> {
    let facts: Vec<&Event> = sim.evidence().facts().collect();
    let mut out = Vec::new();
    for (i, e) in facts.iter().enumerate() {
        if let Event::LeaderElected(elected) = e
            && let crate::event::LeaderElected {
                tick,
                partition,
                leader,
                kind,
                truncated_to: Some(to),
                lost,
                lost_acknowledged,
                ..
            } = &**elected
        {
            if *lost_acknowledged == 0 {
                continue;
            }
            let p = *partition;
            let mut steps = vec![Step {
                tick: 0,
                part: Part::Producer,
                text: format!("the producer writes to P{p} with {}", delivery_words(sim)),
            }];
            // The ISR the writes were acknowledged under, and the crash.
            let before = &facts[..i];
            if let Some(isr) = before.iter().rev().find_map(|f| match f {
                Event::IsrChanged { partition, isr, .. } if *partition == p => Some((f.tick(), isr.clone())),
                _ => None,
            }) {
                let list: Vec<String> = isr.1.iter().map(|b| format!("broker {b}")).collect();
                steps.push(Step {
                    tick: isr.0,
                    part: Part::Topic,
                    text: format!("P{p}'s ISR shrank to {}", list.join(", ")),
                });
            }
            if let Some(crash) = before.iter().rev().find(|f| matches!(f, Event::BrokerCrashed { .. })) {
                steps.push(fact_step(crash));
            }
            let leader = leader.map_or("no broker".to_string(), |b| format!("broker {b}"));
            steps.push(Step {
                tick: *tick,
                part: Part::Topic,
                text: format!(
                    "{leader} became P{p}'s leader ({kind} election): its log ended at {to}, so the {lost} record{} \
                     after it were cut, {lost_acknowledged} of them acknowledged",
                    if *lost == 1 { "" } else { "s" }
                ),
            });
            // The last ISR change may come after the crash (the controller
            // shrinks it when the broker's session ends): tick order.
            sort_steps(&mut steps);
            out.push(Explanation {
                anomaly: Anomaly::AckedLost,
                group: None,
                partition: p,
                offset: *to,
                record_id: 0,
                records: *lost_acknowledged,
                cause: match *kind {
                    "unclean" => "an unclean election",
                    _ => "acknowledged before every replica had it",
                },
                steps,
            });
        }
    }
    out
}

/// Records the producer wrote twice or out of its send order: the lost
/// request or acknowledgement, the retry, and why the broker kept it.
#[cfg(not(feature = "cluster"))]
fn producer_written(_: &Sim, _: Anomaly) -> Vec<Explanation> {
    Vec::new()
}

#[cfg(feature = "cluster")]
fn producer_written(sim: &Sim, anomaly: Anomaly) -> Vec<Explanation> {
    let Some(delivery) = sim.config().producer.delivery.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for p in 0..sim.partition_count() {
        let Some(log) = sim.topic_log(p) else { continue };
        let range = log.present(0, log.log_end());
        for o in range.clone() {
            let record = log.get(o).expect("present");
            let this = match anomaly {
                Anomaly::ProducerDuplicates => record.producer_copy,
                _ => record.producer_reordered,
            };
            if !this {
                continue;
            }
            // The loss after its send that made the producer retry.
            let lost = sim.evidence().facts().find(|e| {
                e.tick() >= record.produced_tick
                    && matches!(e, Event::ProduceLost { partition, .. } if *partition == p)
            });
            let mut steps = vec![Step {
                tick: record.produced_tick,
                part: Part::Producer,
                text: format!("the producer sent record #{} to P{p} ({})", record.id, delivery_words(sim)),
            }];
            steps.extend(lost.map(fact_step));
            let retried_at = lost.map_or(record.produced_tick, Event::tick);
            let text = if anomaly == Anomaly::ProducerDuplicates {
                let first = range.clone().find(|&q| q < o && log.get(q).is_some_and(|r| r.id == record.id));
                format!(
                    "the producer retried the batch and the leader appended record #{} again at P{p}@{o}{}: without \
                     idempotence it cannot tell a retry from a new write",
                    record.id,
                    first.map(|q| format!(" (first at P{p}@{q})")).unwrap_or_default()
                )
            } else {
                format!(
                    "the producer's retry wrote record #{} at P{p}@{o}, after a batch it had sent later: {} requests \
                     may be in flight without idempotence",
                    record.id, delivery.max_in_flight
                )
            };
            steps.push(Step { tick: retried_at, part: Part::Record { partition: p, offset: o }, text });
            sort_steps(&mut steps);
            out.push(Explanation {
                anomaly,
                group: None,
                partition: p,
                offset: o,
                record_id: record.id,
                records: 1,
                cause: if anomaly == Anomaly::ProducerDuplicates {
                    "a retry without idempotence"
                } else {
                    "a retry overtaken, without idempotence"
                },
                steps,
            });
        }
    }
    out
}

/// Dead letters paid twice: the failed attempts that paid before they threw,
/// the letter, the fix, and the replay that paid again (no unique constraint).
fn double_applied(sim: &Sim, g: usize) -> Vec<Explanation> {
    let replays = sim
        .evidence()
        .facts()
        .filter(|e| matches!(e, Event::Replayed { group, double_applied: true, .. } if *group as usize == g));
    let mut out = Vec::new();
    for replay in replays {
        let &Event::Replayed { tick, partition: p, dlt_offset, source_offset: o, record_id, .. } = replay
        else {
            continue;
        };
        let mut steps = vec![Step {
            tick: sim.records_of(g, p, o, 1).first().map_or(0, |r| r.produced_tick),
            part: Part::Record { partition: p, offset: o },
            text: format!("the producer wrote record #{record_id} to P{p}@{o}"),
        }];
        // Only the attempts that paid matter here; the others are why it was dead-lettered.
        let failed = failed_attempts(sim, g, p, o, tick);
        steps.extend(
            failed
                .filter(|e| matches!(e, Event::HandlerFailed { after_effect: true, .. }))
                .map(|e| failed_step(sim, g, e)),
        );
        let lettered = facts_between(sim, 0, tick).find(|e| match e {
            Event::DeadLettered { consumer, partition, dlt_offset: d, .. } => {
                *partition == p && *d == dlt_offset && of_group(sim, g, *consumer)
            }
            _ => false,
        });
        steps.extend(lettered.map(fact_step));
        let fixed_and_started = facts_between(sim, 0, tick).filter(|e| match e {
            Event::HandlerFixed { group, .. } | Event::ReplayStarted { group, .. } => *group as usize == g,
            _ => false,
        });
        steps.extend(fixed_and_started.map(|e| Step {
            tick: e.tick(),
            part: Part::Group { group: g as u32 },
            text: clause(e),
        }));
        steps.push(Step {
            tick,
            part: Part::Record { partition: p, offset: o },
            text: format!(
                "the replay job applied P{p}@{o} again from orders.DLT P{p}@{dlt_offset}: the ledger has no unique \
                 constraint, so its payout was made twice"
            ),
        });
        sort_steps(&mut steps);
        out.push(Explanation {
            anomaly: Anomaly::DoubleAppliedOnReplay,
            group: Some(g as u32),
            partition: p,
            offset: o,
            record_id,
            records: 1,
            cause: "a failed attempt paid before it threw, and the replay paid again",
            steps,
        });
    }
    out
}

/// Results of aborted transactions the downstream consumer received: the
/// aborts, and its isolation level.
fn aborted_read(sim: &Sim) -> Option<Explanation> {
    let seen = sim.metrics().aborted_seen;
    if seen == 0 {
        return None;
    }
    let isolation =
        sim.config().transactions.as_ref().map_or("read_committed", |t| t.isolation_level.label());
    let mut steps: Vec<Step> = sim
        .evidence()
        .facts()
        .filter(|e| {
            #[cfg(feature = "transactions")]
            if matches!(e, Event::TxnAborted { .. }) {
                return true;
            }
            let _ = e;
            false
        })
        .map(fact_step)
        .collect();
    steps.push(Step {
        tick: sim.now(),
        part: Part::Topic,
        text: format!(
            "the downstream consumer reads payouts with isolation.level={isolation}: it receives a transaction's \
             results before its outcome is known, aborted ones too"
        ),
    });
    Some(Explanation {
        anomaly: Anomaly::AbortedRead,
        group: None,
        partition: 0,
        offset: 0,
        record_id: 0,
        records: seen,
        cause: "read_uncommitted",
        steps,
    })
}
