//! The run handle: the engine's [`History`] behind the page, and a generation
//! that changes with every change to it. Components compare runs by generation
//! (two integers and a pointer) instead of comparing what they draw, and a
//! section that draws something only it needs computes it here, from the run,
//! while it is open and on screen (`components::shown`).

use super::TAPE_CELLS;
use super::tapes::{BridgeTape, LetterTape, ShareLetterTape, last_window_start};
use offsetlab_engine::{
    ConsumerStats, DescribeView, History, LagSample, LedgerEntry, LetterTopicView, ShareDeadLetterTopicView,
    Sim, View, describe_view,
};
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;

thread_local! {
    /// Generations are unique on the page, across runs: a section's cache keyed by
    /// one never mistakes a new run for the old.
    static NEXT_GENERATION: Cell<u64> = const { Cell::new(0) };
}

fn next_generation() -> u64 {
    NEXT_GENERATION.with(|next| {
        let generation = next.get();
        next.set(generation + 1);
        generation
    })
}

/// The simulation on screen. Cheap to clone (the history is shared); equal
/// when it is the same history at the same generation.
///
/// Calling contract: the state changes the history only through
/// [`Run::history_mut`], which starts a new generation; everything else
/// reads.
#[derive(Debug, Clone)]
pub struct Run {
    history: Rc<RefCell<History>>,
    generation: u64,
}

impl PartialEq for Run {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation && Rc::ptr_eq(&self.history, &other.history)
    }
}

impl Run {
    pub(super) fn new(history: History) -> Run {
        Run { history: Rc::new(RefCell::new(history)), generation: next_generation() }
    }

    /// Changes with every change to the run, and differs between runs.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub(super) fn history(&self) -> Ref<'_, History> {
        self.history.borrow()
    }

    /// The history to change: this handle starts a new generation, so what was
    /// computed from the old one is computed again where it is shown.
    pub(super) fn history_mut(&mut self) -> RefMut<'_, History> {
        self.generation = next_generation();
        self.history.borrow_mut()
    }

    fn read<T>(&self, f: impl FnOnce(&Sim) -> T) -> T {
        f(self.history.borrow().sim())
    }

    /// `kafka-consumer-groups --describe` of the first group, in `view`.
    #[must_use]
    pub fn describe(&self, view: DescribeView, verbose: bool) -> Rc<str> {
        self.read(|sim| describe_view(sim, 0, view, verbose).into())
    }

    /// `kafka-topics --describe --topic orders`, when the run has a cluster.
    #[cfg(feature = "cluster")]
    #[must_use]
    pub fn topic_describe(&self) -> Option<Rc<str>> {
        self.read(|sim| sim.cluster_view().map(|_| Rc::from(sim.describe_topic())))
    }

    /// booblik's `/stats`: one entry per consumer and partition.
    #[must_use]
    pub fn stats(&self) -> Vec<ConsumerStats> {
        self.read(Sim::stats)
    }

    /// The booblik topic's tapes (its newest records), when the application is a bridge.
    #[must_use]
    pub fn bridge_tapes(&self, view: &View) -> Vec<BridgeTape> {
        self.read(|sim| {
            view.bridge
                .iter()
                .flatten()
                .map(|p| {
                    let from = last_window_start(p.log_start, p.log_end);
                    BridgeTape {
                        partition: p.partition,
                        records: sim.bridge_records(p.partition, from, TAPE_CELLS as u32),
                        hidden_before: from - p.log_start,
                    }
                })
                .collect()
        })
    }

    /// The dead-letter and retry topics' partitions that hold letters, each its
    /// newest ones: a topic that was never written to has none (issue 40).
    #[must_use]
    pub fn letter_tapes(&self, topics: &[LetterTopicView]) -> Vec<LetterTape> {
        self.read(|sim| {
            topics
                .iter()
                .flat_map(|t| t.partitions.iter().map(move |p| (t, p)))
                .filter(|(_, p)| p.log_end > 0)
                .map(|(t, p)| {
                    let from = last_window_start(p.log_start, p.log_end);
                    LetterTape {
                        topic: t.topic,
                        name: t.name.clone(),
                        partition: p.partition,
                        records: sim.letter_records(t.topic, p.partition, from, TAPE_CELLS as u32),
                        hidden_before: from - p.log_start,
                        log_end: p.log_end,
                    }
                })
                .collect()
        })
    }

    /// The share groups' dead-letter topics' tapes (KIP-1191): per partition
    /// that holds letters, its newest ones.
    #[must_use]
    pub fn share_letter_tapes(&self, topics: &[ShareDeadLetterTopicView]) -> Vec<ShareLetterTape> {
        self.read(|sim| {
            topics
                .iter()
                .flat_map(|t| {
                    let letters = sim.share_dead_letters(t.group as usize);
                    t.partitions.iter().filter(|p| p.log_end > 0).map(move |p| {
                        let from = last_window_start(p.log_start, p.log_end);
                        ShareLetterTape {
                            group: t.group,
                            partition: p.partition,
                            records: letters
                                .iter()
                                .filter(|l| l.partition == p.partition && l.offset >= from)
                                .copied()
                                .collect(),
                            hidden_before: from - p.log_start,
                            log_end: p.log_end,
                        }
                    })
                })
                .collect()
        })
    }

    /// Per partition, the last ticks' lag and oldest-unprocessed age.
    #[must_use]
    pub fn lag_history(&self) -> Vec<Vec<LagSample>> {
        self.read(|sim| (0..sim.config().partitions).map(|p| sim.lag_history(p)).collect())
    }

    /// The payout ledger: one entry per account that saw a payout.
    #[must_use]
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        self.read(Sim::ledger)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::{Input, builtin};

    #[test]
    fn a_change_starts_a_new_generation_and_runs_never_share_one() {
        let scenario = builtin("default").unwrap();
        let mut run = Run::new(History::new(scenario.clone(), 1).unwrap());
        let before = run.clone();
        assert_eq!(run, before, "a clone is the same run");
        run.history_mut().handle_input(Input::Send { count: 3 }).unwrap();
        assert_ne!(run, before, "changed, it is a new generation");
        assert!(run.generation() > before.generation());
        let other = Run::new(History::new(scenario, 1).unwrap());
        assert_ne!(other.generation(), run.generation());
        assert_ne!(other.generation(), before.generation());
    }
}
