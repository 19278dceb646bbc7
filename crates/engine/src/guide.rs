//! Guided experiments: what a built-in scenario tells the learner, what to do,
//! and the outcome check that says when they reproduced it.
//!
//! A scenario's timeline holds the whole scripted run. Inputs marked
//! `learner` are the ones the learner is asked to do by hand: a guided run
//! ([`crate::Scenario::guided`]) leaves them out, and the outcome check watches
//! for the effect they cause. "Show me" runs the full timeline instead.

use crate::sim::Sim;
use crate::view::Metrics;
use crate::view::SplitCheck;
use serde::{Deserialize, Serialize};

/// The topics the experiments are grouped under, in the order the page lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topic {
    KeysAndOrder,
    DeliveryGuarantees,
    Rebalances,
    OffsetStorage,
    Operations,
    /// Kafka 4's consumer protocol and static membership.
    Kafka4Groups,
    /// What gets written: the producer's acks, retries and idempotence, and
    /// the replicas' elections.
    Written,
    /// Transactions: exactly once inside Kafka, and where it stops.
    ExactlyOnce,
    /// The client's and the coordinator's timers: when Kafka gives up on a consumer.
    Clocks,
}

impl Topic {
    pub const ALL: [Topic; 9] = [
        Topic::KeysAndOrder,
        Topic::DeliveryGuarantees,
        Topic::Rebalances,
        Topic::OffsetStorage,
        Topic::Operations,
        Topic::Kafka4Groups,
        Topic::Written,
        Topic::ExactlyOnce,
        Topic::Clocks,
    ];

    /// The heading the page shows.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Topic::KeysAndOrder => "Keys and order",
            Topic::DeliveryGuarantees => "Delivery guarantees",
            Topic::Rebalances => "Rebalances",
            Topic::OffsetStorage => "Offset storage",
            Topic::Operations => "Operations",
            Topic::Kafka4Groups => "Kafka 4's groups",
            Topic::Written => "What gets written",
            Topic::ExactlyOnce => "Exactly once, and where it stops",
            Topic::Clocks => "Clocks: when Kafka gives up on a consumer",
        }
    }
}

/// A number the outcome check reads: a [`Metrics`] field, or one derived from the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Produced,
    Delivered,
    Duplicates,
    DistinctHandled,
    Effects,
    /// Effects beyond the first per record: what idempotence prevents.
    DuplicateEffects,
    NeverProcessed,
    LostToRetention,
    OutOfKeyOrder,
    TotalLag,
    /// Live members that own at least one partition.
    ActiveConsumers,
    Generation,
    CommitRequests,
    TornCheckpoints,
    Bridged,
    AdvancingPeeks,
    DoublePaidCents,
    PartitionTicksStopped,
    /// The highest total lag sampled so far.
    PeakTotalLag,
    /// booblik's split check: replays beyond one batch (and skips).
    SplitViolations,
    /// booblik's split check: resumes within one batch of the last known position.
    LegalReplays,
    /// Static members that came back and took their own place, with no rebalance.
    StaticRejoins,
    /// Commits that failed with `CommitFailedException`: the member had left its group.
    CommitFailed,
    /// Members whose client left the group when their poll timer ran out.
    MembersLeftPollTimeout,
    /// Records an `auto.offset.reset` started the group past, unhandled.
    SkippedByReset,
    /// Share group: records archived (delivered up to the limit, or rejected).
    Archived,
    /// Share group: acquisitions of a record delivered before.
    Redelivered,
    /// Deliveries the handler failed on.
    Failed,
    /// Acknowledged records an election cut off the log.
    AckedLost,
    /// Records the producer wrote twice.
    ProducerDuplicates,
    /// Records the producer wrote after a later-sent one.
    ProducerReordered,
    /// Produce requests refused with NOT_ENOUGH_REPLICAS.
    WritesRefused,
    /// Results the downstream consumer of payouts received.
    DownstreamDelivered,
    /// Results the downstream consumer received twice.
    DownstreamDuplicates,
    /// Aborted results the downstream consumer received.
    AbortedSeen,
    /// Writes of a fenced producer the brokers refused.
    FencedWrites,
    /// Failed records the error policy skipped (`skip`): never processed.
    SkippedByHandler,
    /// Failed records written to the dead-letter topic.
    DeadLettered,
    /// Failed records written to a retry topic.
    SentToRetry,
    /// Dead letters the replay job applied under their effect key.
    Replayed,
    /// Replayed records whose effect a failed attempt had made already, made again.
    DoubleAppliedOnReplay,
    /// Payouts made by attempts that then failed.
    PartialEffects,
    /// Partition-ticks a handler retried a record in place: no progress, records waiting.
    StuckPartitionTicks,
}

impl Metric {
    /// Every metric, in declaration order.
    pub const ALL: [Metric; 43] = [
        Metric::Produced,
        Metric::Delivered,
        Metric::Duplicates,
        Metric::DistinctHandled,
        Metric::Effects,
        Metric::DuplicateEffects,
        Metric::NeverProcessed,
        Metric::LostToRetention,
        Metric::OutOfKeyOrder,
        Metric::TotalLag,
        Metric::ActiveConsumers,
        Metric::Generation,
        Metric::CommitRequests,
        Metric::TornCheckpoints,
        Metric::Bridged,
        Metric::AdvancingPeeks,
        Metric::DoublePaidCents,
        Metric::PartitionTicksStopped,
        Metric::PeakTotalLag,
        Metric::SplitViolations,
        Metric::LegalReplays,
        Metric::StaticRejoins,
        Metric::CommitFailed,
        Metric::MembersLeftPollTimeout,
        Metric::SkippedByReset,
        Metric::Archived,
        Metric::Redelivered,
        Metric::Failed,
        Metric::AckedLost,
        Metric::ProducerDuplicates,
        Metric::ProducerReordered,
        Metric::WritesRefused,
        Metric::DownstreamDelivered,
        Metric::DownstreamDuplicates,
        Metric::AbortedSeen,
        Metric::FencedWrites,
        Metric::SkippedByHandler,
        Metric::DeadLettered,
        Metric::SentToRetry,
        Metric::Replayed,
        Metric::DoubleAppliedOnReplay,
        Metric::PartialEffects,
        Metric::StuckPartitionTicks,
    ];

    /// Its name in scenario JSON (`never_processed`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Metric::Produced => "produced",
            Metric::Delivered => "delivered",
            Metric::Duplicates => "duplicates",
            Metric::DistinctHandled => "distinct_handled",
            Metric::Effects => "effects",
            Metric::DuplicateEffects => "duplicate_effects",
            Metric::NeverProcessed => "never_processed",
            Metric::LostToRetention => "lost_to_retention",
            Metric::OutOfKeyOrder => "out_of_key_order",
            Metric::TotalLag => "total_lag",
            Metric::ActiveConsumers => "active_consumers",
            Metric::Generation => "generation",
            Metric::CommitRequests => "commit_requests",
            Metric::TornCheckpoints => "torn_checkpoints",
            Metric::Bridged => "bridged",
            Metric::AdvancingPeeks => "advancing_peeks",
            Metric::DoublePaidCents => "double_paid_cents",
            Metric::PartitionTicksStopped => "partition_ticks_stopped",
            Metric::PeakTotalLag => "peak_total_lag",
            Metric::SplitViolations => "split_violations",
            Metric::LegalReplays => "legal_replays",
            Metric::StaticRejoins => "static_rejoins",
            Metric::CommitFailed => "commit_failed",
            Metric::MembersLeftPollTimeout => "members_left_poll_timeout",
            Metric::SkippedByReset => "skipped_by_reset",
            Metric::Archived => "archived",
            Metric::Redelivered => "redelivered",
            Metric::Failed => "failed",
            Metric::AckedLost => "acked_lost",
            Metric::ProducerDuplicates => "producer_duplicates",
            Metric::ProducerReordered => "producer_reordered",
            Metric::WritesRefused => "writes_refused",
            Metric::DownstreamDelivered => "downstream_delivered",
            Metric::DownstreamDuplicates => "downstream_duplicates",
            Metric::AbortedSeen => "aborted_seen",
            Metric::FencedWrites => "fenced_writes",
            Metric::SkippedByHandler => "skipped_by_handler",
            Metric::DeadLettered => "dead_lettered",
            Metric::SentToRetry => "sent_to_retry",
            Metric::Replayed => "replayed",
            Metric::DoubleAppliedOnReplay => "double_applied_on_replay",
            Metric::PartialEffects => "partial_effects",
            Metric::StuckPartitionTicks => "stuck_partition_ticks",
        }
    }

    /// Its label as the page's counters show it (and the CLI's outcome line):
    /// one name for a number wherever it appears.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Metric::Produced => "Sent",
            Metric::Delivered => "Delivered",
            Metric::Duplicates => "Duplicates",
            Metric::DistinctHandled => "Records handled",
            Metric::Effects => "Effects",
            Metric::DuplicateEffects => "Repeated effects",
            Metric::NeverProcessed => "Never processed",
            Metric::LostToRetention => "Lost to retention",
            Metric::OutOfKeyOrder => "Out of key order",
            Metric::TotalLag => "Total lag",
            Metric::ActiveConsumers => "Active consumers",
            Metric::Generation => "Generation",
            Metric::CommitRequests => "Commit requests",
            Metric::TornCheckpoints => "Torn checkpoints",
            Metric::Bridged => "Records bridged",
            Metric::AdvancingPeeks => "Peeks that moved the counter",
            Metric::DoublePaidCents => "Cents paid twice",
            Metric::PartitionTicksStopped => "Partition-ticks stopped",
            Metric::PeakTotalLag => "Peak total lag",
            Metric::SplitViolations => "Split check violations",
            Metric::LegalReplays => "Legal replays",
            Metric::StaticRejoins => "Static rejoins",
            Metric::CommitFailed => "Commits failed",
            Metric::MembersLeftPollTimeout => "Left on poll timeout",
            Metric::SkippedByReset => "Skipped by offset reset",
            Metric::Archived => "Archived",
            Metric::Redelivered => "Redelivered",
            Metric::Failed => "Handler failures",
            Metric::AckedLost => "Acknowledged then lost",
            Metric::ProducerDuplicates => "Written twice by the producer",
            Metric::ProducerReordered => "Reordered by the producer",
            Metric::WritesRefused => "Writes refused (NotEnoughReplicas)",
            Metric::DownstreamDelivered => "Results the reader received",
            Metric::DownstreamDuplicates => "Results the reader received twice",
            Metric::AbortedSeen => "Aborted results read",
            Metric::FencedWrites => "Fenced writes refused",
            Metric::SkippedByHandler => "Skipped by the handler",
            Metric::DeadLettered => "Dead-lettered",
            Metric::SentToRetry => "Sent to a retry topic",
            Metric::Replayed => "Replayed from the DLT",
            Metric::DoubleAppliedOnReplay => "Applied twice on replay",
            Metric::PartialEffects => "Effects of failed attempts",
            Metric::StuckPartitionTicks => "Stuck partition-ticks",
        }
    }

    /// Its name in scenario JSON, read back: `None` for a name no metric has.
    #[must_use]
    pub fn named(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Its value in group `g` of `sim` now (the producer's counters are the
    /// topic's: the same in every group).
    ///
    /// # Panics
    /// If there is no group `g` (see [`Sim::group_count`]).
    #[must_use]
    pub fn of(self, sim: &Sim, g: usize) -> u64 {
        let metrics = sim.metrics_of(g);
        match self {
            // Only these read the split check: the page evaluates every frame, so the
            // others skip building it.
            Metric::SplitViolations | Metric::LegalReplays => self.value(&metrics, &sim.split_check_of(g)),
            metric => metric.value(&metrics, &SplitCheck::default()),
        }
    }

    /// Its value now.
    #[must_use]
    pub fn value(self, metrics: &Metrics, split: &SplitCheck) -> u64 {
        let m = metrics;
        match self {
            Metric::Produced => m.produced,
            Metric::Delivered => m.delivered,
            Metric::Duplicates => m.duplicates,
            Metric::DistinctHandled => m.distinct_handled,
            Metric::Effects => m.effects,
            Metric::DuplicateEffects => m.effects.saturating_sub(m.distinct_handled),
            Metric::NeverProcessed => m.never_processed,
            Metric::LostToRetention => m.lost_to_retention,
            Metric::OutOfKeyOrder => m.out_of_key_order,
            Metric::TotalLag => m.total_lag,
            Metric::ActiveConsumers => u64::from(m.active_consumers),
            Metric::Generation => u64::from(m.generation),
            Metric::CommitRequests => m.commit_requests,
            Metric::TornCheckpoints => m.torn_checkpoints,
            Metric::Bridged => m.bridged,
            Metric::AdvancingPeeks => m.advancing_peeks,
            Metric::DoublePaidCents => m.double_paid_cents,
            Metric::PartitionTicksStopped => m.partition_ticks_stopped,
            Metric::PeakTotalLag => m.peak_total_lag,
            Metric::SplitViolations => split.violations,
            Metric::LegalReplays => split.legal_replays,
            Metric::StaticRejoins => m.static_rejoins,
            Metric::CommitFailed => m.commit_failed,
            Metric::MembersLeftPollTimeout => m.members_left_poll_timeout,
            Metric::SkippedByReset => m.skipped_by_reset,
            Metric::Archived => m.archived,
            Metric::Redelivered => m.redelivered,
            Metric::Failed => m.failed,
            Metric::AckedLost => m.acked_lost,
            Metric::ProducerDuplicates => m.producer_duplicates,
            Metric::ProducerReordered => m.producer_reordered,
            Metric::WritesRefused => m.writes_refused,
            Metric::DownstreamDelivered => m.downstream_delivered,
            Metric::DownstreamDuplicates => m.downstream_duplicates,
            Metric::AbortedSeen => m.aborted_seen,
            Metric::FencedWrites => m.fenced_writes,
            Metric::SkippedByHandler => m.skipped_by_handler,
            Metric::DeadLettered => m.dead_lettered,
            Metric::SentToRetry => m.sent_to_retry,
            Metric::Replayed => m.replayed,
            Metric::DoubleAppliedOnReplay => m.double_applied_on_replay,
            Metric::PartialEffects => m.partial_effects,
            Metric::StuckPartitionTicks => m.stuck_partition_ticks,
        }
    }
}

/// One condition of an outcome: `metric` of `group` (the first group when
/// left out) within `at_least ..= at_most`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct Condition {
    pub metric: Metric,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_least: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_most: Option<u64>,
}

impl Condition {
    /// The metric's value in the simulation now (0 for a group that does not exist:
    /// `Scenario::validate` refuses those).
    #[must_use]
    pub fn value(&self, sim: &Sim) -> u64 {
        let g = match &self.group {
            None => Some(0),
            Some(name) => sim.group_named(name),
        };
        let Some(g) = g else { return 0 };
        self.metric.of(sim, g)
    }

    #[must_use]
    pub fn holds(&self, sim: &Sim) -> bool {
        let value = self.value(sim);
        self.at_least.is_none_or(|min| value >= min) && self.at_most.is_none_or(|max| value <= max)
    }

    /// Why it does not hold, in the counters' words: `Duplicates: 0, needs at
    /// least 1`, or `Peak total lag in audit: 3, needs at least 100`; `None` when it holds.
    #[must_use]
    pub fn failure(&self, sim: &Sim) -> Option<String> {
        let value = self.value(sim);
        let name = match &self.group {
            None => self.metric.label().to_string(),
            Some(group) => format!("{} in {group}", self.metric.label()),
        };
        match (self.at_least, self.at_most) {
            (Some(min), Some(max)) if value < min || value > max => {
                Some(format!("{name}: {value}, needs {min} to {max}"))
            }
            (Some(min), None) if value < min => Some(format!("{name}: {value}, needs at least {min}")),
            (None, Some(max)) if value > max => Some(format!("{name}: {value}, needs at most {max}")),
            _ => None,
        }
    }
}

/// What the learner should reproduce, and what the page says when they do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct Outcome {
    /// Every condition must hold. The first names the number `{n}` in `says`.
    pub when: Vec<Condition>,
    /// Shown once reproduced, e.g. "{n} {duplicate|duplicates}: …": `{n}` is
    /// the first condition's value, and `{one|many}` picks by it, so a count of
    /// one reads "1 duplicate". It says what happened, not what "you" did: the
    /// same words serve a run the learner drove and one nobody touched.
    pub says: String,
}

/// Conditions an outcome may have.
pub const OUTCOME_CONDITIONS_MAX: usize = 8;
/// Steps a guide may list.
pub const GUIDE_STEPS_MAX: usize = 8;

impl Outcome {
    /// The message, with `{n}` filled in, when every condition holds.
    #[must_use]
    pub fn check(&self, sim: &Sim) -> Option<String> {
        let first = self.when.first()?;
        if !self.when.iter().all(|c| c.holds(sim)) {
            return None;
        }
        Some(fill(&self.says, first.value(sim)))
    }

    /// The message when every condition holds; otherwise why the first
    /// condition that fails does not hold.
    pub fn evaluate(&self, sim: &Sim) -> Result<String, String> {
        match self.when.iter().find_map(|c| c.failure(sim)) {
            Some(failure) => Err(failure),
            None => self.check(sim).ok_or_else(|| "no conditions".to_string()),
        }
    }

    /// The outcome's shape: conditions present and bounded, each with a lower
    /// bound or an upper one, the first with a lower bound above zero (so that
    /// it cannot hold before anything happened).
    pub fn validate(&self) -> Result<(), String> {
        if self.when.is_empty() || self.when.len() > OUTCOME_CONDITIONS_MAX {
            return Err(format!("needs 1 to {OUTCOME_CONDITIONS_MAX} conditions, got {}", self.when.len()));
        }
        if self.when[0].at_least.is_none_or(|min| min == 0) {
            return Err("the first condition needs at_least above 0".into());
        }
        if let Some(i) = self.when.iter().position(|c| c.at_least.is_none() && c.at_most.is_none()) {
            return Err(format!("when[{i}] needs at_least or at_most"));
        }
        if self.says.is_empty() {
            return Err("says is empty".into());
        }
        if let Some(bad) = placeholders(&self.says).find(|p| *p != "n" && p.split('|').count() != 2) {
            return Err(format!("says has {{{bad}}}: only {{n}} and {{one|many}} are filled in"));
        }
        Ok(())
    }
}

/// The `{…}` placeholders of a `says` template, without their braces (an
/// unclosed `{` ends the search: it is text).
fn placeholders(says: &str) -> impl Iterator<Item = &str> {
    says.split('{').skip(1).filter_map(|part| part.split_once('}').map(|(inside, _)| inside))
}

/// `says` with `{n}` replaced by `n` and each `{one|many}` by the form that fits `n`.
fn fill(says: &str, n: u64) -> String {
    let mut out = String::with_capacity(says.len() + 8);
    let mut rest = says;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        match (&after[..close], after[..close].split_once('|')) {
            ("n", _) => out.push_str(&n.to_string()),
            (_, Some((one, many))) => out.push_str(if n == 1 { one } else { many }),
            (text, None) => {
                out.push('{');
                out.push_str(text);
                out.push('}');
            }
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// A built-in scenario as a guided experiment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct Guide {
    pub topic: Topic,
    /// The narrative: what happens here and why it matters.
    pub story: String,
    /// What to do, one sentence per step (the timeline's `learner` inputs, in words).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
    pub outcome: Outcome,
}

impl Guide {
    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.story.is_empty() {
            return Err(("guide.story".into(), "is empty".into()));
        }
        if self.steps.len() > GUIDE_STEPS_MAX {
            return Err((
                "guide.steps".into(),
                format!("at most {GUIDE_STEPS_MAX}, got {}", self.steps.len()),
            ));
        }
        self.outcome.validate().map_err(|m| ("guide.outcome".into(), m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Names are distinct, and each is serde's snake-case name of its variant.
    #[test]
    fn metric_names_map_to_their_variants() {
        for (i, metric) in Metric::ALL.iter().enumerate() {
            assert!(Metric::ALL[..i].iter().all(|m| m.name() != metric.name()), "{metric:?}");
            assert_eq!(serde_json::to_value(metric).unwrap(), metric.name());
        }
    }

    #[test]
    fn evaluate_says_why_or_fills_in_n() {
        let condition = |metric, group: Option<&str>, at_least, at_most| Condition {
            metric,
            group: group.map(str::to_string),
            at_least,
            at_most,
        };
        let outcome = Outcome {
            when: vec![
                condition(Metric::Delivered, None, Some(1), None),
                condition(Metric::NeverProcessed, Some("audit"), None, Some(0)),
            ],
            says: "{n} handled".into(),
        };
        let config = crate::Config {
            groups: vec![crate::GroupConfig::named("demo"), crate::GroupConfig::named("audit")],
            ..crate::Config::default()
        };
        let mut sim = Sim::new(config).expect("valid");
        assert_eq!(outcome.evaluate(&sim), Err("Delivered: 0, needs at least 1".into()));
        sim.handle_input(crate::Input::Send { count: 4 }).expect("accepted");
        sim.handle_tick(20);
        assert_eq!(outcome.evaluate(&sim), Ok("4 handled".into()));
        let range = condition(Metric::Delivered, Some("audit"), Some(1), Some(2));
        assert_eq!(range.failure(&sim), Some("Delivered in audit: 4, needs 1 to 2".into()));
    }

    #[test]
    fn fill_picks_the_form_that_fits_the_count() {
        let says = "{n} {duplicate|duplicates}: c1 died before {its|their} commit";
        assert_eq!(fill(says, 1), "1 duplicate: c1 died before its commit");
        assert_eq!(fill(says, 2), "2 duplicates: c1 died before their commit");
        assert_eq!(fill("{n} in {braces} and an open { brace", 0), "0 in {braces} and an open { brace");
        assert_eq!(placeholders("{n} {a|b} {c").collect::<Vec<_>>(), ["n", "a|b"]);
    }
}
