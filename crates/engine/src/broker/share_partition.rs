//! One partition of a share group (KIP-932): records are acquired, not owned.
//!
//! Many members read one partition at once. The broker keeps, per
//! share-partition, the share-partition start offset (SPSO: every record
//! before it is done), and for each in-flight record from there on its state
//! and how often it has been delivered. The in-flight window ends at the
//! first offset never acquired, and it holds at most `max_record_locks`
//! records (`group.share.partition.max.record.locks`).
//!
//! - `acquire` hands a member available records of the window first, then
//!   new ones past its end; each acquisition counts a delivery and starts an
//!   acquisition lock of `lock_duration_ticks`
//!   (`group.share.record.lock.duration.ms`).
//! - `acknowledge` takes a member's accept, release, reject or renew for a
//!   record it holds.
//! - `expire_locks` gives back the records whose lock ran out, and
//!   `release_member` those of a member that left.
//!
//! A record given back after its `delivery_count_limit`-th delivery
//! (`group.share.delivery.count.limit`) is archived instead of made available
//! again: a record the application always fails is delivered that many times
//! and then skipped.
//!
//! Calling contract: time is the caller's tick, passed in; offsets come from
//! the partition's log (`acquire` is told the log end offset). Nothing here
//! reads a clock or the log. A request the state does not allow (an
//! acknowledgement for a record the member does not hold) is refused with an
//! error, never asserted on.

use crate::input::ConsumerId;
use std::collections::VecDeque;

/// The share group's settings that the share-partition follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShareLimits {
    /// `group.share.record.lock.duration.ms`, in ticks.
    pub lock_duration_ticks: u64,
    /// `group.share.delivery.count.limit`.
    pub delivery_count_limit: u8,
    /// `group.share.partition.max.record.locks`: the in-flight window's size.
    pub max_record_locks: u32,
}

/// An in-flight record's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordState {
    /// Free for the next acquisition.
    Available,
    /// Held by `member` until `until_tick` (exclusive), when the lock expires.
    Acquired { member: ConsumerId, until_tick: u64 },
    /// Accepted: handled for good.
    Acknowledged,
    /// Rejected, or given back after its last allowed delivery: skipped for good.
    Archived,
}

impl RecordState {
    fn is_done(self) -> bool {
        matches!(self, Self::Acknowledged | Self::Archived)
    }
}

/// How a member acknowledges a record it holds (Kafka's `AcknowledgeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AcknowledgeType {
    /// Handled: the record is acknowledged.
    Accept,
    /// Not handled, give it to someone: available again (archived past the limit).
    Release,
    /// Cannot be handled: archived. (The model's applications release what
    /// they fail on; reject is the broker's rule, tested here.)
    #[cfg_attr(not(test), allow(dead_code))]
    Reject,
    /// Still being handled: the lock starts again, the delivery count stays.
    Renew,
}

/// Why an acknowledgement was refused: Kafka answers both with
/// `INVALID_RECORD_STATE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AcknowledgeError {
    /// The record is not in flight (before the start offset or past the end).
    InvalidRecordState { offset: u64 },
    /// The record is in flight but not held by this member (its lock expired,
    /// another member acquired it, or it is done).
    NotHolder { offset: u64 },
}

/// A record that changed state without an acknowledgement: its lock expired
/// or its holder left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GivenBack {
    pub offset: u64,
    pub member: ConsumerId,
    /// True when it was archived (its delivery count reached the limit).
    pub archived: bool,
}

/// One acquired record, as the fetch response carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Acquired {
    pub offset: u64,
    pub delivery_count: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InFlight {
    state: RecordState,
    delivery_count: u8,
}

/// A share-partition's state; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SharePartition {
    limits: ShareLimits,
    /// SPSO: every record before it is acknowledged or archived.
    start_offset: u64,
    /// The in-flight records from `start_offset` on, one per offset.
    in_flight: VecDeque<InFlight>,
    /// What the share coordinator holds (`kafka-share-groups --describe`
    /// reads it): the start offset of the last write, `None` before the
    /// first, and the records done at or past it then.
    persisted: Option<(u64, u64)>,
    /// Records in the window that are acknowledged or archived: kept, since
    /// the group's lag reads it every tick.
    done: u64,
    /// No lock runs out before this tick: lock expiry, checked every tick,
    /// scans the window only from then on.
    earliest_lock_tick: u64,
}

impl SharePartition {
    /// A share-partition whose first record to deliver is `start_offset`
    /// (`share.auto.offset.reset`: the log end offset for `latest`, the log
    /// start offset for `earliest`).
    pub(crate) fn new(limits: ShareLimits, start_offset: u64) -> Self {
        assert!(limits.delivery_count_limit >= 1, "a record is delivered at least once");
        assert!(limits.max_record_locks >= 1, "the window holds at least one record");
        assert!(limits.lock_duration_ticks >= 1, "a lock lasts at least one tick");
        Self {
            limits,
            start_offset,
            in_flight: VecDeque::new(),
            persisted: None,
            done: 0,
            earliest_lock_tick: u64::MAX,
        }
    }

    /// A partition added to a topic the group already reads: Kafka's group
    /// coordinator initialises its share state at offset 0 (not by
    /// `share.auto.offset.reset`), written at once.
    pub(crate) fn added(limits: ShareLimits) -> Self {
        Self { persisted: Some((0, 0)), ..Self::new(limits, 0) }
    }

    /// The share coordinator's state of this share-partition: its start
    /// offset and the records done at or past it, as of the last write
    /// (`None` before the first acknowledgement, release or lock expiry).
    pub(crate) fn persisted(&self) -> Option<(u64, u64)> {
        self.persisted
    }

    /// Records acknowledged or archived in the window.
    pub(crate) fn done_count(&self) -> u64 {
        self.done
    }

    /// Retention moved the log start to `log_start`: records before it leave
    /// the window whatever their state (the broker archives them).
    pub(crate) fn handle_log_start(&mut self, log_start: u64) {
        while self.start_offset < log_start {
            let Some(record) = self.in_flight.pop_front() else {
                self.start_offset = log_start;
                break;
            };
            self.done -= u64::from(record.state.is_done());
            self.start_offset += 1;
        }
        self.advance_start();
        self.check();
    }

    /// A write to the share coordinator, made before the start offset moves
    /// for the change being written (so `--describe` trails by one write);
    /// the coordinator keeps the higher start offset.
    fn persist(&mut self) {
        let written = (self.start_offset, self.done_count());
        self.persisted = Some(match self.persisted {
            Some(old) if old.0 > written.0 => old,
            Some(old) if old.0 == written.0 => (old.0, old.1.max(written.1)),
            _ => written,
        });
    }

    /// SPSO.
    pub(crate) fn start_offset(&self) -> u64 {
        self.start_offset
    }

    /// The first offset past the in-flight window (Kafka's SPEO is the last
    /// offset in it: this minus one).
    pub(crate) fn end_offset(&self) -> u64 {
        self.start_offset + self.in_flight.len() as u64
    }

    /// Records in the window that are not done (available or acquired).
    #[cfg(test)]
    pub(crate) fn in_flight_count(&self) -> usize {
        self.in_flight.iter().filter(|r| !r.state.is_done()).count()
    }

    /// The state and delivery count of `offset`, while it is in the window.
    pub(crate) fn record(&self, offset: u64) -> Option<(RecordState, u8)> {
        let i = usize::try_from(offset.checked_sub(self.start_offset)?).ok()?;
        self.in_flight.get(i).map(|r| (r.state, r.delivery_count))
    }

    /// Acquires for `member` at most `max_records` records at `now_tick`:
    /// available records of the window first, in offset order, then new
    /// records past the window's end, up to `log_end_offset` and while the
    /// window has room. `in_transition` are records this same request just
    /// released: their state is still being written, so this fetch skips them.
    pub(crate) fn acquire(
        &mut self,
        member: ConsumerId,
        max_records: u32,
        log_end_offset: u64,
        now_tick: u64,
        in_transition: &[u64],
    ) -> Vec<Acquired> {
        let until_tick = now_tick + self.limits.lock_duration_ticks;
        self.earliest_lock_tick = self.earliest_lock_tick.min(until_tick);
        let throttle = self.throttle_delivery_count();
        let mut acquired = Vec::new();
        let mut stopped = false;
        for (i, record) in self.in_flight.iter_mut().enumerate() {
            if acquired.len() as u32 >= max_records {
                break;
            }
            if record.state == RecordState::Available
                && !in_transition.contains(&(self.start_offset + i as u64))
            {
                assert!(
                    record.delivery_count < self.limits.delivery_count_limit,
                    "a record past its limit is archived"
                );
                // A record delivered this often comes back alone: not after
                // others in this acquisition, and nothing after it.
                let alone = record.delivery_count >= throttle;
                if alone && !acquired.is_empty() {
                    stopped = true;
                    break;
                }
                record.delivery_count += 1;
                record.state = RecordState::Acquired { member, until_tick };
                acquired.push(Acquired {
                    offset: self.start_offset + i as u64,
                    delivery_count: record.delivery_count,
                });
                if alone {
                    stopped = true;
                    break;
                }
            }
        }
        while !stopped
            && (acquired.len() as u32) < max_records
            && self.end_offset() < log_end_offset
            && self.in_flight.len() < self.limits.max_record_locks as usize
        {
            let offset = self.end_offset();
            self.in_flight.push_back(InFlight {
                state: RecordState::Acquired { member, until_tick },
                delivery_count: 1,
            });
            acquired.push(Acquired { offset, delivery_count: 1 });
        }
        self.check();
        acquired
    }

    /// The delivery count from which a record is acquired alone (Kafka 4.4's
    /// `shouldThrottleRecordsDelivery`: `max(2, ceil(limit / 2))`, 3 for the
    /// default limit of 5, so its 4th and 5th deliveries come alone). Kafka
    /// throttles whole log batches; here every record is its own batch.
    fn throttle_delivery_count(&self) -> u8 {
        self.limits.delivery_count_limit.div_ceil(2).max(2)
    }

    /// `member`'s acknowledgement of `offset` at `now_tick`. Returns true when
    /// the record is archived by it.
    pub(crate) fn acknowledge(
        &mut self,
        member: ConsumerId,
        offset: u64,
        kind: AcknowledgeType,
        now_tick: u64,
    ) -> Result<bool, AcknowledgeError> {
        let limit = self.limits.delivery_count_limit;
        let lock = self.limits.lock_duration_ticks;
        let Some(i) = offset.checked_sub(self.start_offset) else {
            // Kafka ignores acknowledgements of records before the start offset.
            return Ok(false);
        };
        let i = usize::try_from(i)
            .ok()
            .filter(|&i| i < self.in_flight.len())
            .ok_or(AcknowledgeError::InvalidRecordState { offset })?;
        let record = &mut self.in_flight[i];
        match record.state {
            RecordState::Acquired { member: holder, until_tick }
                if holder == member && now_tick < until_tick => {}
            _ => return Err(AcknowledgeError::NotHolder { offset }),
        }
        record.state = match kind {
            AcknowledgeType::Accept => RecordState::Acknowledged,
            AcknowledgeType::Reject => RecordState::Archived,
            AcknowledgeType::Release => given_back(record.delivery_count, limit),
            AcknowledgeType::Renew => RecordState::Acquired { member, until_tick: now_tick + lock },
        };
        let archived = record.state == RecordState::Archived;
        if kind != AcknowledgeType::Renew {
            self.done += u64::from(record.state.is_done());
            self.persist();
        }
        self.advance_start();
        self.check();
        Ok(archived)
    }

    /// Gives back every record whose lock has run out at `now_tick`.
    pub(crate) fn expire_locks(&mut self, now_tick: u64) -> Vec<GivenBack> {
        if now_tick < self.earliest_lock_tick {
            return Vec::new();
        }
        let back = self.give_back(|_, until_tick| until_tick <= now_tick);
        // The locks still held bound the next expiry (a renew only moves one later).
        self.earliest_lock_tick = self
            .in_flight
            .iter()
            .filter_map(|r| match r.state {
                RecordState::Acquired { until_tick, .. } => Some(until_tick),
                _ => None,
            })
            .min()
            .unwrap_or(u64::MAX);
        back
    }

    /// Gives back every record `member` holds (it left the group).
    pub(crate) fn release_member(&mut self, member: ConsumerId) -> Vec<GivenBack> {
        self.give_back(|holder, _| holder == member)
    }

    fn give_back(&mut self, due: impl Fn(ConsumerId, u64) -> bool) -> Vec<GivenBack> {
        let limit = self.limits.delivery_count_limit;
        let mut out = Vec::new();
        for (i, record) in self.in_flight.iter_mut().enumerate() {
            if let RecordState::Acquired { member, until_tick } = record.state
                && due(member, until_tick)
            {
                record.state = given_back(record.delivery_count, limit);
                let archived = record.state == RecordState::Archived;
                self.done += u64::from(archived);
                out.push(GivenBack { offset: self.start_offset + i as u64, member, archived });
            }
        }
        if !out.is_empty() {
            self.persist();
        }
        self.advance_start();
        self.check();
        out
    }

    /// Moves the start offset past the done records at the window's front.
    fn advance_start(&mut self) {
        while self.in_flight.front().is_some_and(|r| r.state.is_done()) {
            self.in_flight.pop_front();
            self.done -= 1;
            self.start_offset += 1;
        }
    }

    fn check(&self) {
        if !cfg!(debug_assertions) {
            return; // the whole-state sweep: debug builds and tests (ARCHITECTURE.md)
        }
        assert!(self.in_flight.len() <= self.limits.max_record_locks as usize, "the window is bounded");
        assert!(
            self.in_flight.front().is_none_or(|r| !r.state.is_done()),
            "the start offset is past done records"
        );
        let mut done = 0;
        for r in &self.in_flight {
            done += u64::from(r.state.is_done());
            if let RecordState::Acquired { until_tick, .. } = r.state {
                assert!(until_tick >= self.earliest_lock_tick, "no lock runs out before the bound");
            }
            assert!(r.delivery_count <= self.limits.delivery_count_limit, "delivered at most the limit");
            assert!(
                r.delivery_count >= 1 || r.state == RecordState::Available,
                "an acquired record was delivered"
            );
        }
        assert_eq!(done, self.done, "the done count matches the window");
    }
}

/// A record's state when it is given back after `delivery_count` deliveries.
fn given_back(delivery_count: u8, limit: u8) -> RecordState {
    if delivery_count >= limit { RecordState::Archived } else { RecordState::Available }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: ShareLimits =
        ShareLimits { lock_duration_ticks: 6, delivery_count_limit: 5, max_record_locks: 4 };
    const C1: ConsumerId = ConsumerId(1);
    const C2: ConsumerId = ConsumerId(2);

    fn offsets(acquired: &[Acquired]) -> Vec<u64> {
        acquired.iter().map(|a| a.offset).collect()
    }

    #[test]
    fn two_members_read_one_partition_at_once() {
        let mut sp = SharePartition::new(LIMITS, 0);
        assert_eq!(offsets(&sp.acquire(C1, 2, 10, 0, &[])), [0, 1]);
        assert_eq!(offsets(&sp.acquire(C2, 2, 10, 0, &[])), [2, 3]);
        // The window is full (4 locks): nobody gets more until the front is done.
        assert!(sp.acquire(C2, 2, 10, 0, &[]).is_empty());
        assert_eq!(sp.acknowledge(C2, 2, AcknowledgeType::Accept, 1), Ok(false));
        assert_eq!(sp.start_offset(), 0, "offset 0 is still held");
        assert_eq!(sp.in_flight_count(), 3, "offset 2 is done but still inside the window");
        assert_eq!(sp.acknowledge(C1, 0, AcknowledgeType::Accept, 1), Ok(false));
        assert_eq!(sp.start_offset(), 1);
        // The coordinator got each write before its own advance.
        assert_eq!(sp.persisted(), Some((0, 2)));
        assert_eq!(offsets(&sp.acquire(C1, 5, 10, 1, &[])), [4]);
    }

    #[test]
    fn a_record_released_in_a_fetch_is_not_reacquired_by_that_fetch() {
        let mut sp = SharePartition::new(LIMITS, 0);
        sp.acquire(C1, 1, 2, 0, &[]);
        sp.acknowledge(C1, 0, AcknowledgeType::Release, 1).expect("held");
        assert_eq!(offsets(&sp.acquire(C1, 1, 2, 1, &[0])), [1], "skips 0, takes a new one");
        assert_eq!(sp.acquire(C2, 1, 2, 1, &[]), [Acquired { offset: 0, delivery_count: 2 }]);
    }

    #[test]
    fn retention_takes_records_out_of_the_window() {
        let mut sp = SharePartition::new(LIMITS, 0);
        sp.acquire(C1, 3, 10, 0, &[]);
        sp.handle_log_start(2);
        assert_eq!((sp.start_offset(), sp.end_offset()), (2, 3));
        sp.handle_log_start(7);
        assert_eq!((sp.start_offset(), sp.end_offset()), (7, 7));
        assert_eq!(offsets(&sp.acquire(C1, 2, 10, 1, &[])), [7, 8]);
    }

    #[test]
    fn only_the_holder_acknowledges() {
        let mut sp = SharePartition::new(LIMITS, 3);
        sp.acquire(C1, 1, 10, 0, &[]);
        assert_eq!(
            sp.acknowledge(C2, 3, AcknowledgeType::Accept, 0),
            Err(AcknowledgeError::NotHolder { offset: 3 })
        );
        assert_eq!(
            sp.acknowledge(C1, 4, AcknowledgeType::Accept, 0),
            Err(AcknowledgeError::InvalidRecordState { offset: 4 }),
            "past the window"
        );
        assert_eq!(sp.acknowledge(C1, 2, AcknowledgeType::Accept, 0), Ok(false), "before the start: ignored");
        // After the lock expired the record is not the member's any more.
        assert_eq!(
            sp.acknowledge(C1, 3, AcknowledgeType::Accept, 6),
            Err(AcknowledgeError::NotHolder { offset: 3 })
        );
    }

    #[test]
    fn an_expired_lock_makes_the_record_available_to_others() {
        let mut sp = SharePartition::new(LIMITS, 0);
        sp.acquire(C1, 2, 2, 0, &[]);
        assert!(sp.expire_locks(5).is_empty(), "the lock lasts 6 ticks");
        let back = sp.expire_locks(6);
        assert_eq!(back.len(), 2);
        assert!(back.iter().all(|b| b.member == C1 && !b.archived));
        let again = sp.acquire(C2, 5, 2, 6, &[]);
        assert_eq!(
            again,
            [Acquired { offset: 0, delivery_count: 2 }, Acquired { offset: 1, delivery_count: 2 }]
        );
    }

    #[test]
    fn renew_keeps_the_lock_and_the_delivery_count() {
        let mut sp = SharePartition::new(LIMITS, 0);
        sp.acquire(C1, 1, 1, 0, &[]);
        assert_eq!(sp.acknowledge(C1, 0, AcknowledgeType::Renew, 5), Ok(false));
        assert!(sp.expire_locks(10).is_empty(), "renewed at 5: held until 11");
        assert_eq!(sp.record(0), Some((RecordState::Acquired { member: C1, until_tick: 11 }, 1)));
    }

    #[test]
    fn a_poison_record_is_archived_after_its_fifth_delivery() {
        let mut sp = SharePartition::new(LIMITS, 0);
        for delivery in 1..=5u8 {
            let got = sp.acquire(C1, 1, 2, u64::from(delivery), &[]);
            assert_eq!(got, [Acquired { offset: 0, delivery_count: delivery }]);
            let archived = sp.acknowledge(C1, 0, AcknowledgeType::Release, u64::from(delivery)).unwrap();
            assert_eq!(archived, delivery == 5);
        }
        assert_eq!(sp.start_offset(), 1, "archived records are done");
        assert_eq!(offsets(&sp.acquire(C1, 1, 2, 9, &[])), [1], "the rest flows");
    }

    #[test]
    fn a_record_delivered_three_times_comes_back_alone() {
        let mut sp = SharePartition::new(LIMITS, 0);
        for tick in 0..3u64 {
            sp.acquire(C1, 1, 1, tick, &[]);
            sp.acknowledge(C1, 0, AcknowledgeType::Release, tick).unwrap();
        }
        // Offset 0 has been delivered 3 times: its 4th delivery is alone.
        assert_eq!(sp.acquire(C1, 5, 3, 4, &[]), [Acquired { offset: 0, delivery_count: 4 }]);
        // The next acquisition takes the others.
        assert_eq!(offsets(&sp.acquire(C2, 5, 3, 4, &[])), [1, 2]);
        // Released again, it does not come after others either.
        sp.acknowledge(C2, 1, AcknowledgeType::Release, 4).unwrap();
        sp.acknowledge(C1, 0, AcknowledgeType::Release, 4).unwrap();
        assert_eq!(offsets(&sp.acquire(C2, 5, 3, 5, &[])), [0]);
        assert_eq!(sp.record(0), Some((RecordState::Acquired { member: C2, until_tick: 11 }, 5)));
    }

    #[test]
    fn a_rejected_record_is_archived_at_once() {
        let mut sp = SharePartition::new(LIMITS, 0);
        sp.acquire(C1, 2, 2, 0, &[]);
        assert_eq!(sp.acknowledge(C1, 1, AcknowledgeType::Reject, 0), Ok(true));
        assert_eq!(sp.record(1), Some((RecordState::Archived, 1)));
        assert_eq!(sp.start_offset(), 0, "offset 0 is still held");
    }

    #[test]
    fn a_leaving_member_gives_its_records_back() {
        let mut sp = SharePartition::new(LIMITS, 0);
        sp.acquire(C1, 2, 4, 0, &[]);
        sp.acquire(C2, 1, 4, 0, &[]);
        let back = sp.release_member(C1);
        assert_eq!(back.iter().map(|b| b.offset).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(sp.record(2).map(|r| r.0), Some(RecordState::Acquired { member: C2, until_tick: 6 }));
        assert_eq!(offsets(&sp.acquire(C2, 5, 4, 1, &[])), [0, 1, 3]);
    }

    /// Random sequences of requests (proptest is a native dev-dependency).
    #[cfg(not(target_arch = "wasm32"))]
    mod sequences {
        use super::*;
        use proptest::prelude::*;

        #[derive(Debug, Clone)]
        enum Step {
            Acquire { member: u32, max: u32, produced: u64 },
            Ack { member: u32, offset: u64, kind: u8 },
            Tick(u64),
            Leave(u32),
        }

        fn step() -> impl Strategy<Value = Step> {
            prop_oneof![
                (0..3u32, 1..4u32, 0..3u64).prop_map(|(member, max, produced)| Step::Acquire {
                    member,
                    max,
                    produced
                }),
                (0..3u32, 0..12u64, 0..4u8).prop_map(|(member, offset, kind)| Step::Ack {
                    member,
                    offset,
                    kind
                }),
                (1..4u64).prop_map(Step::Tick),
                (0..3u32).prop_map(Step::Leave),
            ]
        }

        proptest! {
            /// Whatever the members do, the invariants hold (`check` asserts them
            /// after each step), each record is delivered at most the limit, and a
            /// record leaves the window only once done.
            #[test]
            fn any_sequence_keeps_the_invariants(steps in proptest::collection::vec(step(), 0..80)) {
                let limits = ShareLimits { lock_duration_ticks: 3, delivery_count_limit: 3, max_record_locks: 5 };
                let mut sp = SharePartition::new(limits, 0);
                let (mut now, mut log_end) = (0u64, 0u64);
                let mut deliveries = std::collections::BTreeMap::<u64, u8>::new();
                for step in steps {
                    match step {
                        Step::Acquire { member, max, produced } => {
                            log_end += produced;
                            for a in sp.acquire(ConsumerId(member), max, log_end, now, &[]) {
                                let n = deliveries.entry(a.offset).or_default();
                                *n += 1;
                                prop_assert_eq!(*n, a.delivery_count);
                            }
                        }
                        Step::Ack { member, offset, kind } => {
                            let kind = [AcknowledgeType::Accept, AcknowledgeType::Release, AcknowledgeType::Reject, AcknowledgeType::Renew][kind as usize];
                            let _ = sp.acknowledge(ConsumerId(member), offset, kind, now);
                        }
                        Step::Tick(ticks) => {
                            now += ticks;
                            sp.expire_locks(now);
                        }
                        Step::Leave(member) => {
                            sp.release_member(ConsumerId(member));
                        }
                    }
                    prop_assert!(sp.end_offset() <= log_end);
                    prop_assert!(deliveries.values().all(|&n| n <= limits.delivery_count_limit));
                }
            }
        }
    }
}
