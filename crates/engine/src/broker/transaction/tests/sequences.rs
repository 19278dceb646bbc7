//! Random sequences of inits, transactional and plain sends, offset commits,
//! commits, aborts, marker writes, HW moves, clean truncations, timeouts and
//! producer crashes,
//! through the coordinator and two partitions wired the way a leader would
//! (proptest is a native dev-dependency). The harness keeps its own account
//! of which transaction each record belongs to and how that transaction
//! ended, and holds the parts to it.

use super::*;
use crate::broker::txn_index::{IsolationLevel, LogEntry, PartitionTxns};
use proptest::prelude::*;

const IDS: [&str; 2] = ["a", "b"];
const PARTITIONS: usize = 2;
const GROUP: u32 = 0;
const GENERATION: u32 = 5;
/// A plain (idempotent, non-transactional) producer writing alongside.
const PLAIN: ProducerId = ProducerId(1);

#[derive(Debug, Clone)]
enum Step {
    /// An instance of `IDS[txn]` calls `initTransactions` (a new instance,
    /// or the latest one retrying).
    Init {
        txn: usize,
        new_instance: bool,
    },
    Send {
        instance: usize,
        partition: usize,
        records: u64,
    },
    Plain {
        partition: usize,
    },
    Offsets {
        instance: usize,
        stale: bool,
    },
    End {
        instance: usize,
        commit: bool,
    },
    /// The caller writes up to `max` of the queued markers.
    Markers {
        max: usize,
    },
    /// The HW moves `quarters`/4 of the way to the log end.
    Hw {
        partition: usize,
        quarters: u64,
    },
    /// A clean election cuts the log `quarters`/4 of the way from the HW to
    /// the log end (records above the HW only).
    Truncate {
        partition: usize,
        quarters: u64,
    },
    Tick(u64),
    Crash {
        instance: usize,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        2 => (0..2usize, any::<bool>()).prop_map(|(txn, new_instance)| Step::Init { txn, new_instance }),
        6 => (0..4usize, 0..PARTITIONS, 1..3u64).prop_map(|(instance, partition, records)| Step::Send { instance, partition, records }),
        1 => (0..PARTITIONS).prop_map(|partition| Step::Plain { partition }),
        2 => (0..4usize, prop::bool::weighted(0.2)).prop_map(|(instance, stale)| Step::Offsets { instance, stale }),
        3 => (0..4usize, any::<bool>()).prop_map(|(instance, commit)| Step::End { instance, commit }),
        4 => (1..4usize).prop_map(|max| Step::Markers { max }),
        3 => (0..PARTITIONS, 0..=4u64).prop_map(|(partition, quarters)| Step::Hw { partition, quarters }),
        1 => (0..PARTITIONS, 0..4u64).prop_map(|(partition, quarters)| Step::Truncate { partition, quarters }),
        2 => (1..8u64).prop_map(Step::Tick),
        1 => (0..4usize).prop_map(|instance| Step::Crash { instance }),
    ]
}

#[derive(Debug)]
struct Instance {
    txn: usize,
    producer: Option<ProducerIdAndEpoch>,
    alive: bool,
    /// A newer instance of the same id initialised after it.
    superseded: bool,
}

struct Partition {
    txns: PartitionTxns,
    entries: Vec<LogEntry>,
    /// For a transactional record: its transactional id and the serial of
    /// its transaction.
    owner: Vec<Option<(usize, usize)>>,
}

struct Harness {
    version: TransactionVersion,
    c: TransactionCoordinator,
    parts: Vec<Partition>,
    instances: Vec<Instance>,
    /// Per id, how each of its transactions ended (`None`: undecided); the
    /// last is the current one.
    outcomes: [Vec<Option<bool>>; 2],
    states: [Option<TxnState>; 2],
    queued: VecDeque<TxnOutput>,
    now: u64,
    next_offset_value: u64,
    pending_values: [Vec<u64>; 2],
    committed_values: Vec<u64>,
    aborted_values: Vec<u64>,
}

impl Harness {
    fn new(version: TransactionVersion) -> Self {
        Harness {
            version,
            c: TransactionCoordinator::new(TxnCoordinatorConfig {
                transaction_version: version,
                max_timeout_ticks: 100,
                first_producer_id: 1000,
            }),
            parts: (0..PARTITIONS)
                .map(|_| Partition { txns: PartitionTxns::new(0), entries: Vec::new(), owner: Vec::new() })
                .collect(),
            instances: Vec::new(),
            outcomes: [vec![None], vec![None]],
            states: [None, None],
            queued: VecDeque::new(),
            now: 0,
            next_offset_value: 0,
            pending_values: [Vec::new(), Vec::new()],
            committed_values: Vec::new(),
            aborted_values: Vec::new(),
        }
    }

    /// A live, initialised instance, picked by `pick`.
    fn pick(&self, pick: usize) -> Option<usize> {
        let live: Vec<usize> = (0..self.instances.len())
            .filter(|&i| self.instances[i].alive && self.instances[i].producer.is_some())
            .collect();
        (!live.is_empty()).then(|| live[pick % live.len()])
    }

    fn apply(&mut self, step: &Step) {
        self.route(step);
        while let Some(output) = self.c.poll_output() {
            self.queued.push_back(output);
        }
        self.observe_transitions();
        self.check();
    }

    /// One step's requests; an early return is a refused request.
    fn route(&mut self, step: &Step) {
        match *step {
            Step::Init { txn, new_instance } => {
                let latest = self.instances.iter().rposition(|i| i.txn == txn && i.alive);
                let index = match latest {
                    Some(i) if !new_instance && self.instances[i].producer.is_none() => i,
                    _ => {
                        self.instances.push(Instance { txn, producer: None, alive: true, superseded: false });
                        self.instances.len() - 1
                    }
                };
                if let Ok(p) = self.c.handle_init_producer_id(IDS[txn], 20, None, self.now) {
                    for (i, other) in self.instances.iter_mut().enumerate() {
                        if other.txn == txn {
                            // An instance that had been superseded while it
                            // waited initialises afresh.
                            other.superseded = i != index;
                        }
                    }
                    self.instances[index].producer = Some(p);
                }
            }
            Step::Send { instance, partition, records } => {
                let Some(i) = self.pick(instance) else { return };
                let (txn, p) = (self.instances[i].txn, self.instances[i].producer.unwrap());
                let part = &mut self.parts[partition];
                // As a leader: the epoch, then the coordinator when the
                // producer has no transaction of its epoch here.
                if part.txns.check_data(p.producer_id, p.epoch, true).is_err() {
                    return;
                }
                if !part.txns.in_transaction(p.producer_id, p.epoch)
                    && self.c.handle_add_partitions(IDS[txn], p, &[partition as u32], self.now).is_err()
                {
                    return;
                }
                assert!(!self.instances[i].superseded, "a superseded instance's write was accepted");
                let current = self.outcomes[txn].len() - 1;
                let serial = match self.c.describe(IDS[txn]).unwrap().0 {
                    TxnState::Ongoing => current,
                    TxnState::PrepareCommit | TxnState::PrepareAbort => current - 1,
                    other => panic!("a write accepted while the transaction is {other:?}"),
                };
                let base = part.entries.len() as u64;
                part.txns.append_data(p.producer_id, p.epoch, true, base, records);
                for _ in 0..records {
                    part.entries.push(LogEntry::Transactional(p.producer_id));
                    part.owner.push(Some((txn, serial)));
                }
            }
            Step::Plain { partition } => {
                let part = &mut self.parts[partition];
                part.txns.check_data(PLAIN, 0, false).unwrap();
                part.txns.append_data(PLAIN, 0, false, part.entries.len() as u64, 1);
                part.entries.push(LogEntry::Plain);
                part.owner.push(None);
            }
            Step::Offsets { instance, stale } => {
                let Some(i) = self.pick(instance) else { return };
                let (txn, p) = (self.instances[i].txn, self.instances[i].producer.unwrap());
                // Version 1 adds the group first; version 2's commit adds it.
                if self.version == TransactionVersion::V1
                    && self.c.handle_add_offsets(IDS[txn], p, GROUP, self.now).is_err()
                {
                    return;
                }
                let value = self.next_offset_value;
                self.next_offset_value += 1;
                let member = if stale { GENERATION - 1 } else { GENERATION };
                let generations = Generations { member, group: GENERATION };
                match self.c.handle_txn_offset_commit(
                    IDS[txn],
                    p,
                    GROUP,
                    generations,
                    &[(0, value)],
                    self.now,
                ) {
                    Ok(()) => {
                        assert!(!stale, "a stale member committed offsets");
                        assert!(!self.instances[i].superseded, "a superseded instance committed offsets");
                        self.pending_values[txn].push(value);
                    }
                    Err(TxnError::IllegalGeneration) => assert!(stale),
                    // Version 2: the implicit add refused (a fenced epoch,
                    // markers pending).
                    Err(e) => assert_eq!(self.version, TransactionVersion::V2, "{e:?} after AddOffsetsToTxn"),
                }
            }
            Step::End { instance, commit } => {
                let Some(i) = self.pick(instance) else { return };
                let (txn, p) = (self.instances[i].txn, self.instances[i].producer.unwrap());
                let result = if commit { TxnResult::Commit } else { TxnResult::Abort };
                if let Ok(next) = self.c.handle_end_txn(IDS[txn], p, result, self.now) {
                    assert!(!self.instances[i].superseded, "a superseded instance ended a transaction");
                    self.instances[i].producer = Some(next);
                }
            }
            Step::Markers { max } => {
                let mut written = 0;
                while written < max {
                    let Some(output) = self.queued.pop_front() else { break };
                    match output {
                        TxnOutput::WriteMarker { target, marker, result } => {
                            if let TxnTarget::Partition(p) = target {
                                let version = self.version;
                                let part = &mut self.parts[p as usize];
                                let offset = part.entries.len() as u64;
                                let aborted = result == TxnResult::Abort;
                                let written = part.txns.append_marker(
                                    marker.producer_id,
                                    marker.epoch,
                                    aborted,
                                    offset,
                                    version,
                                );
                                assert!(written.is_ok(), "a coordinator's marker is never refused");
                                part.entries.push(LogEntry::Marker);
                                part.owner.push(None);
                                // Reported written once replicated (acks=all):
                                // the HW passes it.
                                part.txns.set_high_watermark(offset + 1);
                            }
                            self.c.handle_marker_written(marker.producer_id, target);
                            written += 1;
                        }
                        TxnOutput::CommitOffsets { group, offsets } => {
                            assert_eq!(group, GROUP);
                            for (_, value) in offsets {
                                assert!(
                                    self.committed_values.contains(&value),
                                    "offset {value} of a committed transaction"
                                );
                                assert!(!self.aborted_values.contains(&value));
                            }
                        }
                        TxnOutput::TimedOut { .. } => {}
                    }
                }
            }
            Step::Hw { partition, quarters } => {
                let part = &mut self.parts[partition];
                let (hw, end) = (part.txns.high_watermark(), part.entries.len() as u64);
                part.txns.set_high_watermark(hw + (end - hw) * quarters / 4);
            }
            Step::Truncate { partition, quarters } => {
                let part = &mut self.parts[partition];
                let (hw, end) = (part.txns.high_watermark(), part.entries.len() as u64);
                let cut = hw + (end - hw) * quarters / 4;
                part.txns.truncate_to(cut);
                part.entries.truncate(cut as usize);
                part.owner.truncate(cut as usize);
            }
            Step::Tick(ticks) => {
                self.now += ticks;
                self.c.handle_tick(self.now);
            }
            Step::Crash { instance } => {
                if let Some(i) = self.pick(instance) {
                    self.instances[i].alive = false;
                }
            }
        }
    }

    /// Whatever left `Ongoing` in this step decided its transaction.
    fn observe_transitions(&mut self) {
        for (txn, id) in IDS.iter().enumerate() {
            let now = self.c.describe(id).map(|d| d.0);
            if self.states[txn] == Some(TxnState::Ongoing) && now != Some(TxnState::Ongoing) {
                let committed = match now {
                    Some(TxnState::PrepareCommit | TxnState::CompleteCommit) => true,
                    Some(TxnState::PrepareAbort | TxnState::CompleteAbort) => false,
                    other => panic!("Ongoing cannot become {other:?}"),
                };
                *self.outcomes[txn].last_mut().unwrap() = Some(committed);
                self.outcomes[txn].push(None);
                let values = std::mem::take(&mut self.pending_values[txn]);
                if committed { &mut self.committed_values } else { &mut self.aborted_values }.extend(values);
            }
            self.states[txn] = now;
        }
    }

    fn check(&self) {
        self.c.check();
        for part in &self.parts {
            part.txns.check();
            let lso = part.txns.last_stable_offset();
            let hw = part.txns.high_watermark();
            assert!(lso <= hw && hw <= part.entries.len() as u64);
            let committed =
                part.txns.fetchable(0, u64::MAX, IsolationLevel::ReadCommitted, |o| part.entries[o as usize]);
            let expected: Vec<u64> = (0..lso)
                .filter(|&o| match part.entries[o as usize] {
                    LogEntry::Marker => false,
                    LogEntry::Plain => true,
                    LogEntry::Transactional(_) => {
                        let (txn, serial) = part.owner[o as usize].unwrap();
                        let outcome = self.outcomes[txn][serial];
                        assert!(outcome.is_some(), "a record below the LSO belongs to a decided transaction");
                        outcome == Some(true)
                    }
                })
                .collect();
            assert_eq!(
                committed, expected,
                "read_committed: each committed record once, nothing aborted, no marker"
            );
            let uncommitted = part
                .txns
                .fetchable(0, u64::MAX, IsolationLevel::ReadUncommitted, |o| part.entries[o as usize]);
            let all: Vec<u64> = (0..hw).filter(|&o| part.entries[o as usize] != LogEntry::Marker).collect();
            assert_eq!(uncommitted, all, "read_uncommitted: everything below the HW but markers");
        }
    }
}

proptest! {
    /// Whatever happens the invariants hold; a `read_committed` reader sees
    /// exactly the committed and plain records below the LSO, each once, and
    /// never an aborted record or a marker; a fenced instance never writes,
    /// adds offsets or ends a transaction again; offsets commit only with
    /// their transaction's COMMIT.
    #[test]
    fn any_sequence_keeps_the_invariants(v2 in any::<bool>(), steps in proptest::collection::vec(step(), 0..150)) {
        let version = if v2 { TransactionVersion::V2 } else { TransactionVersion::V1 };
        let mut h = Harness::new(version);
        for step in &steps {
            h.apply(step);
        }
        // Everything written and replicated in the end: every transaction
        // that is not ongoing is decided on every partition.
        h.apply(&Step::Markers { max: usize::MAX });
        for p in 0..PARTITIONS {
            h.apply(&Step::Hw { partition: p, quarters: 4 });
        }
        if h.states.iter().all(|s| *s != Some(TxnState::Ongoing)) {
            for part in &h.parts {
                prop_assert_eq!(part.txns.last_stable_offset(), part.entries.len() as u64, "every transaction decided");
            }
        }
    }
}
