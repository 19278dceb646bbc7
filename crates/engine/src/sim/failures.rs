//! Routing for a handler that fails (issue 40): the application's error
//! policy (`config::ErrorPolicy`, the application's code, not Kafka's), the
//! dead-letter and retry topics it writes to (`letters.rs`), its retry
//! consumer and its dead-letter replay job.

use super::Sim;
use crate::client::Fetched;
use crate::config::{ErrorPolicy, GroupProtocol};
use crate::event::Event;
use crate::evidence::Runs;
use crate::input::{ConsumerId, InputError};
use crate::letters::{Letter, LetterTopicId};
use crate::log::Failing;

/// What the consumer's loop does after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AfterFailure {
    /// The record stays at the front of the batch: the loop tries it again.
    Again,
    /// The application is done with it here: the loop moves on (and commits past it).
    MovedOn,
}

/// `kafka_dlt-exception-message` of a failure.
fn cause(fetched: &Fetched) -> &'static str {
    if fetched.poison {
        "poison record: the handler cannot process it"
    } else {
        "the handler failed (transient)"
    }
}

/// The original record a letter carries, as its handler sees it.
fn from_letter(letter: &Letter) -> Fetched {
    Fetched {
        partition: letter.source_partition,
        offset: letter.source_offset,
        id: letter.record_id,
        subject: letter.subject,
        keyed: letter.keyed,
        produced_tick: letter.produced_tick,
        poison: letter.poison,
        failing: Failing { first: letter.fails_first, after_effect: letter.after_effect },
        delivery_count: 0,
        producer_copy: false,
        producer_reordered: false,
    }
}

impl Sim {
    /// The handler failed on `fetched` in consumer `c`'s loop: the group's
    /// error policy decides what the loop does next.
    pub(super) fn handle_failure(&mut self, c: usize, fetched: &Fetched) -> AfterFailure {
        let g = self.consumers[c].group();
        let consumer = self.consumers[c].id();
        let attempt = self.record_failure(g, consumer, fetched);
        let now = self.now;
        let retry_in_place = |backoff_ticks: u64| now + backoff_ticks.max(1);
        match self.groups[g].settings.error_policy {
            ErrorPolicy::Skip => {
                self.observers[g].handle_failed(fetched);
                self.apps[g].handle_moved_on(fetched.id);
                self.apps[g].handle_skipped();
                self.emit(Event::FailedRecordSkipped {
                    tick: now,
                    consumer,
                    partition: fetched.partition,
                    offset: fetched.offset,
                    record_id: fetched.id,
                });
                AfterFailure::MovedOn
            }
            ErrorPolicy::RetryForever { backoff_ticks } => {
                self.retry_in_place(g, consumer, fetched, attempt, retry_in_place(backoff_ticks))
            }
            ErrorPolicy::RetryThenDeadLetter { retries, backoff_ticks } if attempt <= retries => {
                self.retry_in_place(g, consumer, fetched, attempt, retry_in_place(backoff_ticks))
            }
            ErrorPolicy::RetryThenDeadLetter { .. } => {
                self.observers[g].handle_parked(fetched);
                self.write_letter(g, consumer, fetched, attempt, LetterTopicId::DeadLetter);
                AfterFailure::MovedOn
            }
            ErrorPolicy::RetryTopics { .. } => {
                self.observers[g].handle_parked(fetched);
                self.write_letter(g, consumer, fetched, attempt, LetterTopicId::Retry { level: 1 });
                AfterFailure::MovedOn
            }
        }
    }

    /// Counts a failed attempt and its payout, if it made one; returns the attempt.
    pub(super) fn record_failure(&mut self, g: usize, consumer: ConsumerId, fetched: &Fetched) -> u32 {
        let idempotent = self.groups[g].settings.idempotent;
        let failure = self.apps[g].handle_failed(fetched, idempotent);
        self.emit(Event::HandlerFailed {
            tick: self.now,
            consumer,
            partition: fetched.partition,
            offset: fetched.offset,
            record_id: fetched.id,
            attempt: failure.attempt,
            after_effect: failure.partial_effect,
        });
        failure.attempt
    }

    fn retry_in_place(
        &mut self,
        g: usize,
        consumer: ConsumerId,
        fetched: &Fetched,
        attempt: u32,
        next_tick: u64,
    ) -> AfterFailure {
        self.apps[g].handle_retry_at(fetched.id, next_tick);
        self.observers[g].handle_stuck(fetched, attempt, self.now);
        self.emit(Event::RetryingInPlace {
            tick: self.now,
            consumer,
            partition: fetched.partition,
            offset: fetched.offset,
            attempt,
            next_tick,
        });
        AfterFailure::Again
    }

    /// Whether consumer `c`'s loop may attempt `fetched` now: not while the
    /// backoff after its last failure runs (the handler sleeps; its
    /// partition waits, a stuck tick).
    pub(super) fn attempt_due(&mut self, c: usize, fetched: &Fetched) -> bool {
        let g = self.consumers[c].group();
        if self.apps[g].attempt_due(fetched.id, self.now) {
            return true;
        }
        let attempts = self.apps[g].attempts_of(fetched.id);
        self.observers[g].handle_stuck(fetched, attempts, self.now);
        false
    }

    /// Writes the failed record to `to` with the headers of its failure and
    /// moves the application past it.
    fn write_letter(
        &mut self,
        g: usize,
        consumer: ConsumerId,
        fetched: &Fetched,
        attempts: u32,
        to: LetterTopicId,
    ) {
        let policy = self.groups[g].settings.error_policy;
        let due_tick = match to {
            LetterTopicId::DeadLetter => self.now,
            LetterTopicId::Retry { level } => self.now + policy.retry_delay(level),
        };
        let letter = Letter {
            record_id: fetched.id,
            subject: fetched.subject,
            keyed: fetched.keyed,
            source_partition: fetched.partition,
            source_offset: fetched.offset,
            group: g as u32,
            cause: cause(fetched),
            consumer,
            attempts,
            written_tick: self.now,
            due_tick,
            produced_tick: fetched.produced_tick,
            poison: fetched.poison,
            fails_first: fetched.failing.first,
            after_effect: fetched.failing.after_effect,
        };
        self.apps[g].handle_moved_on(fetched.id);
        let offset = self.letters.handle_write(to, letter);
        let (tick, partition, record_id) = (self.now, fetched.partition, fetched.id);
        match to {
            LetterTopicId::DeadLetter => {
                self.apps[g].handle_dead_lettered();
                self.emit(Event::DeadLettered {
                    tick,
                    consumer,
                    partition,
                    offset: fetched.offset,
                    record_id,
                    dlt_offset: offset,
                    attempts,
                });
            }
            LetterTopicId::Retry { level } => {
                self.apps[g].handle_sent_to_retry();
                self.emit(Event::SentToRetryTopic {
                    tick,
                    consumer,
                    partition,
                    offset: fetched.offset,
                    record_id,
                    level,
                    retry_offset: offset,
                    due_tick,
                });
            }
        }
    }

    /// Group `g`'s retry consumer (`@RetryableTopic`'s listener on each
    /// retry topic): the due letters of each level, up to `handle_per_tick`
    /// a level, through the same handler. A success is a handled record
    /// like any other (its key order judged by the application); a failure
    /// goes one level on, or to the dead-letter topic after the policy's
    /// last. Every retry topic there is is read, so that letters written
    /// before an `error-policy` change are still handled; under a policy
    /// without retry topics a failure there goes to the dead-letter topic.
    pub(super) fn step_retry_consumer(&mut self, g: usize) {
        let levels = match self.groups[g].settings.error_policy {
            ErrorPolicy::RetryTopics { levels, .. } => levels,
            _ => 0,
        };
        let per_tick = self.groups[g].settings.handle_per_tick;
        for level in 1..=self.letters.levels() {
            let due = self.letters.poll_due(g, level, self.now, per_tick);
            for record in due {
                let letter = record.letter;
                let fetched = from_letter(&letter);
                if self.apps[g].fails(&fetched) {
                    let attempt = self.record_failure(g, letter.consumer, &fetched);
                    let to = if level < levels {
                        LetterTopicId::Retry { level: level + 1 }
                    } else {
                        LetterTopicId::DeadLetter
                    };
                    self.write_letter(g, letter.consumer, &fetched, attempt, to);
                } else {
                    self.handle_unparked(g, letter.consumer, &fetched);
                }
            }
        }
    }

    /// A parked record handled at last (from a retry topic): the observer,
    /// the application and the evidence see a handled record.
    fn handle_unparked(&mut self, g: usize, consumer: ConsumerId, fetched: &Fetched) {
        let first = self.observers[g].handle_unparked(fetched.partition, fetched.offset);
        let idempotent = self.groups[g].settings.idempotent;
        let handled = self.apps[g].handle_record(self.now, consumer, fetched, first, idempotent);
        let mut runs = Runs::default();
        if let Some(over) = runs.handle(fetched.partition, fetched.offset) {
            self.evidence.handle_run(g, consumer, over, self.now);
        }
        if let Some(over) = runs.finish() {
            self.evidence.handle_run(g, consumer, over, self.now);
        }
        self.report_handled(g, &handled);
    }

    /// `replay-dead-letters`: refused for a share group, and before the
    /// fix (a replay into the failing handler would dead-letter them again).
    pub(super) fn start_replay(&mut self, g: usize) -> Result<(), InputError> {
        let group = self.groups[g].config.name.clone();
        if self.protocol(g) == GroupProtocol::Share {
            return Err(InputError::ShareGroup { group, input: "replay-dead-letters" });
        }
        if !self.apps[g].fixed() {
            return Err(InputError::HandlerNotFixed { group });
        }
        if self.letters.replaying(g) {
            return Ok(());
        }
        self.letters.handle_replay_started(g);
        self.emit(Event::ReplayStarted { tick: self.now, group: g as u32 });
        Ok(())
    }

    /// Group `g`'s replay job: up to `handle_per_tick` of its dead letters a
    /// tick, each applied under its original effect key.
    pub(super) fn step_replay(&mut self, g: usize) {
        if !self.letters.replaying(g) {
            return;
        }
        let per_tick = self.groups[g].settings.handle_per_tick;
        let idempotent = self.groups[g].settings.idempotent;
        for record in self.letters.poll_replay(g, per_tick) {
            let letter = record.letter;
            let replayed = self.apps[g].handle_replay(letter.record_id, letter.subject, idempotent);
            self.observers[g].handle_unparked(letter.source_partition, letter.source_offset);
            self.emit(Event::Replayed {
                tick: self.now,
                group: g as u32,
                partition: record.partition,
                dlt_offset: record.offset,
                source_offset: letter.source_offset,
                record_id: letter.record_id,
                effect: replayed.effect,
                double_applied: replayed.double_applied,
            });
        }
    }
}
