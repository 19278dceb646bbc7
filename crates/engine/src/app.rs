//! The application behind a group ("what the application did, in order"):
//! it handles each record the consumer hands it, keeps the payout ledger
//! (seed 004), and, when idempotent, drops a duplicate's effect.

use crate::client::Fetched;
use crate::event::Tick;
use crate::input::ConsumerId;
use crate::limits;
use serde::Serialize;
use std::collections::VecDeque;

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
}

/// One group's application.
///
/// # Calling contract
/// [`Application::handle_record`] takes a record and whether this group handles it
/// for the first time (its observer knows), and returns what it did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Application {
    pub counters: AppCounters,
    /// The last handled records, oldest first (bounded).
    pub recent: VecDeque<HandledRecord>,
    /// Per subject, the highest record id handled for the first time, and where it was.
    subject_high: Vec<Option<(u64, RecordAt)>>,
    /// Per account (subject): the payout ledger.
    ledger: Vec<LedgerEntry>,
}

impl Application {
    pub fn handle_record(
        &mut self,
        now: Tick,
        consumer: ConsumerId,
        fetched: &Fetched,
        first: bool,
        idempotent: bool,
    ) -> HandledRecord {
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
        let effect = !idempotent || first;
        if effect {
            counters.effects += 1;
            self.book(fetched.subject, fetched.id, first);
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

    /// Books a payout that took effect in its account's ledger.
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
