//! Reading the simulation: views as plain data, composed from the parts.
//! Nothing here changes state.

use super::Sim;
use crate::bridge::{BridgePartitionView, BridgeRecordView};
use crate::broker::{Coordinator, GroupState, RecordState};
use crate::config::CommitMode;
use crate::config::ErrorPolicy;
use crate::input::ConsumerId;
use crate::letters::{LetterRecordView, LetterTopicId};
use crate::limits;
use crate::view::{
    ConsumerState, ConsumerStats, ConsumerView, ExpansionView, Finding, FindingKind, GroupView,
    InFlightRecord, LagSample, LedgerEntry, MemberView, Metrics, PartitionSplit, PartitionView,
    PollTimerView, ProducerView, RecordView, RestartPreview, SessionTimerView, SettingsView, ShareRecordView,
    SplitCheck, SplitStatus, View,
};
use crate::view::{LetterTopicView, ShareDeadLetterTopicView};

/// In-flight records a consumer card shows: the page draws the first few.
pub const IN_FLIGHT_SHOWN_MAX: usize = 32;

impl Sim {
    /// How many groups read the topic.
    #[must_use]
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The index of the group named `name`.
    #[must_use]
    pub fn group_named(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.config.name == name)
    }

    /// The `group.id` of group `g`.
    ///
    /// # Panics
    /// If `g` is not below [`Sim::group_count`].
    #[must_use]
    pub fn group_name(&self, g: usize) -> &str {
        &self.groups[g].config.name
    }

    pub(crate) fn coordinator(&self, g: usize) -> &Coordinator {
        &self.coordinators[g]
    }

    /// Group `g`'s config and its live settings.
    #[cfg(feature = "cluster")]
    pub(crate) fn topic_log(&self, partition: u32) -> Option<&crate::log::PartitionLog> {
        self.topic.log(partition)
    }

    pub(crate) fn evidence(&self) -> &crate::evidence::Evidence {
        &self.evidence
    }

    pub(crate) fn observer(&self, g: usize) -> &crate::observe::GroupObserver {
        &self.observers[g]
    }

    /// The group consumer `id` belongs to.
    pub(crate) fn group_of(&self, id: crate::input::ConsumerId) -> Option<usize> {
        self.consumers.iter().find(|c| c.id() == id).map(|c| c.group())
    }

    pub(crate) fn group_setup(
        &self,
        g: usize,
    ) -> (&crate::config::GroupConfig, crate::config::GroupSettings) {
        (&self.groups[g].config, self.groups[g].settings)
    }

    /// Group `g`'s committed offset for `partition` (`None` for none, or no such partition).
    #[must_use]
    pub fn committed_in(&self, g: usize, partition: u32) -> Option<u64> {
        self.offsets.get(g)?.get(partition)
    }

    /// Whether the broker knows group `g`: it has had members since it was
    /// created (or last deleted), or it has a committed offset. Before its
    /// first member joins, and after `offsets.retention` deleted it, it does
    /// not exist.
    #[must_use]
    pub fn group_exists(&self, g: usize) -> bool {
        self.coordinators.get(g).is_some_and(|c| c.has_history())
            || self.offsets.get(g).is_some_and(|o| o.any())
    }

    /// The first group's committed offset for `partition`.
    #[must_use]
    pub fn committed(&self, partition: u32) -> Option<u64> {
        self.committed_in(0, partition)
    }

    pub(crate) fn log_end(&self, partition: u32) -> u64 {
        self.topic.log_end(partition)
    }

    pub(crate) fn partition_count(&self) -> u32 {
        self.topic.partition_count()
    }

    /// The first group's counters.
    #[must_use]
    pub fn metrics(&self) -> Metrics {
        self.metrics_of(0)
    }

    /// Group `g`'s counters (the producer's are shared).
    ///
    /// # Panics
    /// If there is no group `g` (see [`Sim::group_count`]).
    #[must_use]
    pub fn metrics_of(&self, g: usize) -> Metrics {
        let app = self.apps[g].counters();
        let observer = self.observers[g].counters();
        Metrics {
            produced: self.producer.produced(),
            delivered: app.delivered,
            duplicates: app.duplicates,
            distinct_handled: app.distinct_handled,
            effects: app.effects,
            never_processed: observer.never_processed,
            lost_to_retention: observer.lost_to_retention,
            out_of_key_order: app.out_of_key_order,
            total_lag: (0..self.partition_count()).map(|p| self.lag_of(g, p)).sum(),
            peak_total_lag: observer.peak_total_lag,
            active_consumers: self.coordinators[g].active_members(),
            generation: self.coordinators[g].epoch(),
            commit_requests: observer.commit_requests,
            torn_checkpoints: observer.torn_checkpoints,
            bridged: observer.bridged,
            advancing_peeks: self.producer.advancing_peeks(),
            double_paid_cents: app.double_paid_cents,
            partition_ticks_stopped: observer.partition_ticks_stopped,
            static_rejoins: observer.static_rejoins,
            commit_failed: observer.commit_failed,
            members_left_poll_timeout: observer.members_left_poll_timeout,
            skipped_by_reset: observer.skipped_by_reset,
            archived: observer.archived,
            redelivered: observer.redelivered,
            failed: app.failed,
            acked_lost: self.delivery.as_ref().map_or(0, |d| d.counters.acked_lost),
            producer_duplicates: self.delivery.as_ref().map_or(0, |d| d.counters.producer_duplicates),
            producer_reordered: self.delivery.as_ref().map_or(0, |d| d.counters.producer_reordered),
            writes_refused: self.delivery.as_ref().map_or(0, |d| d.counters.writes_refused),
            duplicates_from_producer: app.duplicates_from_producer,
            out_of_key_order_from_producer: app.out_of_key_order_from_producer,
            downstream_delivered: self.eos.as_ref().map_or(0, |e| e.downstream.delivered),
            downstream_duplicates: self.eos.as_ref().map_or(0, |e| e.downstream.duplicates),
            aborted_seen: self.eos.as_ref().map_or(0, |e| e.counters.aborted_seen),
            fenced_writes: self.eos.as_ref().map_or(0, |e| e.counters.fenced_writes),
            skipped_by_handler: app.skipped_by_handler,
            dead_lettered: app.dead_lettered + self.letters.share_written(g),
            sent_to_retry: app.sent_to_retry,
            replayed: app.replayed,
            double_applied_on_replay: app.double_applied_on_replay,
            partial_effects: app.partial_effects,
            stuck_partition_ticks: observer.stuck_partition_ticks,
        }
    }

    /// Up to `count` records of `partition` from `from` (clamped to the log),
    /// with what the first group did to each.
    #[must_use]
    pub fn records(&self, partition: u32, from: u64, count: u32) -> Vec<RecordView> {
        self.records_of(0, partition, from, count)
    }

    /// Up to `count` records of `partition` from `from`, with what group `g` did to each.
    #[must_use]
    pub fn records_of(&self, g: usize, partition: u32, from: u64, count: u32) -> Vec<RecordView> {
        let (Some(log), Some(observer)) = (self.topic.log(partition), self.observers.get(g)) else {
            return Vec::new();
        };
        let share = self.share_partition(g, partition);
        log.present(from, from.saturating_add(u64::from(count)))
            .map(|offset| {
                let r = log.get(offset).expect("present");
                let mark = observer.mark(partition, offset).expect("marks stay aligned with the log");
                let share = share.and_then(|sp| sp.record(offset)).map(|(state, delivery_count)| {
                    let (state, holder, lock_until) = match state {
                        RecordState::Available => ("available", None, None),
                        RecordState::Acquired { member, until_tick } => {
                            ("acquired", Some(member), Some(until_tick))
                        }
                        RecordState::Acknowledged => ("acknowledged", None, None),
                        RecordState::Archived => ("archived", None, None),
                    };
                    ShareRecordView { state, holder, lock_until, delivery_count }
                });
                RecordView {
                    offset,
                    record_id: r.id,
                    subject: r.subject,
                    keyed: r.keyed,
                    produced_tick: r.produced_tick,
                    handled: mark.handled,
                    lost: mark.lost,
                    in_flight: mark.in_flight > 0,
                    poison: r.poison,
                    share,
                }
            })
            .collect()
    }

    /// Group `g`'s line on the tape for `partition`: its committed offset, or
    /// a share group's start offset (SPSO) once a member read the partition.
    fn committed_line(&self, g: usize, partition: u32) -> Option<u64> {
        match self.share_partition(g, partition) {
            Some(sp) => Some(sp.start_offset()),
            None => self.offsets[g].get(partition),
        }
    }

    fn settings_view(&self, g: usize) -> SettingsView {
        let group = &self.groups[g];
        let s = group.settings;
        SettingsView {
            records_per_poll: s.records_per_poll,
            handle_per_tick: s.handle_per_tick,
            commit: s.commit,
            idempotent: s.idempotent,
            session_timeout_ticks: group.config.session_timeout_ticks,
            max_poll_interval_ticks: group.config.max_poll_interval_ticks,
            auto_offset_reset: group.config.auto_offset_reset,
            initial_rebalance_delay_ticks: group.config.initial_rebalance_delay_ticks,
            offsets_retention_ticks: group.config.offsets_retention_ticks,
            metadata_max_age_ticks: group.config.metadata_max_age_ticks,
            retention_records: self.topic.retention_records(),
            position: s.position,
            assignor: s.assignor,
            bridge: group.config.bridge,
            error_policy: s.error_policy,
        }
    }

    fn group_view(&self, g: usize) -> GroupView {
        let partitions = self.partition_count();
        GroupView {
            name: self.groups[g].config.name.clone(),
            generation: self.coordinators[g].epoch(),
            state: self.coordinators[g].state().name().to_string(),
            settings: self.settings_view(g),
            metrics: self.metrics_of(g),
            committed: (0..partitions).map(|p| self.committed_line(g, p)).collect(),
            lag: (0..partitions).map(|p| self.held_position(g, p).1.map(|_| self.lag_of(g, p))).collect(),
            consumers: self.consumers.iter().filter(|c| c.group() == g).map(|c| c.id()).collect(),
            restart_pending: self.groups[g].pending_restart.is_some(),
            protocol: self.groups[g].config.protocol,
            group_epoch: self.coordinators[g].group_epoch(),
            target_epoch: self.coordinators[g].target_epoch(),
            remote_assignor: self.groups[g].config.remote_assignor,
            stuck: self.observers[g].stuck().to_vec(),
            handler_fixed: self.apps[g].fixed(),
            replay: self.letters.replay_positions(g),
        }
    }

    /// `orders.DLT` and the retry topics, when a group's policy writes to
    /// them or wrote to them before the policy changed.
    fn letter_topics(&self) -> Vec<LetterTopicView> {
        let dead_letters = self.letters.partitions(LetterTopicId::DeadLetter).iter().any(|p| p.log_end > 0)
            || self.groups.iter().any(|g| {
                matches!(
                    g.settings.error_policy,
                    ErrorPolicy::RetryThenDeadLetter { .. } | ErrorPolicy::RetryTopics { .. }
                )
            });
        let mut topics = Vec::new();
        if dead_letters {
            topics.push(LetterTopicId::DeadLetter);
        }
        topics.extend((1..=self.letters.levels()).map(|level| LetterTopicId::Retry { level }));
        topics
            .into_iter()
            .map(|topic| LetterTopicView {
                topic,
                name: topic.name(),
                partitions: self.letters.partitions(topic),
            })
            .collect()
    }

    /// The share groups' dead-letter topics the broker wrote to.
    fn share_dead_letter_topics(&self) -> Vec<ShareDeadLetterTopicView> {
        self.groups
            .iter()
            .enumerate()
            .filter_map(|(g, group)| {
                let name = group.config.dead_letter_topic.clone()?;
                let partitions = self.letters.share_partitions(g);
                (!partitions.is_empty()).then(|| ShareDeadLetterTopicView {
                    group: g as u32,
                    group_name: group.config.name.clone(),
                    name,
                    copy_record: group.config.dead_letter_copy_record,
                    partitions,
                })
            })
            .collect()
    }

    /// Up to `count` letters of a dead-letter or retry topic's `partition` from `from`.
    #[must_use]
    pub fn letter_records(
        &self,
        topic: LetterTopicId,
        partition: u32,
        from: u64,
        count: u32,
    ) -> Vec<LetterRecordView> {
        self.letters.records(topic, partition, from, count)
    }

    /// Share group `g`'s dead-letter topic's records (KIP-1191,
    /// `errors.deadletterqueue.topic.name`), partition by partition.
    #[must_use]
    pub fn share_dead_letters(&self, g: usize) -> Vec<crate::letters::ShareDeadLetterView> {
        self.letters.share_records(g)
    }

    /// Group `g`'s dead-letter replay job's committed offsets per `orders.DLT` partition, once started.
    #[must_use]
    pub fn replay_positions(&self, g: usize) -> Option<Vec<u64>> {
        self.letters.replay_positions(g)
    }

    fn consumer_view(&self, c: usize) -> ConsumerView {
        let consumer = &self.consumers[c];
        let shown = consumer.snapshot();
        let g = consumer.group();
        let coordinator = &self.coordinators[g];
        let member = shown.member_id.and_then(|id| coordinator.member(id));
        let ghost = coordinator.ghost_of(shown.id);
        let state = shown.state;
        ConsumerView {
            id: shown.id,
            group: self.groups[g].config.name.clone(),
            member_id: shown.member_id.map(str::to_owned),
            state,
            idle_spare: matches!(state, ConsumerState::Running | ConsumerState::Paused)
                && coordinator.state() == GroupState::Stable
                && member.is_some_and(|m| m.assignment.is_empty()),
            partitions: match state {
                ConsumerState::Crashed => ghost.map(|m| m.assignment.clone()).unwrap_or_default(),
                _ => shown.assigned.to_vec(),
            },
            // The card draws the first few; a batch may hold thousands.
            in_flight: shown
                .batch
                .iter()
                .take(IN_FLIGHT_SHOWN_MAX)
                .map(|f| InFlightRecord {
                    partition: f.partition,
                    offset: f.offset,
                    record_id: f.id,
                    subject: f.subject,
                })
                .collect(),
            in_flight_count: shown.batch.len() as u32,
            handled: shown.handled,
            step: shown.step,
            session_expires_at: ghost.and_then(|m| m.expires_at),
            session_timer: ghost.and_then(|m| m.expires_at).map(|at| SessionTimerView {
                left_ticks: at.saturating_sub(self.now),
                session_timeout_ticks: self.groups[g].config.session_timeout_ticks,
            }),
            auto_commit_in_ticks: match (self.groups[g].settings.commit, state) {
                (CommitMode::Auto { .. }, ConsumerState::Running | ConsumerState::Paused)
                    if self.groups[g].settings.group_commits() =>
                {
                    consumer.auto_commit_due().map(|due| due.saturating_sub(self.now))
                }
                _ => None,
            },
            crashed_at: shown.crashed_at,
            crashed_during: shown.crashed_during,
            resumed_from: indexed(shown.resumed_from),
            stored: indexed(shown.store),
            writing_checkpoint: shown.writing_checkpoint,
            instance_id: shown.instance_id.map(str::to_owned),
            reconciliation: (self.protocol(g) == crate::config::GroupProtocol::Consumer)
                .then_some(member)
                .flatten()
                .map(|m| MemberView {
                    member_epoch: m.member_epoch,
                    state: m.state.name(),
                    assignment: m.assignment.clone(),
                    revoking: m.pending_revocation.clone(),
                    target: m.target.clone(),
                }),
            transaction: self.txn_producer_view(shown.id),
            poll_timer: (self.protocol(g) != crate::config::GroupProtocol::Share
                && matches!(state, ConsumerState::Running | ConsumerState::Paused)
                && !shown.batch.is_empty()
                && consumer.out_of_group().is_none())
            .then(|| PollTimerView {
                since_poll_ticks: consumer.since_poll(self.now),
                max_poll_interval_ticks: self.groups[g].config.max_poll_interval_ticks,
            }),
            out_of_group: consumer.out_of_group().map(crate::client::OutOfGroup::name),
        }
    }

    /// The whole state as plain data.
    #[must_use]
    pub fn view(&self) -> View {
        let coordinator = &self.coordinators[0];
        let partitions = (0..self.partition_count())
            .map(|p| {
                let owner = coordinator.owner_of(p);
                let position = match self.share_partition(0, p) {
                    // A share group's cursor: the next record no member has acquired yet.
                    Some(sp) => Some(sp.end_offset()),
                    None => owner.and_then(|m| {
                        self.consumers
                            .iter()
                            .find(|c| c.member_id() == Some(m.member_id.as_str()))
                            .and_then(|c| c.position(p))
                    }),
                };
                let held = self.held_position(0, p).1;
                let log_end = self.log_end(p);
                PartitionView {
                    partition: p,
                    log_start: self.topic.log_start(p),
                    log_end,
                    committed: self.committed_line(0, p),
                    held,
                    oldest_unprocessed_age: self.oldest_unprocessed_age(0, p),
                    // To the high watermark, as the describe table and the counters measure it.
                    lag: held.map(|o| {
                        let hw = self.high_watermark(p);
                        hw - o.min(hw)
                    }),
                    owner: owner.map(|m| m.consumer),
                    owner_alive: owner.is_some_and(|m| m.expires_at.is_none()),
                    position,
                }
            })
            .collect();
        let groups: Vec<GroupView> = (0..self.groups.len()).map(|g| self.group_view(g)).collect();
        let first = &groups[0];
        View {
            tick: self.now,
            seed: self.config.seed,
            generation: first.generation,
            group_state: first.state.clone(),
            settings: first.settings.clone(),
            producer: ProducerView {
                use_keys: self.producer.settings().use_keys,
                key_count: self.producer.settings().key_count,
                hot_key_share_percent: self.producer.settings().hot_key_share_percent,
                send_per_tick: self.producer.settings().send_per_tick,
                next_keyless_partition: self.producer.next_keyless_partition(),
                last_peek: self.producer.last_peek(),
            },
            partitions,
            consumers: (0..self.consumers.len()).map(|c| self.consumer_view(c)).collect(),
            metrics: first.metrics.clone(),
            recent: self.apps[0].recent().iter().copied().collect(),
            restart_pending: first.restart_pending,
            last_rebalance: coordinator.last_rebalance().cloned(),
            bridge: self.groups.iter().any(|g| g.config.bridge).then(|| self.bridge.partitions()),
            letter_topics: self.letter_topics(),
            share_dead_letter_topics: self.share_dead_letter_topics(),
            last_expansion: self.last_expansion.clone(),
            rolling_update: self.rolling_view(0),
            events_dropped: self.events_dropped,
            groups,
        }
    }

    /// Where the next keyless record would go (a peek that moves nothing).
    #[must_use]
    pub fn next_keyless_partition(&self) -> u32 {
        self.producer.next_keyless_partition()
    }

    /// What restarting `partition` from `offset` would do in the first group:
    /// how many handled records it would deliver again, and how many unhandled
    /// ones it would skip. `None` for a partition that does not exist.
    #[must_use]
    pub fn restart_preview(&self, partition: u32, offset: u64) -> Option<RestartPreview> {
        let log = self.topic.log(partition)?;
        let observer = &self.observers[0];
        let target = offset.clamp(log.log_start, log.log_end());
        let current = self.offsets[0].get(partition).unwrap_or(log.log_start);
        let count = |range: std::ops::Range<u64>, handled: bool| {
            range.filter(|&o| observer.mark(partition, o).is_some_and(|m| (m.handled > 0) == handled)).count()
                as u64
        };
        Some(RestartPreview {
            offset: target,
            replay: count(log.present(target, current), true),
            skip: count(log.present(current, target), false),
        })
    }

    /// The split check on the first group now.
    #[must_use]
    pub fn split_check(&self) -> SplitCheck {
        self.split_check_of(0)
    }

    /// The split check on group `g` now. The never-processed lists come from
    /// what the observer keeps as records are handled or lost: no scan of
    /// the retained records.
    ///
    /// # Panics
    /// If there is no group `g`.
    #[must_use]
    pub fn split_check_of(&self, g: usize) -> SplitCheck {
        let batch = u64::from(self.groups[g].settings.records_per_poll);
        let observer = &self.observers[g];
        let partitions = (0..self.partition_count())
            .map(|p| {
                let written = self.log_end(p);
                let (holder, position) = self.held_position(g, p);
                let status = match holder {
                    None => SplitStatus::NoHolder,
                    Some(_) => {
                        let behind = written - position.unwrap_or(self.topic.log_start(p)).min(written);
                        match behind {
                            0 => SplitStatus::Equal,
                            b if b <= batch => SplitStatus::WithinOneBatch { behind: b },
                            b => SplitStatus::Behind { behind: b },
                        }
                    }
                };
                PartitionSplit { partition: p, written, holder, position, status }
            })
            .collect();
        let (kept, findings_dropped) = observer.findings();
        let mut findings: Vec<Finding> = kept.iter().cloned().collect();
        for p in 0..self.partition_count() {
            let (deleted_ids, deleted) = observer.retention_lost(p);
            let lost = observer.lost_offsets(p);
            let total = lost.len() as u64 + deleted;
            if total == 0 {
                continue;
            }
            let lost_ids = lost.iter().filter_map(|&o| self.topic.get(p, o).map(|r| r.id));
            let ids: Vec<u64> =
                deleted_ids.iter().copied().chain(lost_ids).take(limits::FINDING_IDS_MAX).collect();
            findings.push(Finding {
                tick: self.now,
                kind: FindingKind::NeverProcessed,
                partition: p,
                consumer: None,
                message: format!(
                    "P{p}: {total} record{} never reached a consumer{}",
                    if total == 1 { "" } else { "s" },
                    if *deleted > 0 {
                        format!(" ({deleted} deleted by retention unread)")
                    } else {
                        String::new()
                    }
                ),
                more: total - ids.len() as u64,
                record_ids: ids,
            });
        }
        let legal_replays = findings.iter().filter(|f| f.kind == FindingKind::LegalReplay).count() as u64;
        let violations = findings.len() as u64 - legal_replays;
        SplitCheck { partitions, findings, violations, legal_replays, findings_dropped }
    }

    /// The last [`crate::HISTORY_SAMPLES_MAX`] ticks of `partition`'s lag and age in the first group.
    #[must_use]
    pub fn lag_history(&self, partition: u32) -> Vec<LagSample> {
        self.observers[0].lag_history(partition).map(|h| h.iter().copied().collect()).unwrap_or_default()
    }

    /// Every account's ledger in the first group's application that saw a payout.
    #[must_use]
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        self.apps[0].ledger()
    }

    /// The bridge target topic's partitions (`None` when no application bridges).
    #[must_use]
    pub fn bridge_partitions(&self) -> Option<Vec<BridgePartitionView>> {
        self.groups.iter().any(|g| g.config.bridge).then(|| self.bridge.partitions())
    }

    /// Up to `count` records of the bridge target topic's `partition` from `from`.
    #[must_use]
    pub fn bridge_records(&self, partition: u32, from: u64, count: u32) -> Vec<BridgeRecordView> {
        self.bridge.records(partition, from, count)
    }

    /// What the last partition growth moved.
    #[must_use]
    pub fn last_expansion(&self) -> Option<&ExpansionView> {
        self.last_expansion.as_ref()
    }

    /// `/stats` (positions on the consumer): one entry per consumer and
    /// partition it owns, has stored, or has handled.
    #[must_use]
    pub fn stats(&self) -> Vec<ConsumerStats> {
        let mut out = Vec::new();
        for consumer in &self.consumers {
            let consumer = consumer.snapshot();
            for p in 0..self.partition_count() {
                let i = p as usize;
                let owned = consumer.assigned.contains(&p);
                if !owned && consumer.store[i].is_none() && consumer.handled_by_partition[i] == 0 {
                    continue;
                }
                out.push(ConsumerStats {
                    consumer: consumer.id,
                    partition: p,
                    position: if owned { consumer.positions[i] } else { None },
                    resumed_from: consumer.resumed_from[i],
                    handled: consumer.handled_by_partition[i],
                    stored: consumer.store[i],
                    last_checkpoint_tick: consumer
                        .last_checkpoint
                        .filter(|c| c.positions.iter().any(|&(q, _)| q == p))
                        .map(|c| c.tick),
                });
                assert!(
                    out.len()
                        <= limits::GROUPS_MAX
                            * limits::CONSUMERS_MAX as usize
                            * limits::PARTITIONS_MAX as usize
                );
            }
        }
        out
    }

    /// The consumers of group `g`, in card order.
    #[must_use]
    pub fn consumers_of(&self, g: usize) -> Vec<ConsumerId> {
        self.consumers.iter().filter(|c| c.group() == g).map(|c| c.id()).collect()
    }
}

/// `(index, value)` of the entries that are set.
fn indexed(values: &[Option<u64>]) -> Vec<(u32, u64)> {
    values.iter().enumerate().filter_map(|(i, v)| v.map(|v| (i as u32, v))).collect()
}
