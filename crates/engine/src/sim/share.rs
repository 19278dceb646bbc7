//! Routing for share groups (KIP-932): each member's heartbeats to its
//! coordinator, its `poll()` acquiring records at the share-partitions, its
//! acknowledgements riding on the next poll, the locks that run out, and the
//! records the broker gives back when a member leaves or its process dies.
//!
//! The share consumer (`KafkaShareConsumer`) has no `pause()`: `Pause` here
//! is the application stalling on its batch (a slow call, a long GC), so it
//! handles nothing, holds its records and keeps heartbeating; their locks run
//! out and others get them. A crash closes the process's connections, and
//! the broker gives its records back at once (Kafka's disconnect listener);
//! the member stays in the group until its session runs out.

use super::Sim;
use crate::broker::share_partition::{GivenBack, ShareLimits};
use crate::broker::{AcknowledgeType, SharePartition};
use crate::client::Fetched;
use crate::config::{AcknowledgementMode, ShareAutoOffsetReset};
use crate::event::{Acknowledged, Event, RebalanceReason};
use crate::input::ConsumerId;
use crate::letters::{CopiedRecord, ShareDeadLetter, ShareDlqCause};
use crate::view::ConsumerState;

impl Sim {
    /// Share group `g`'s share-partition of `partition`, once a member has read it.
    pub(crate) fn share_partition(&self, g: usize, partition: u32) -> Option<&SharePartition> {
        self.shares.get(g)?.get(partition as usize)?.as_ref()
    }

    /// Where share group `g` stands on `partition`: the share-partition's
    /// start offset, or, before any member read it, where one would start
    /// (`latest`: the log end; `earliest`: `None`, from the log start).
    pub(crate) fn share_start(&self, g: usize, partition: u32) -> Option<u64> {
        match self.share_partition(g, partition) {
            Some(sp) => Some(sp.start_offset()),
            None => match self.groups[g].config.share_auto_offset_reset {
                ShareAutoOffsetReset::Latest => Some(self.topic.log_end(partition)),
                ShareAutoOffsetReset::Earliest => None,
            },
        }
    }

    pub(super) fn share_limits(&self, g: usize) -> ShareLimits {
        let config = &self.groups[g].config;
        ShareLimits {
            lock_duration_ticks: config.lock_duration_ticks,
            delivery_count_limit: config.delivery_count_limit,
            max_record_locks: config.max_record_locks,
        }
    }

    /// The first `ShareGroupHeartbeat` (member epoch 0).
    pub(super) fn join_share_group(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let (member_id, id, host, _) = self.join_request(c);
        let (partitions, now) = (self.topic.partition_count(), self.now);
        let reply = self.with_coordinator(g, RebalanceReason::MemberJoined, |co| {
            co.handle_share_join(member_id, id, host, partitions, now)
        });
        let interval = self.groups[g].config.heartbeat_interval_ticks;
        self.consumers[c].handle_join_answer(self.now, reply.member_epoch, reply.assignment, interval);
    }

    /// A heartbeat when one is due; the assignment it brings is taken at
    /// once (nothing to revoke: partitions are shared).
    fn share_heartbeat_if_due(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let interval = self.groups[g].config.heartbeat_interval_ticks;
        if !self.consumers[c].poll_heartbeat_due(self.now, interval) {
            return;
        }
        let consumer = &self.consumers[c];
        let member_id = consumer.member_id().expect("a live member heartbeats").to_owned();
        let (partitions, now) = (self.topic.partition_count(), self.now);
        let reply = self.with_coordinator(g, RebalanceReason::MemberJoined, |co| {
            co.handle_share_heartbeat(&member_id, partitions, now)
        });
        match reply {
            Some(reply) => self.consumers[c].handle_heartbeat_answer(reply.member_epoch, reply.assignment),
            None => {
                // Its session ran out (UNKNOWN_MEMBER_ID): join again.
                let id = self.consumers[c].id();
                self.emit(Event::Fenced {
                    tick: self.now,
                    consumer: id,
                    member_id,
                    error: "UNKNOWN_MEMBER_ID",
                });
                self.join_share_group(c);
            }
        }
    }

    /// One tick of a share consumer's loop.
    pub(super) fn step_share_consumer(&mut self, c: usize) {
        match self.consumers[c].state() {
            ConsumerState::Crashed | ConsumerState::Stopped => {}
            ConsumerState::Running | ConsumerState::Paused => {
                self.share_heartbeat_if_due(c);
                if let Some(assignment) = self.consumers[c].poll_pending_assignment() {
                    self.consumers[c].apply_assignment(assignment, &[]);
                }
                if self.consumers[c].state() == ConsumerState::Paused {
                    // Stalled: it holds its records and handles nothing.
                    self.consumers[c].handle_batch_pending();
                    return;
                }
                if self.consumers[c].batch_is_empty() && !self.share_poll(c) {
                    return; // killed at the acknowledgement point
                }
                self.share_handle_some(c);
            }
            ConsumerState::Stopping { deadline, .. } => {
                self.share_heartbeat_if_due(c);
                self.share_handle_some(c);
                if self.consumers[c].batch_is_empty() {
                    // close() after commitSync(): the acknowledgements go now.
                    if self.send_share_acks(c).is_none() {
                        return;
                    }
                    self.share_leave(c);
                } else if self.now >= deadline {
                    let abandoned = self.abandon_batch(c);
                    let consumer = self.consumers[c].id();
                    self.emit(Event::ShutdownDeadlinePassed { tick: self.now, consumer, abandoned });
                    if self.send_share_acks(c).is_some() {
                        self.share_leave(c);
                    }
                }
            }
        }
    }

    /// `poll()`: the acknowledgements so far ride on the fetch, then records
    /// are acquired from the assigned partitions in turn, up to
    /// `records_per_poll` in all (`max.poll.records`, shared across the
    /// request's partitions). Returns false if the consumer died at the
    /// acknowledgement point (an armed kill).
    fn share_poll(&mut self, c: usize) -> bool {
        let Some(released) = self.send_share_acks(c) else {
            return false;
        };
        let g = self.consumers[c].group();
        let now = self.now;
        let id = self.consumers[c].id();
        let mut remaining = self.groups[g].settings.records_per_poll;
        let order = self.consumers[c].share_fetch_order();
        let mut fetched_any = false;
        for p in order {
            if remaining == 0 {
                break;
            }
            let (log_start, log_end) = (self.topic.log_start(p), self.topic.log_end(p));
            if self.shares[g][p as usize].is_none() {
                // The share-partition's first read: share.auto.offset.reset.
                let start = match self.groups[g].config.share_auto_offset_reset {
                    ShareAutoOffsetReset::Latest => log_end,
                    ShareAutoOffsetReset::Earliest => log_start,
                };
                self.shares[g][p as usize] = Some(SharePartition::new(self.share_limits(g), start));
            }
            let sp = self.shares[g][p as usize].as_mut().expect("just made");
            let in_transition: Vec<u64> = released.iter().filter(|r| r.0 == p).map(|r| r.1).collect();
            let acquired = sp.acquire(id, remaining, log_end, now, &in_transition);
            if acquired.is_empty() {
                continue;
            }
            fetched_any = true;
            remaining -= acquired.len() as u32;
            let mut records = Vec::with_capacity(acquired.len());
            for a in &acquired {
                let r = *self.topic.get(p, a.offset).expect("acquired records are retained");
                self.observers[g].handle_fetched(p, a.offset, a.offset + 1, true);
                if a.delivery_count > 1 {
                    self.observers[g].handle_redelivered();
                }
                self.consumers[c].handle_fetched([Fetched {
                    partition: p,
                    offset: a.offset,
                    id: r.id,
                    subject: r.subject,
                    keyed: r.keyed,
                    produced_tick: r.produced_tick,
                    poison: r.poison,
                    failing: r.failing,
                    delivery_count: a.delivery_count,
                    producer_copy: false,
                    producer_reordered: false,
                }]);
                records.push((a.offset, a.delivery_count));
            }
            if self.groups[g].config.acknowledgement_mode == AcknowledgementMode::Implicit {
                self.consumers[c].handle_share_polled(acquired.iter().map(|a| (p, a.offset)));
            }
            self.emit(Event::Acquired { tick: now, consumer: id, partition: p, records });
        }
        self.consumers[c].handle_poll_returned(fetched_any);
        true
    }

    /// Handles up to `handle_per_tick` records. In explicit mode the
    /// application acknowledges each: accept when handled, release when the
    /// handler failed. In implicit mode it acknowledges nothing itself.
    fn share_handle_some(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let explicit = self.groups[g].config.acknowledgement_mode == AcknowledgementMode::Explicit;
        let mut runs = crate::evidence::Runs::default();
        for _ in 0..self.groups[g].settings.handle_per_tick {
            let Some(fetched) = self.consumers[c].poll_record() else { break };
            let kind = if self.apps[g].fails(&fetched) {
                self.fail_record(c, &fetched);
                AcknowledgeType::Release
            } else {
                self.handle_record(c, &fetched, &mut runs);
                AcknowledgeType::Accept
            };
            if explicit {
                self.consumers[c].handle_acknowledged(fetched.partition, fetched.offset, kind);
            }
        }
        if let Some(over) = runs.finish() {
            let consumer = self.consumers[c].id();
            self.evidence.handle_run(g, consumer, over, self.now);
        }
        self.consumers[c].handle_share_tick_handled();
    }

    /// The handler failed on `fetched` (a poison record): nothing took effect.
    pub(super) fn fail_record(&mut self, c: usize, fetched: &Fetched) {
        let g = self.consumers[c].group();
        self.observers[g].handle_failed(fetched);
        let consumer = self.consumers[c].id();
        self.record_failure(g, consumer, fetched);
    }

    /// Sends what the consumer has to acknowledge: in implicit mode, accept
    /// for everything the last poll returned; in explicit mode, what the
    /// application acknowledged. Returns the records it released (still in
    /// transition for the rest of the request), or `None` if an armed kill
    /// fired here.
    fn send_share_acks(&mut self, c: usize) -> Option<Vec<(u32, u64)>> {
        let acks = self.consumers[c].poll_acknowledgements();
        let mut released = Vec::new();
        if acks.is_empty() {
            return Some(released);
        }
        if self.fault_at_commit(c) {
            return None;
        }
        let g = self.consumers[c].group();
        let id = self.consumers[c].id();
        let now = self.now;
        // One event per partition and kind, in the order acknowledged.
        let mut i = 0;
        while i < acks.len() {
            let (p, _, kind) = acks[i];
            let run = acks[i..].iter().take_while(|a| a.0 == p && a.2 == kind).count();
            let mut offsets = Vec::with_capacity(run);
            let mut archived = Vec::new();
            for &(_, offset, _) in &acks[i..i + run] {
                let sp =
                    self.shares[g][p as usize].as_mut().expect("acknowledged records were acquired here");
                let delivery_count = sp.record(offset).map_or(0, |(_, count)| count);
                match sp.acknowledge(id, offset, kind, now) {
                    Ok(was_archived) => {
                        offsets.push(offset);
                        if kind == AcknowledgeType::Release && !was_archived {
                            released.push((p, offset));
                        }
                        if was_archived {
                            archived.push(offset);
                            let cause = if kind == AcknowledgeType::Reject {
                                ShareDlqCause::Rejected
                            } else {
                                ShareDlqCause::DeliveryCountExceeded
                            };
                            self.share_dead_letter(g, p, offset, delivery_count, cause);
                        }
                        if was_archived || kind == AcknowledgeType::Accept {
                            // Accepted after a failure (implicit mode), or archived.
                            self.observers[g].handle_done_unhandled(p, offset);
                        }
                    }
                    Err(_) => {
                        self.emit(Event::AcknowledgeRefused {
                            tick: now,
                            consumer: id,
                            partition: p,
                            offset,
                        });
                    }
                }
            }
            self.observers[g].handle_archived(archived.len() as u64);
            if !offsets.is_empty() {
                self.emit(Event::Acknowledged(Box::new(Acknowledged {
                    tick: now,
                    consumer: id,
                    partition: p,
                    kind: ack_name(kind),
                    offsets,
                    archived,
                })));
            }
            i += run;
        }
        self.observers[g].handle_commit_request();
        Some(released)
    }

    /// `close()`: the leave heartbeat (epoch -1), and the broker gives back
    /// whatever the member still holds.
    fn share_leave(&mut self, c: usize) {
        let g = self.consumers[c].group();
        let id = self.consumers[c].id();
        self.release_share_member(g, id);
        let member_id = self.consumers[c].handle_leave();
        self.emit(Event::Left { tick: self.now, consumer: id, member_id: member_id.clone() });
        self.with_coordinator(g, RebalanceReason::MemberLeft, |co| co.handle_share_leave(&member_id));
    }

    /// The broker gives back every record `consumer` holds in share group `g`
    /// (it left, or its connection closed with its process).
    pub(super) fn release_share_member(&mut self, g: usize, consumer: ConsumerId) {
        for p in 0..self.shares[g].len() {
            let Some(sp) = self.shares[g][p].as_mut() else { continue };
            let back = sp.release_member(consumer);
            if back.is_empty() {
                continue;
            }
            let (offsets, archived) = self.note_given_back(g, p as u32, &back);
            let archived = archived.into_boxed_slice();
            self.emit(Event::Released { tick: self.now, consumer, partition: p as u32, offsets, archived });
        }
    }

    /// Every share group's locks that ran out this tick.
    pub(super) fn expire_share_locks(&mut self, g: usize) {
        for p in 0..self.shares[g].len() {
            let Some(sp) = self.shares[g][p].as_mut() else { continue };
            let back = sp.expire_locks(self.now);
            self.note_given_back(g, p as u32, &back);
            for b in back {
                self.emit(Event::LockExpired {
                    tick: self.now,
                    consumer: b.member,
                    partition: p as u32,
                    offset: b.offset,
                    archived: b.archived,
                });
            }
        }
    }

    fn note_given_back(&mut self, g: usize, partition: u32, back: &[GivenBack]) -> (Vec<u64>, Vec<u64>) {
        let mut archived = Vec::new();
        for b in back.iter().filter(|b| b.archived) {
            archived.push(b.offset);
            // Archived as given back: its delivery count had reached the limit.
            let delivery_count = self.groups[g].config.delivery_count_limit;
            self.share_dead_letter(
                g,
                partition,
                b.offset,
                delivery_count,
                ShareDlqCause::DeliveryCountExceeded,
            );
            self.observers[g].handle_archived(1);
            self.observers[g].handle_done_unhandled(partition, b.offset);
        }
        (back.iter().map(|b| b.offset).collect(), archived)
    }

    /// KIP-1191: a share group with a dead-letter topic has the broker write
    /// each record it archives there (as the record leaves `ARCHIVING` for
    /// `ARCHIVED`; here in the same tick), with the original's key and value
    /// only when the group copies records.
    fn share_dead_letter(
        &mut self,
        g: usize,
        partition: u32,
        offset: u64,
        delivery_count: u8,
        cause: ShareDlqCause,
    ) {
        let config = &self.groups[g].config;
        if config.dead_letter_topic.is_none() {
            return;
        }
        let copied = if config.dead_letter_copy_record {
            self.topic.get(partition, offset).map(|r| CopiedRecord {
                record_id: r.id,
                subject: r.subject,
                keyed: r.keyed,
            })
        } else {
            None
        };
        let letter = ShareDeadLetter {
            group: g as u32,
            source_partition: partition,
            source_offset: offset,
            delivery_count,
            cause,
            copied,
            written_tick: self.now,
        };
        self.letters.handle_share_write(g, letter);
    }

    /// Retention moved `partition`'s log start: every share group's window follows.
    pub(super) fn share_log_start_moved(&mut self, partition: u32, log_start: u64) {
        for shares in &mut self.shares {
            if let Some(Some(sp)) = shares.get_mut(partition as usize) {
                sp.handle_log_start(log_start);
            }
        }
    }
}

fn ack_name(kind: AcknowledgeType) -> &'static str {
    match kind {
        AcknowledgeType::Accept => "accept",
        AcknowledgeType::Release => "release",
        AcknowledgeType::Reject => "reject",
        AcknowledgeType::Renew => "renew",
    }
}
