//! The evidence: what the explanations of anomalies are built from
//! (`explain.rs`). It keeps, bounded, the events that change who owns,
//! commits or loses what (rebalances, crashes, failed commits, resets,
//! elections, transactions), each group's accepted commits per partition,
//! who handled which offsets (as runs, not record by record), and the
//! handlings that were anomalies (a duplicate, a record out of key order).
//!
//! It watches: nothing in the model reads it to decide anything. Its chunks
//! are shared copy-on-write with the snapshots of time travel, as the logs'
//! are, so a snapshot costs the evidence a chunk per list at most.

use crate::app::HandledRecord;
use crate::event::{Event, Tick};
use crate::input::ConsumerId;
use crate::limits;
use crate::log::Chunks;

/// One accepted commit of one partition: `offset` is the next to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitFact {
    pub tick: Tick,
    /// Who committed (`None`: an administrator's reset of the offsets).
    pub consumer: Option<ConsumerId>,
    pub offset: u64,
}

/// A run of offsets `from..to` of one partition one consumer handled, one
/// after the other, at `tick` (a run never spans ticks, so an explanation
/// can say when each record was handled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handling {
    pub consumer: ConsumerId,
    pub from: u64,
    pub to: u64,
    pub tick: Tick,
}

/// The run a loop over one consumer's records of one tick is building: a
/// plain value on the caller's stack, so a record costs a comparison.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    run: Option<(u32, u64, u64)>,
}

impl Runs {
    /// A record handled at `partition`@`offset`; returns the run it ended, if any.
    #[inline]
    pub fn handle(&mut self, partition: u32, offset: u64) -> Option<(u32, u64, u64)> {
        match &mut self.run {
            Some((p, _, to)) if *p == partition && *to == offset => {
                *to += 1;
                None
            }
            run => run.replace((partition, offset, offset + 1)),
        }
    }

    /// The run it was building.
    pub fn finish(self) -> Option<(u32, u64, u64)> {
        self.run
    }
}

/// One group's part of the evidence.
#[derive(Debug, Clone, Default)]
struct GroupEvidence {
    /// Per partition, accepted commits, oldest first (bounded).
    commits: Vec<Chunks<CommitFact>>,
    /// Per partition, runs of handled offsets, oldest first (bounded).
    handlings: Vec<Chunks<Handling>>,
    /// Per partition, the run still growing: a plain value, so that a
    /// record's handling only compares and counts (the chunks take a run
    /// once it is over).
    open: Vec<Option<Handling>>,
    /// Handlings that were a duplicate or out of key order, oldest first (bounded).
    anomalies: Chunks<HandledRecord>,
    anomalies_dropped: u64,
}

/// The evidence of one simulation.
///
/// # Calling contract
/// The `Sim` hands it every event it emits, with the group of the consumer
/// the event concerns when there is one ([`Evidence::handle_event`]), and every
/// record an application handled ([`Evidence::handle_handled`]); it adds
/// partitions when the topic grows. Everything it keeps is bounded by
/// `limits::EVIDENCE_*`: past a bound the oldest entries go, and are counted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Evidence {
    /// The events that are not about one record, oldest first (bounded).
    facts: Chunks<Event>,
    facts_dropped: u64,
    groups: Vec<GroupEvidence>,
}

impl Evidence {
    pub fn new(groups: usize, partitions: u32) -> Evidence {
        let mut evidence = Evidence { groups: vec![GroupEvidence::default(); groups], ..Evidence::default() };
        evidence.add_partitions(partitions);
        evidence
    }

    pub fn add_partitions(&mut self, added: u32) {
        for group in &mut self.groups {
            group.commits.extend((0..added).map(|_| Chunks::default()));
            group.handlings.extend((0..added).map(|_| Chunks::default()));
            group.open.extend(std::iter::repeat_n(None, added as usize));
        }
    }

    /// Whether the evidence keeps `event` as a fact: every event but those
    /// about one record or one request, which come by the thousand and whose
    /// story the handling runs and the commits tell.
    #[inline]
    fn keeps(event: &Event) -> bool {
        match event {
            Event::Produced { .. }
            | Event::Fetched { .. }
            | Event::Handled { .. }
            | Event::Committed { .. }
            | Event::Checkpointed { .. }
            | Event::Peeked { .. }
            | Event::Bridged { .. }
            | Event::Acquired { .. } => false,
            #[cfg(feature = "transactions")]
            Event::PayoutWritten { .. } | Event::MarkerWritten { .. } => false,
            #[cfg(feature = "cluster")]
            Event::ProduceSent { .. } | Event::ProduceAnswered { .. } | Event::BatchAcknowledged { .. } => {
                false
            }
            _ => true,
        }
    }

    /// An event the `Sim` emitted; `group` is the group of the consumer it
    /// concerns, if any.
    /// Inlined where the `Sim` emits a record's event, so that for those it
    /// keeps nothing of it costs nothing.
    #[inline]
    pub fn handle_event(&mut self, event: &Event, group: Option<usize>) {
        match event {
            // A consumer-side store's checkpoint is the group's commit there.
            Event::Committed { tick, consumer, offsets }
            | Event::Checkpointed { tick, consumer, positions: offsets } => {
                let Some(g) = group else { return };
                for &(partition, offset) in offsets {
                    self.commit(g, partition, CommitFact { tick: *tick, consumer: Some(*consumer), offset });
                }
            }
            Event::OffsetsReset { tick, group: g, offsets, .. } => {
                for &(partition, offset) in offsets {
                    self.commit(*g as usize, partition, CommitFact { tick: *tick, consumer: None, offset });
                }
                self.fact(event);
            }
            // A share group's acknowledgements come by the record; the
            // archiving ones say why a record was never processed.
            Event::Acknowledged(ack) if ack.archived.is_empty() => {}
            _ if Self::keeps(event) => self.fact(event),
            _ => {}
        }
    }

    fn fact(&mut self, event: &Event) {
        if self.facts.len() == limits::EVIDENCE_FACTS_MAX {
            self.facts.pop_front();
            self.facts_dropped += 1;
        }
        self.facts.push_back(event.clone());
    }

    fn commit(&mut self, g: usize, partition: u32, fact: CommitFact) {
        let Some(commits) = self.groups.get_mut(g).and_then(|e| e.commits.get_mut(partition as usize)) else {
            return;
        };
        if commits.len() == limits::EVIDENCE_COMMITS_MAX {
            commits.pop_front();
        }
        commits.push_back(fact);
    }

    /// Group `g`'s `consumer` handled offsets `from..to` of `partition` at
    /// `now`, one after the other: a run, joined to the one before when it
    /// goes on from it.
    pub fn handle_run(
        &mut self,
        g: usize,
        consumer: ConsumerId,
        (partition, from, to): (u32, u64, u64),
        now: Tick,
    ) {
        let evidence = &mut self.groups[g];
        let p = partition as usize;
        match &mut evidence.open[p] {
            Some(run) if run.consumer == consumer && run.to == from && run.tick == now => run.to = to,
            open => {
                if let Some(over) = open.replace(Handling { consumer, from, to, tick: now }) {
                    let runs = &mut evidence.handlings[p];
                    if runs.len() == limits::EVIDENCE_HANDLINGS_MAX {
                        runs.pop_front();
                    }
                    runs.push_back(over);
                }
            }
        }
    }

    /// A handling that was a duplicate or out of key order.
    pub fn handle_anomaly(&mut self, g: usize, handled: &HandledRecord) {
        let evidence = &mut self.groups[g];
        if evidence.anomalies.len() == limits::EVIDENCE_ANOMALIES_MAX {
            evidence.anomalies.pop_front();
            evidence.anomalies_dropped += 1;
        }
        evidence.anomalies.push_back(*handled);
    }

    /// The facts kept, oldest first.
    pub fn facts(&self) -> impl DoubleEndedIterator<Item = &Event> + '_ {
        both_ways(&self.facts)
    }

    /// Facts dropped past the bound (the oldest).
    pub fn facts_dropped(&self) -> u64 {
        self.facts_dropped
    }

    /// Group `g`'s accepted commits of `partition`, oldest first.
    pub fn commits(&self, g: usize, partition: u32) -> impl DoubleEndedIterator<Item = &CommitFact> + '_ {
        let commits = self.groups.get(g).and_then(|e| e.commits.get(partition as usize));
        commits.into_iter().flat_map(both_ways)
    }

    /// Group `g`'s runs of handled offsets of `partition`, oldest first.
    pub fn handlings(&self, g: usize, partition: u32) -> impl DoubleEndedIterator<Item = &Handling> + '_ {
        let group = self.groups.get(g);
        let runs = group.and_then(|e| e.handlings.get(partition as usize));
        let open = group.and_then(|e| e.open.get(partition as usize)).and_then(Option::as_ref);
        runs.into_iter().flat_map(both_ways).chain(open)
    }

    /// Group `g`'s anomalous handlings kept, oldest first, and how many older ones went.
    pub fn anomalies(&self, g: usize) -> (impl DoubleEndedIterator<Item = &HandledRecord> + '_, u64) {
        let evidence = self.groups.get(g);
        (
            evidence.into_iter().flat_map(|e| both_ways(&e.anomalies)),
            evidence.map_or(0, |e| e.anomalies_dropped),
        )
    }
}

/// A list's items oldest first, which an explanation also walks newest first.
fn both_ways<T: Clone>(items: &Chunks<T>) -> impl DoubleEndedIterator<Item = &T> + '_ {
    (0..items.len()).map(move |i| items.get(i).expect("within the length"))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn handled(consumer: u32, partition: u32, offset: u64, tick: Tick, duplicate: bool) -> HandledRecord {
        HandledRecord {
            tick,
            consumer: ConsumerId(consumer),
            partition,
            offset,
            record_id: offset,
            subject: 0,
            duplicate,
            out_of_key_order: false,
            overtaken_by: None,
            from_producer: false,
            effect: true,
            produced_tick: 0,
        }
    }

    #[test]
    fn handlings_join_into_runs_and_anomalies_are_kept_apart() {
        let mut evidence = Evidence::new(1, 2);
        // c1's tick 3: offsets 0 to 2 of P0, then 5 of P1.
        let mut runs = Runs::default();
        for offset in 0..3 {
            assert_eq!(runs.handle(0, offset), None);
        }
        let ended = runs.handle(1, 5).expect("another partition ends the run");
        assert_eq!(ended, (0, 0, 3));
        evidence.handle_run(0, ConsumerId(1), ended, 3);
        assert_eq!(runs.finish(), Some((1, 5, 6)));
        // Its tick 4 goes on with P0: a run of its own, for its own tick.
        evidence.handle_run(0, ConsumerId(1), (0, 3, 4), 4);
        evidence.handle_run(0, ConsumerId(2), (0, 2, 3), 9);
        evidence.handle_anomaly(0, &handled(2, 0, 2, 9, true));
        let runs: Vec<(u32, u64, u64, Tick)> =
            evidence.handlings(0, 0).map(|r| (r.consumer.0, r.from, r.to, r.tick)).collect();
        assert_eq!(runs, [(1, 0, 3, 3), (1, 3, 4, 4), (2, 2, 3, 9)], "a run per consumer and tick");
        let (anomalies, dropped) = evidence.anomalies(0);
        assert_eq!(anomalies.map(|h| (h.consumer.0, h.offset)).collect::<Vec<_>>(), [(2, 2)]);
        assert_eq!(dropped, 0);
    }

    #[test]
    fn commits_are_kept_per_partition_and_bounded() {
        let mut evidence = Evidence::new(1, 1);
        let committed = |tick: Tick, offset: u64| Event::Committed {
            tick,
            consumer: ConsumerId(1),
            offsets: vec![(0, offset)],
        };
        for t in 0..limits::EVIDENCE_COMMITS_MAX as u64 + 5 {
            evidence.handle_event(&committed(t, t + 1), Some(0));
        }
        assert_eq!(evidence.commits(0, 0).count(), limits::EVIDENCE_COMMITS_MAX);
        assert_eq!(evidence.commits(0, 0).next().map(|c| c.offset), Some(6), "the oldest went");
        assert_eq!(evidence.facts().count(), 0, "commits are not facts");
    }
}
