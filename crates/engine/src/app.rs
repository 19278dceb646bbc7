//! The application behind a group ("what the application did, in order"):
//! it handles each record the consumer hands it, keeps the payout ledger
//! (seed 004), and, when idempotent, drops a duplicate's effect.

use crate::client::Fetched;
use crate::event::Tick;
use crate::input::ConsumerId;
use crate::limits;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Where a record sits: its partition and offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RecordAt {
    pub partition: u32,
    pub offset: u64,
}

/// One entry of "what the application did, in order".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HandledRecord {
    pub tick: Tick,
    pub consumer: ConsumerId,
    pub partition: u32,
    pub offset: u64,
    pub record_id: u64,
    pub subject: u32,
    pub duplicate: bool,
    pub out_of_key_order: bool,
    /// Out of key order: the record of the same subject, sent later, that the
    /// application had already handled (the newest such one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overtaken_by: Option<RecordAt>,
    /// The duplicate or the reordering came from the producer: a second copy
    /// it wrote, or a record it wrote after a later-sent one (a retried batch).
    pub from_producer: bool,
    pub effect: bool,
    pub produced_tick: Tick,
}

/// One account's ledger: what the payouts did to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LedgerEntry {
    pub account: u32,
    /// Money paid out, in cents (every effect counts).
    pub balance_cents: u64,
    pub effects: u64,
    /// Effects of an operation that had taken effect before: a double payout.
    pub duplicate_effects: u64,
}

/// A payout operation's amount, from its operation (record) id: deterministic, 1.00 to 99.99.
#[must_use]
pub fn payout_cents(operation_id: u64) -> u64 {
    100 + operation_id.wrapping_mul(7919) % 9_900
}

/// The application's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AppCounters {
    pub delivered: u64,
    pub duplicates: u64,
    pub distinct_handled: u64,
    pub effects: u64,
    pub out_of_key_order: u64,
    pub double_paid_cents: u64,
    /// Deliveries the handler failed on (poison records).
    pub failed: u64,
    /// Of `duplicates`: first deliveries of an offset that holds a producer's
    /// second copy of a record (the consumer side did nothing twice).
    pub duplicates_from_producer: u64,
    /// Of `out_of_key_order`: records the producer wrote after a later-sent one.
    pub out_of_key_order_from_producer: u64,
    /// Failed records the error policy moved past unprocessed (`skip`).
    pub skipped_by_handler: u64,
    /// Failed records written to the dead-letter topic.
    pub dead_lettered: u64,
    /// Failed records written to a retry topic.
    pub sent_to_retry: u64,
    /// Dead letters the replay job applied (or found applied, idempotent).
    pub replayed: u64,
    /// Replayed records whose effect a failed attempt had made already,
    /// applied again (a ledger without the unique constraint).
    pub double_applied_on_replay: u64,
    /// Effects made by attempts that then failed (the payout written, the
    /// step after threw): booked in the ledger, no handled delivery's.
    pub partial_effects: u64,
}

/// What one failed attempt did (issue 40).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Failure {
    /// 1 for the first failure of the record in this group.
    pub attempt: u32,
    /// The failed attempt had made its payout before it threw.
    pub partial_effect: bool,
}

/// What the replay of one dead letter did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Replayed {
    /// Its payout took place now.
    pub effect: bool,
    /// A failed attempt had made that payout already: paid twice.
    pub double_applied: bool,
}

/// One group's application.
///
/// # Calling contract
/// [`Application::handle_record`] takes a record and whether this group handles it
/// for the first time (its observer knows), and returns what it did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Application {
    counters: AppCounters,
    /// The last handled records, oldest first (bounded).
    recent: VecDeque<HandledRecord>,
    /// Per subject, the highest record id handled for the first time, and where it was.
    subject_high: Vec<Option<(u64, RecordAt)>>,
    /// Per account (subject): the payout ledger.
    ledger: Vec<LedgerEntry>,
    /// `fix-handler`: from now on the handler succeeds on every record.
    fixed: bool,
    /// Per failing record id: attempts failed so far and the tick the
    /// next may run (the backoff); bounded, the oldest forgotten.
    attempts: BTreeMap<u64, (u32, Tick)>,
    /// Effect keys (record ids) a failed attempt applied: what a retry or a
    /// replay finds done already. Bounded, the oldest forgotten.
    applied_before_failure: BTreeSet<u64>,
}

impl Application {
    /// Called for every record handled: inlined into the consumer's loop
    /// (issue 40's additions had made it a call, 6% of examples/busy).
    #[inline(always)]
    pub fn handle_record(
        &mut self,
        now: Tick,
        consumer: ConsumerId,
        fetched: &Fetched,
        first: bool,
        idempotent: bool,
    ) -> HandledRecord {
        // An effect a failed attempt made already: the unique constraint
        // drops it, else it is paid again. Only a record that may fail has
        // attempts or such an effect.
        let applied_before = fetched.may_fail() && self.handled_after_failures(fetched.id);
        let counters = &mut self.counters;
        counters.delivered += 1;
        let mut overtaken_by = None;
        // The unique constraint is on the record id: a producer's second copy
        // at a new offset is a record handled before (its first copy is
        // earlier in the same partition), though the group reads it once.
        let from_producer = first && fetched.producer_copy;
        let first = first && !fetched.producer_copy;
        if from_producer {
            counters.duplicates_from_producer += 1;
        }
        if first {
            counters.distinct_handled += 1;
            let subject = fetched.subject as usize;
            if self.subject_high.len() <= subject {
                assert!(subject < limits::KEYS_MAX as usize);
                self.subject_high.resize(subject + 1, None);
            }
            let high = &mut self.subject_high[subject];
            match *high {
                Some((h, at)) if h > fetched.id => overtaken_by = Some(at),
                _ => {
                    *high =
                        Some((fetched.id, RecordAt { partition: fetched.partition, offset: fetched.offset }));
                }
            }
        } else {
            counters.duplicates += 1;
        }
        let out_of_key_order = overtaken_by.is_some();
        if out_of_key_order {
            counters.out_of_key_order += 1;
            if fetched.producer_reordered {
                counters.out_of_key_order_from_producer += 1;
            }
        }
        let effect = !idempotent || (first && !applied_before);
        if effect {
            counters.effects += 1;
            self.book(fetched.subject, fetched.id, first && !applied_before);
        }
        let handled = HandledRecord {
            tick: now,
            consumer,
            partition: fetched.partition,
            offset: fetched.offset,
            record_id: fetched.id,
            subject: fetched.subject,
            duplicate: !first,
            out_of_key_order,
            overtaken_by,
            from_producer: from_producer || (out_of_key_order && fetched.producer_reordered),
            effect,
            produced_tick: fetched.produced_tick,
        };
        if self.recent.len() == limits::SINK_RECENT_MAX {
            self.recent.pop_front();
        }
        self.recent.push_back(handled);
        handled
    }

    /// A record that may fail was handled: its attempts end; whether a failed
    /// attempt had made its payout already. Out of line: most records never
    /// come here.
    #[cold]
    fn handled_after_failures(&mut self, record_id: u64) -> bool {
        self.attempts.remove(&record_id);
        self.applied_before_failure.contains(&record_id)
    }

    /// Books a payout that took effect in its account's ledger.
    #[inline]
    fn book(&mut self, account: u32, operation_id: u64, first: bool) {
        let index = account as usize;
        if self.ledger.len() <= index {
            self.ledger.resize(index + 1, LedgerEntry::default());
        }
        let entry = &mut self.ledger[index];
        entry.account = account;
        entry.effects += 1;
        entry.balance_cents += payout_cents(operation_id);
        if !first {
            entry.duplicate_effects += 1;
            self.counters.double_paid_cents += payout_cents(operation_id);
        }
    }

    /// Whether the handler fails on this attempt at the record: a poison
    /// record until the fix, a failing one at its first attempts.
    #[inline]
    pub fn fails(&self, fetched: &Fetched) -> bool {
        if self.fixed || !fetched.may_fail() {
            return false;
        }
        let failed = self.attempts.get(&fetched.id).map_or(0, |a| a.0);
        fetched.poison || failed < u32::from(fetched.failing.first)
    }

    /// Whether the backoff after the record's last failure has run out.
    #[inline]
    pub fn attempt_due(&self, record_id: u64, now: Tick) -> bool {
        self.attempts.get(&record_id).is_none_or(|a| a.1 <= now)
    }

    /// An attempt at `fetched` failed; with `failing.after_effect` its payout
    /// was made first (once only with the unique constraint).
    pub fn handle_failed(&mut self, fetched: &Fetched, idempotent: bool) -> Failure {
        self.counters.failed += 1;
        if !self.attempts.contains_key(&fetched.id) && self.attempts.len() == limits::FAILING_RECORDS_MAX {
            self.attempts.pop_first();
        }
        let entry = self.attempts.entry(fetched.id).or_insert((0, 0));
        entry.0 += 1;
        let attempt = entry.0;
        let mut partial_effect = false;
        if fetched.failing.after_effect {
            let before = self.applied_before_failure.contains(&fetched.id);
            if !(idempotent && before) {
                partial_effect = true;
                self.counters.partial_effects += 1;
                self.book(fetched.subject, fetched.id, !before);
                self.remember_applied(fetched.id);
            }
        }
        Failure { attempt, partial_effect }
    }

    fn remember_applied(&mut self, record_id: u64) {
        if self.applied_before_failure.len() == limits::FAILING_RECORDS_MAX {
            self.applied_before_failure.pop_first();
        }
        self.applied_before_failure.insert(record_id);
    }

    /// The next attempt at the record runs at `at` or later.
    pub fn handle_retry_at(&mut self, record_id: u64, at: Tick) {
        if let Some(entry) = self.attempts.get_mut(&record_id) {
            entry.1 = at;
        }
    }

    /// The application is done with a failed record here (skipped, or
    /// written to a retry or dead-letter topic): its attempts in place end.
    pub fn handle_moved_on(&mut self, record_id: u64) {
        if let Some(entry) = self.attempts.get_mut(&record_id) {
            entry.1 = 0;
        }
    }

    /// Attempts at the record that failed so far in this group.
    pub fn attempts_of(&self, record_id: u64) -> u32 {
        self.attempts.get(&record_id).map_or(0, |a| a.0)
    }

    pub fn handle_fixed(&mut self) {
        self.fixed = true;
    }

    pub fn fixed(&self) -> bool {
        self.fixed
    }

    /// The replay job applies a dead letter under its original effect key
    /// (the record id): the unique constraint drops it when a failed attempt
    /// applied it already; without it the payout is made again.
    pub fn handle_replay(&mut self, record_id: u64, subject: u32, idempotent: bool) -> Replayed {
        self.counters.replayed += 1;
        let before = self.applied_before_failure.contains(&record_id);
        if idempotent && before {
            return Replayed { effect: false, double_applied: false };
        }
        self.book(subject, record_id, !before);
        if before {
            self.counters.double_applied_on_replay += 1;
        }
        self.remember_applied(record_id);
        Replayed { effect: true, double_applied: before }
    }

    /// Its counters, a copy.
    pub fn counters(&self) -> AppCounters {
        self.counters
    }

    /// The last handled records, oldest first.
    pub fn recent(&self) -> &VecDeque<HandledRecord> {
        &self.recent
    }

    /// The error policy `skip` moved past a failed record unprocessed.
    pub fn handle_skipped(&mut self) {
        self.counters.skipped_by_handler += 1;
    }

    /// A failed record was written to the dead-letter topic.
    pub fn handle_dead_lettered(&mut self) {
        self.counters.dead_lettered += 1;
    }

    /// A failed record was written to a retry topic.
    pub fn handle_sent_to_retry(&mut self) {
        self.counters.sent_to_retry += 1;
    }

    /// Every account's ledger that saw a payout.
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        self.ledger.iter().filter(|e| e.effects > 0).copied().collect()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn record(id: u64, subject: u32) -> Fetched {
        Fetched {
            partition: 0,
            offset: id,
            id,
            subject,
            keyed: true,
            produced_tick: 0,
            poison: false,
            failing: crate::log::Failing::default(),
            delivery_count: 0,
            producer_copy: false,
            producer_reordered: false,
        }
    }

    #[test]
    fn duplicates_pay_twice_unless_idempotent() {
        let mut app = Application::default();
        let c = ConsumerId(1);
        assert!(!app.handle_record(1, c, &record(1, 0), true, false).duplicate);
        let again = app.handle_record(2, c, &record(1, 0), false, false);
        assert!(again.duplicate && again.effect);
        assert_eq!(app.counters.double_paid_cents, payout_cents(1));
        let dropped = app.handle_record(3, c, &record(1, 0), false, true);
        assert!(dropped.duplicate && !dropped.effect, "the unique constraint drops it");
        assert_eq!(app.counters.delivered, 3);
        assert_eq!(app.counters.effects, 2);
        assert_eq!(app.ledger()[0].duplicate_effects, 1);
    }

    #[test]
    fn an_older_record_of_a_subject_handled_after_a_newer_one_is_out_of_key_order() {
        let mut app = Application::default();
        let c = ConsumerId(1);
        app.handle_record(1, c, &record(5, 2), true, false);
        let late = app.handle_record(1, c, &record(3, 2), true, false);
        assert!(late.out_of_key_order);
        assert_eq!(
            late.overtaken_by,
            Some(RecordAt { partition: 0, offset: 5 }),
            "the later record it came after"
        );
        assert!(!app.handle_record(1, c, &record(4, 1), true, false).out_of_key_order, "another subject");
        assert_eq!(app.counters.out_of_key_order, 1);
    }
}
