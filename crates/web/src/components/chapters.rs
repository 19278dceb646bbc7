//! The story under the simulation, in chapters: each a short text, the rules
//! and predictions it needs, and its experiments inline (the running one's
//! story and live check are with the simulation). Deep links name a chapter (`#rebalances`); the index at the
//! end lists every experiment by chapter.

mod chapter_experiments;
mod chapter_rules;
mod chapter_section;
mod chapter_text;
mod experiment_index;
mod prediction;
#[cfg(feature = "cluster")]
mod topic_describe;

pub use chapter_experiments::{ChapterExperiments, Part};
pub use chapter_rules::ChapterRules;
pub use chapter_section::{ChapterSection, ChapterSectionProps};
pub use chapter_text::ChapterText;
pub use experiment_index::{ExperimentIndex, ExperimentIndexProps};
pub use prediction::Prediction;
#[cfg(feature = "cluster")]
pub use topic_describe::TopicDescribe;

use crate::components::SectionProps;
use crate::prerender::Deferred;
use offsetlab_engine::Scenario;
use yew::prelude::*;

/// Something live a chapter shows beside its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Live {
    /// `kafka-consumer-groups --describe`, now.
    Describe,
    /// The poll loop with each consumer's place in it.
    PollLoop,
    /// `kafka-topics --describe --topic orders`, now (with a cluster).
    #[cfg(feature = "cluster")]
    DescribeTopic,
}

/// One chapter of the story.
#[derive(Debug, PartialEq, Eq)]
pub struct Chapter {
    /// The element id, so `#rebalances` links to it.
    pub id: &'static str,
    pub title: &'static str,
    pub paragraphs: &'static [&'static str],
    /// Indexes into [`RULES`] shown as call-outs.
    pub rules: &'static [usize],
    /// The quiz question the reader predicts here, if any.
    pub question: Option<usize>,
    pub live: Option<Live>,
    /// Built-in scenarios shown in full, then the others of the chapter, a link each
    /// (drawn in full while one runs).
    pub featured: &'static [&'static str],
    pub more: &'static [&'static str],
    /// Where the rules and the other experiments go, so that at two columns
    /// both end about level: the rules beside the text (above the
    /// experiments) when a live output makes the text long, the other
    /// experiments under the text when it is short.
    pub rules_beside: bool,
    pub more_under_text: bool,
}

/// The story, in the order the seed explainer tells it. Every built-in
/// scenario but the starting point is in exactly one chapter (tested).
pub static CHAPTERS: &[Chapter] = &[
    Chapter {
        id: "log-and-keys",
        title: "The log and keys",
        paragraphs: &[
            "A {topic} is a stream of records split into {partitions}, each a tape: the producer \
             appends records at its end, and each gets the next {offset}, its place on the tape. \
             The producer hashes a record's {key} to pick the partition, so one key always lands on \
             one tape.",
            "Kafka's default {partitioner} computes `toPositive(murmur2(key)) % partitions`, \
             murmur2 being the hash. Reading removes nothing: records leave only when {retention}, \
             a limit on what a partition keeps, deletes them, so another application can read them \
             later.",
        ],
        rules: &[0, 1],
        question: Some(1),
        live: None,
        featured: &["keys-keep-order", "no-keys-reorder"],
        more: &["partition-for-null", "key-erasure-bridge"],
        rules_beside: false,
        more_under_text: false,
    },
    Chapter {
        id: "groups",
        title: "Groups and ownership",
        paragraphs: &[
            "Consumers that share a group name form a {consumer group} and share the work: the \
             group's {coordinator}, a broker, gives each partition to exactly one member, which \
             reads it in offset order. Each new hand-out adds one to the group's {generation} \
             ({group epoch} in Kafka 4).",
            "Each group keeps its own offsets. An operator sees them through `kafka-consumer-groups \
             --describe`, live below: per partition, the {committed offset} where the group \
             resumes, and the {lag}, the records after it.",
        ],
        rules: &[2],
        question: Some(0),
        live: Some(Live::Describe),
        featured: &["spare-consumers", "two-groups"],
        more: &[],
        rules_beside: true,
        more_under_text: false,
    },
    Chapter {
        id: "delivery",
        title: "Commits, crashes and what you can promise",
        paragraphs: &["The broker does not mark records done: the group {commits} an offset per partition, \
             and whoever takes a partition over after a crash starts there. So the order of \
             handling and committing decides what a crash costs. Commit after and the unfinished \
             batch is replayed: {at-least-once}, duplicates. Commit before and it is skipped: \
             {at-most-once}, records never processed."],
        rules: &[3],
        question: None,
        live: Some(Live::PollLoop),
        featured: &["crash-commit-after", "crash-commit-before"],
        more: &["idempotent-absorbs-duplicates"],
        rules_beside: true,
        more_under_text: false,
    },
    Chapter {
        id: "rebalances",
        title: "Rebalances",
        paragraphs: &[
            "When a member joins, leaves or stops answering, the group {rebalances}: the \
             coordinator starts a new generation, and the {assignor}, the rule that splits \
             partitions among members (range, round-robin, sticky), plans who owns what. With the \
             {eager} protocol every member gives up every partition first, so the whole group \
             stops; with {cooperative-sticky} only the partitions that change hands stop.",
            "A member that stops cleanly finishes its batch and commits before it leaves; one that \
             crashes is noticed only when its {session} times out (the coordinator waits that long \
             for a heartbeat), and its partitions wait until then.",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["scale-out-eager", "scale-out-cooperative"],
        more: &["rolling-update"],
        rules_beside: false,
        more_under_text: true,
    },
    Chapter {
        id: "clocks",
        title: "Clocks: when Kafka gives up on a consumer",
        paragraphs: &[
            "Besides the session, the client keeps a {poll timer}: the time since the application              last called `poll()`. A member that takes longer than `max.poll.interval.ms` over one              batch, a slow handler or too many records, is taken for stuck: its client leaves the              group by itself, and the group rebalances without it.",
            "The application is not told. It finishes its batch, and its `commitSync()` throws              `CommitFailedException`: the member is no longer part of an active group, so nothing              it handled since its last commit is written, and the partition's new owner reads those              records again. At its next poll the member joins again as a new member, which starts              another rebalance; when every member's batch is too long, the group rebalances              without end and commits nothing: a {rebalance storm}, a group that keeps changing              hands and never moves forward.",
            "The cure is arithmetic: `max.poll.records` times the time a record takes must stay              under `max.poll.interval.ms`. Poll fewer records, or give a handler that needs it a              longer interval.",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["slow-handler-poll-timeout", "rebalance-storm"],
        more: &[
            "zombie-commit-refused",
            "kip848-stalled-member-fenced",
            "new-group-latest-skips",
            "offsets-expired",
            "partitions-added-latest-skips",
            "auto-commit-on-rebalance",
        ],
        rules_beside: false,
        more_under_text: true,
    },
    Chapter {
        id: "offset-storage",
        title: "Where the position lives",
        paragraphs: &[
            "Kafka keeps a group's positions on the broker. Some systems keep them with the consumer \
             instead, as a {checkpoint} file each consumer writes after handling a batch and reads \
             back when it starts. Then the file's write is the commit, and how it is written \
             decides what a crash in the middle leaves behind.",
            "How often to commit is a trade: every record costs the most commit requests and replays \
             the least, a timer ({auto-commit}, every few seconds) the fewest requests and the widest \
             replay. Open the Offset storage \
             panel under the simulation to see the checkpoints and the split check.",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["torn-checkpoint", "atomic-checkpoint"],
        more: &["consumer-checkpoint", "commit-each-record", "commit-each-batch", "commit-on-timer"],
        rules_beside: false,
        more_under_text: true,
    },
    Chapter {
        id: "operations",
        title: "Operations",
        paragraphs: &[
            "In production the questions are a payout stream's: is anything paid twice, which \
             partition falls behind and how old is its oldest unprocessed record, what a {rolling \
             update} (one instance restarted at a time) or a new partition does to the keys in \
             flight.",
            "An {effect key}, an id the ledger applies once, and a ledger written before the offset \
             make a replay harmless. Lag per partition, not the total, finds a {hot key}, one \
             busier than the rest. The Operations panel under the simulation shows the ledger, the \
             lag and the commit cost.",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["payout-double-payout", "payout-ledger"],
        more: &["hot-account", "partition-growth", "busy-group"],
        rules_beside: false,
        more_under_text: true,
    },
    Chapter {
        id: "failures",
        title: "When a record cannot be processed",
        paragraphs: &[
            "Sometimes the handler throws: on a {poison record} it can never process (a malformed \
             order), or on one that fails for a while (the payment service is down). Kafka does not \
             know; what happens next is the application's {error policy}. While the handler retries \
             a record in place its partition is {stuck}: nothing behind it is handled, and its lag \
             grows alone.",
            "{Skip} commits past the record: it is never processed. {Retry forever} stops the \
             partition until the member's `max.poll.interval` runs out, and the next owner fails the \
             same way. {Retry, then dead-letter} tries a few more times, then writes the record to the \
             {dead-letter topic} `orders.DLT` with headers naming its source partition, offset, cause \
             and attempts. {Retry topics} (`orders-retry-1`, `-2`) try it later without stopping the \
             partition, so a later record of its key overtakes it.",
            "After a fix, a {replay} job applies each dead letter again under its original effect \
             key: a payout a failed attempt had already made is paid twice, unless the ledger applies \
             each key once. These policies are the application's code (Spring Kafka's \
             DefaultErrorHandler, DeadLetterPublishingRecoverer, @RetryableTopic), not Kafka's. \
             A {share group} is the exception: since Kafka 4.4 the broker itself writes a record it \
             archives to the group's dead-letter topic (`errors.deadletterqueue.topic.name`).",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["poison-blocks-partition", "poison-dead-lettered"],
        more: &[
            "poison-skipped",
            "retry-topic-reorders",
            "dead-letter-replay-idempotent",
            "dead-letter-replay-not-idempotent",
            "share-dlq",
        ],
        rules_beside: false,
        more_under_text: false,
    },
    Chapter {
        id: "kafka4-groups",
        title: "Kafka 4's groups",
        paragraphs: &[
            "Kafka 4's consumer protocol (`group.protocol=consumer`) has no group-wide barrier: \
             each join or leave bumps the group epoch, the coordinator computes a {target \
             assignment}, and each member {reconciles} to it at its heartbeats, giving up \
             partitions first. Each card shows the {member epoch}, the group epoch that member has \
             caught up with. A {static member} (`group.instance.id`, a fixed name) keeps its partitions while \
             it restarts within its session: no rebalance.",
            "A {share group} (Kafka 4.2's queues) shares each partition between members: each \
             record goes to one member under a lock and is acknowledged on its own, redelivered \
             when the lock runs out, archived after five deliveries. No per-key order.",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["consumer-protocol-scale-out", "static-rolling-update"],
        more: &["share-group-busy", "share-poison-record", "share-lock-timeout"],
        rules_beside: false,
        more_under_text: true,
    },
    #[cfg(feature = "cluster")]
    Chapter {
        id: "written",
        title: "What 'written' means",
        paragraphs: &[
            "A partition lives on several brokers: the {leader} takes the writes, {followers} copy \
             its log, and those that keep up are the {in-sync replicas} ({ISR|in-sync replicas}). \
             Consumers read only below the {high watermark} ({HW|high watermark}), the offset the \
             whole ISR has reached: on the tapes the records past it are faint.",
            "With {acks}=1 the leader answers the producer once it has a batch; with acks=all, once \
             the whole ISR has it, and {min.insync.replicas} refuses a write too few replicas would \
             hold. A leader that crashes before its followers copied takes acknowledged records \
             with it.",
            "A lost answer makes the producer retry: without idempotence the batch is written \
             twice, and with several requests {in flight}, unanswered, it can land after a later \
             one. An {idempotent} producer, Kafka's default, numbers its batches so the leader \
             drops a copy and keeps the order.",
        ],
        rules: &[],
        question: None,
        live: Some(Live::DescribeTopic),
        featured: &["acks1-leader-crash", "acks-all-survives"],
        more: &["retry-without-idempotence", "idempotent-producer", "inflight-reorders", "unclean-election"],
        rules_beside: false,
        more_under_text: false,
    },
    Chapter {
        id: "exactly-once",
        title: "Exactly once, and where it stops",
        paragraphs: &[
            "An application that reads orders and writes results to another topic can do both in \
             one Kafka {transaction}: the results and the offsets it consumed commit together or \
             not at all. A crash in the middle leaves results that an {ABORT marker} later cancels; \
             a {read_committed} reader skips them and stops at the {last stable offset} ({LSO|last \
             stable offset}), below which every transaction has ended.",
            "The {transactional.id}, a name kept across restarts, fences {zombies}, old instances \
             still running: a new instance's `initTransactions()` bumps the {producer epoch}, and \
             writes at the older epoch are refused. What the transaction cannot cover is an effect \
             outside Kafka: the ledger still pays twice unless it refuses repeats itself.",
        ],
        rules: &[],
        question: None,
        live: None,
        featured: &["eos-read-process-write", "eos-zombie-fenced"],
        more: &["eos-read-uncommitted", "eos-external-effect"],
        rules_beside: false,
        more_under_text: true,
    },
];

/// A rule of the model, with the scenario its "Show me" loads.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub title: &'static str,
    pub text: &'static str,
    pub scenario: &'static str,
}

/// The four rules behind everything the simulation does.
pub static RULES: [Rule; 4] = [
    Rule {
        title: "A partition is an append-only log",
        text: "A producer only ever adds records at the end, and each one gets the next offset. \
               Reading removes nothing, so two groups can read the same records, each at its own pace.",
        scenario: "two-groups",
    },
    Rule {
        title: "Order exists within a partition",
        text: "Offsets order the records of one partition; nothing orders records across \
               partitions. Records with the same key go to the same partition (while the partition \
               count stays the same), so key one customer's events by the customer.",
        scenario: "no-keys-reorder",
    },
    Rule {
        title: "One owner per partition, per group",
        text: "Within a group, each partition belongs to exactly one consumer at a time. A group \
               with more consumers than partitions gains idle spares, not throughput.",
        scenario: "spare-consumers",
    },
    Rule {
        title: "Progress is a number the consumer commits",
        text: "For each partition the group commits one offset, the next record to read, and lag \
               is the distance from it to the log end. Whether a crash repeats records or skips \
               them depends on when that number is written.",
        scenario: "crash-commit-after",
    },
];

/// A short title for each built-in experiment; others show their name.
#[must_use]
pub fn title(name: &str) -> Option<&'static str> {
    Some(match name {
        "keys-keep-order" => "Keys keep each user's records in order",
        "no-keys-reorder" => "Without keys, a user's records overtake each other",
        "partition-for-null" => "partitionFor(null) moves the round-robin counter",
        "key-erasure-bridge" => "A bridge that loses the keys",
        "two-groups" => "Two groups read the same records",
        "spare-consumers" => "More consumers than partitions",
        "crash-commit-after" => "Crash after handling, before committing",
        "crash-commit-before" => "Commit first, then crash",
        "idempotent-absorbs-duplicates" => "An idempotent application",
        "scale-out-eager" => "Scaling out with an eager assignor",
        "scale-out-cooperative" => "Scaling out with cooperative-sticky",
        "rolling-update" => "A rolling update under load",
        "slow-handler-poll-timeout" => "A slow batch: the member leaves and its commit fails",
        "rebalance-storm" => "A rebalance storm: every batch too long",
        "zombie-commit-refused" => "A zombie's commit is refused",
        "kip848-stalled-member-fenced" => "Kafka 4: a frozen member is fenced",
        "new-group-latest-skips" => "A new group on latest skips the past",
        "offsets-expired" => "Offsets expire while the group is down",
        "auto-commit-on-rebalance" => "Auto-commit at JoinGroup, not at revocation",
        "partitions-added-latest-skips" => "A new partition, noticed late, starts at latest",
        "consumer-checkpoint" => "Each consumer checkpoints its own position",
        "torn-checkpoint" => "A checkpoint torn by a crash",
        "atomic-checkpoint" => "An atomic checkpoint survives the crash",
        "commit-each-record" => "Commit after every record",
        "commit-each-batch" => "Commit after every batch",
        "commit-on-timer" => "Auto-commit on a timer",
        "busy-group" => "A busy group",
        "hot-account" => "A hot account",
        "partition-growth" => "Adding a partition while running",
        "payout-double-payout" => "A payout paid twice",
        "payout-ledger" => "Ledger first: paid once",
        "poison-blocks-partition" => "A poison record stops its partition",
        "poison-skipped" => "A poison record, skipped",
        "poison-dead-lettered" => "A poison record, dead-lettered",
        "retry-topic-reorders" => "A retry topic reorders a key",
        "dead-letter-replay-idempotent" => "Replaying dead letters: paid once",
        "dead-letter-replay-not-idempotent" => "Replaying dead letters: paid twice",
        "consumer-protocol-scale-out" => "Scaling out on the consumer protocol",
        "static-rolling-update" => "A rolling update of static members",
        "share-group-busy" => "Eight share consumers",
        "share-poison-record" => "A poison record, archived",
        "share-dlq" => "A share group's dead-letter queue",
        "share-lock-timeout" => "A stalled consumer's locks",
        "eos-read-process-write" => "A crash in the middle of a transaction",
        "eos-read-uncommitted" => "The same crash, read uncommitted",
        "eos-zombie-fenced" => "A zombie instance, fenced",
        "eos-external-effect" => "Exactly once in Kafka, twice in the ledger",
        #[cfg(feature = "cluster")]
        "acks1-leader-crash" => "acks=1 and a leader crash",
        #[cfg(feature = "cluster")]
        "acks-all-survives" => "acks=all survives the same crash",
        #[cfg(feature = "cluster")]
        "retry-without-idempotence" => "A retry without idempotence",
        #[cfg(feature = "cluster")]
        "idempotent-producer" => "The idempotent producer",
        #[cfg(feature = "cluster")]
        "inflight-reorders" => "Five in flight reorder a retried batch",
        #[cfg(feature = "cluster")]
        "unclean-election" => "An unclean election",
        _ => return None,
    })
}

/// The summary without an "Experiment N: " prefix (the title says what it is).
#[must_use]
pub fn summary(scenario: &Scenario) -> String {
    let s = scenario.summary.as_str();
    let rest = match s.split_once(": ") {
        Some((head, rest)) if head.starts_with("Experiment ") => rest,
        _ => s,
    };
    // ASCII only: the summaries are English, and Unicode case tables would cost ~14 KB of wasm.
    let mut out = rest.to_string();
    if let Some(first) = out.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    out
}

/// The chapter a built-in experiment is told in.
#[must_use]
pub fn chapter_of(name: &str) -> Option<&'static Chapter> {
    CHAPTERS.iter().find(|c| c.featured.contains(&name) || c.more.contains(&name))
}

/// Every chapter, in order. Each part gets only what it draws, so the static
/// text renders once and only the running experiment's block follows the clock.
/// Each chapter is a part of its own below the first screen ([`Deferred`]):
/// its prerendered copy stands in until the browser is idle, then it renders,
/// one chapter per idle period, so that none of them is one long task (and
/// the page's first render builds none of them).
#[component]
pub fn Chapters(props: &SectionProps) -> Html {
    let state = &props.state;
    let running = AttrValue::from(state.scenario.name.clone());
    html! {
        <div class="chapters">
            { for CHAPTERS.iter().enumerate().map(|(i, chapter)| {
                // Only a chapter whose live output follows the run gets the state.
                let follows = matches!(chapter.live, Some(live) if live != Live::Describe);
                let section = state.ui.parts.map(|parts| (parts.chapter)(ChapterSectionProps {
                    index: i,
                    running: running.clone(),
                    answer: chapter.question.and_then(|q| state.ui.quiz.get(q).copied().flatten()),
                    state: follows.then(|| state.clone()),
                    on_action: props.on_action.clone(),
                }));
                html! {
                    <Deferred key={chapter.id} copy={AttrValue::from(format!("#{}", chapter.id))}
                        ready={!state.ui.builtins_pending && section.is_some()}>
                        { section.unwrap_or_default() }
                    </Deferred>
                }
            }) }
        </div>
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn every_built_in_but_the_starting_point_is_in_one_chapter_and_has_a_title() {
        for scenario in offsetlab_engine::builtins() {
            let name = scenario.name.as_str();
            let homes =
                CHAPTERS.iter().filter(|c| c.featured.contains(&name) || c.more.contains(&name)).count();
            if name == crate::state::SCENARIO {
                assert_eq!(homes, 0, "the starting point is no experiment");
                continue;
            }
            // The page's build has no cluster (the engine's `cluster` feature is off in it):
            // its built-ins are the command's. A workspace test run turns the feature on for all.
            let config = &scenario.config;
            if !cfg!(feature = "cluster") && (config.cluster.is_some() || config.producer.delivery.is_some())
            {
                assert_eq!(homes, 0, "{name} needs a cluster, which the page's build has not");
                continue;
            }
            assert_eq!(homes, 1, "{name} is told in exactly one chapter");
            assert!(title(name).is_some(), "{name} has a title");
        }
        for chapter in CHAPTERS {
            assert!(
                !chapter.featured.is_empty() && chapter.featured.len() <= 2,
                "{}: one or two inline",
                chapter.id
            );
            for name in chapter.featured.iter().chain(chapter.more) {
                assert!(offsetlab_engine::builtin(name).is_ok(), "{name} is a built-in");
            }
            assert!(chapter.rules.iter().all(|&r| r < RULES.len()));
        }
        // Each quiz question is asked in one chapter.
        let mut asked: Vec<usize> = CHAPTERS.iter().filter_map(|c| c.question).collect();
        asked.sort_unstable();
        assert_eq!(asked, [0, 1]);
        // Each rule is told once.
        let mut told: Vec<usize> = CHAPTERS.iter().flat_map(|c| c.rules.iter().copied()).collect();
        told.sort_unstable();
        assert_eq!(told, [0, 1, 2, 3]);
    }
}
