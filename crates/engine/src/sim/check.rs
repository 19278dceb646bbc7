//! booblik's split check, live: every record reaches a consumer, and each
//! partition's written records equal the position its consumer holds.
//! Resuming up to one batch behind the last known position is legal under
//! at-least-once; resuming further back, or never processing a record, is a
//! violation, listed with record ids.

use super::Sim;
use crate::config::{PositionModel, limits};
use crate::event::Tick;
use crate::input::ConsumerId;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// Resumed within one batch of the last known position: at-least-once replay.
    LegalReplay,
    /// Resumed more than one batch behind the last known position.
    ResumedTooFarBack,
    /// Records no consumer handled that the group has moved past (or retention deleted).
    NeverProcessed,
}

/// One thing the check saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub tick: Tick,
    pub kind: FindingKind,
    pub partition: u32,
    pub consumer: Option<ConsumerId>,
    pub message: String,
    /// The records concerned (at most [`limits::FINDING_IDS_MAX`]).
    pub record_ids: Vec<u64>,
    /// How many more records than listed.
    pub more: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum SplitStatus {
    /// The position held equals the records written.
    Equal,
    /// Behind by at most one batch: work in flight.
    WithinOneBatch { behind: u64 },
    /// Behind by more than a batch: the consumer is lagging.
    Behind { behind: u64 },
    /// Nobody holds the partition.
    NoHolder,
}

/// One partition's line of the check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionSplit {
    pub partition: u32,
    /// Records written to the partition (its log end).
    pub written: u64,
    pub holder: Option<ConsumerId>,
    /// The position held for it: the group's committed offset (Kafka) or the
    /// holder's stored checkpoint (booblik).
    pub position: Option<u64>,
    pub status: SplitStatus,
}

/// The whole check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SplitCheck {
    pub partitions: Vec<PartitionSplit>,
    /// Legal replays and violations, oldest first, then never-processed records.
    pub findings: Vec<Finding>,
    pub violations: u64,
    pub legal_replays: u64,
    /// Findings dropped past the bound.
    pub findings_dropped: u64,
}

impl SplitCheck {
    #[must_use]
    pub fn passed(&self) -> bool {
        self.violations == 0
    }
}

impl Sim {
    pub(super) fn judge_resume(&mut self, consumer: ConsumerId, partition: u32, start: u64, last_known: u64) {
        if start >= last_known {
            return;
        }
        let gap = last_known - start;
        let batch = u64::from(self.config.records_per_poll);
        let log = &self.partitions[partition as usize];
        let range = log.present(start, last_known);
        let replayed: Vec<u64> = range
            .filter_map(|o| log.get(o).filter(|r| r.handled > 0).map(|r| r.id))
            .take(limits::FINDING_IDS_MAX)
            .collect();
        let (kind, message) = if gap <= batch {
            (
                FindingKind::LegalReplay,
                format!(
                    "{consumer} resumed P{partition} from {start}, {gap} behind the last known position {last_known}: within one batch ({batch}), legal under at-least-once"
                ),
            )
        } else {
            (
                FindingKind::ResumedTooFarBack,
                format!(
                    "{consumer} resumed P{partition} from {start}, {gap} behind the last known position {last_known}: more than one batch ({batch})"
                ),
            )
        };
        let more = gap.saturating_sub(replayed.len() as u64);
        self.push_finding(Finding {
            tick: self.now,
            kind,
            partition,
            consumer: Some(consumer),
            message,
            record_ids: replayed,
            more,
        });
    }

    fn push_finding(&mut self, finding: Finding) {
        if self.findings.len() == limits::FINDINGS_MAX {
            self.findings.pop_front();
            self.findings_dropped += 1;
        }
        self.findings.push_back(finding);
    }

    /// The position held for `partition` and by whom: the group's committed
    /// offset (Kafka), or the owner's stored checkpoint (booblik).
    pub(crate) fn held_position(&self, partition: u32) -> (Option<ConsumerId>, Option<u64>) {
        let holder = self.owners[partition as usize];
        let position = match self.config.position {
            PositionModel::Group => self.committed[partition as usize],
            PositionModel::Consumer { .. } => holder
                .and_then(|id| self.consumers.iter().find(|c| c.id == id))
                .and_then(|c| c.store[partition as usize]),
        };
        (holder, position)
    }

    /// Runs the check now (scans the retained records for never-processed ones).
    #[must_use]
    pub fn split_check(&self) -> SplitCheck {
        let batch = u64::from(self.config.records_per_poll);
        let partitions = (0..self.partition_count())
            .map(|p| {
                let written = self.log_end(p);
                let (holder, position) = self.held_position(p);
                let status = match (holder, position) {
                    (None, _) => SplitStatus::NoHolder,
                    (Some(_), position) => {
                        let behind =
                            written - position.unwrap_or(self.partitions[p as usize].log_start).min(written);
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
        let mut findings: Vec<Finding> = self.findings.iter().cloned().collect();
        for (p, log) in self.partitions.iter().enumerate() {
            let (deleted_ids, deleted) = &self.retention_lost[p];
            let lost_present: Vec<u64> = log.records.iter().filter(|r| r.lost).map(|r| r.id).collect();
            let total = lost_present.len() as u64 + deleted;
            if total == 0 {
                continue;
            }
            let mut ids: Vec<u64> = deleted_ids.iter().chain(&lost_present).copied().collect();
            ids.truncate(limits::FINDING_IDS_MAX);
            findings.push(Finding {
                tick: self.now,
                kind: FindingKind::NeverProcessed,
                partition: p as u32,
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
        SplitCheck {
            partitions,
            findings,
            violations,
            legal_replays,
            findings_dropped: self.findings_dropped,
        }
    }
}
