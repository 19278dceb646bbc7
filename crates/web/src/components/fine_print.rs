//! What the model leaves out, where it differs from Kafka, and which Kafka it follows.

use yew::prelude::*;

/// The first paragraph of "Brokers, replication and acks", in both builds.
const TAPES_NEVER_FAIL: &str = "The tapes behave as one broker's log that never fails. Real \
    partitions are replicated: a leader and followers on different brokers, and the producer's \
    acks together with the topic's min.insync.replicas decide when a write counts as done.";

/// What the tapes leave out, then where the page stands on brokers and
/// replication: with the cluster (the published page), what it models and
/// where it differs, then what was checked on a real Kafka, in a paragraph of
/// its own; without it (a build that weighs the cluster), one paragraph.
#[cfg(not(feature = "cluster"))]
const BROKERS_REPLICATION_ACKS: &[&str] = &[
    TAPES_NEVER_FAIL,
    "The offsetlab command models that part: brokers that crash and \
    restart, the ISR and the high watermark, clean and unclean leader elections, and the producer's \
    batches, retries and idempotence. Its built-in scenarios acks1-leader-crash (it loses \
    acknowledged records) and acks-all-survives (it does not), retry-without-idempotence, \
    idempotent-producer, inflight-reorders and unclean-election tell that story. This build of the \
    page leaves it out; the published page has it.",
];
#[cfg(feature = "cluster")]
const BROKERS_REPLICATION_ACKS: &[&str] = &[
    TAPES_NEVER_FAIL,
    "The page models them, as Kafka 4.4.0 runs them: \
    brokers that crash and restart, the ISR and the high watermark, clean and unclean elections \
    with the eligible leader replicas, and the producer's batches, retries and idempotence. Where \
    it differs: batch.size counts records, not bytes; the ISR changes and a restarted broker's \
    registration take no time; a crashed broker keeps its whole log; a new leader keeps the old \
    leader's high watermark; no preferred leader election; partition p's replicas start at \
    broker p + 1, where Kafka starts at a random broker.",
    "Checked on a real Kafka 4.4.0: the two leader-crash experiments and the unclean election on a \
    three-node cluster (the same acknowledged records lost), and the lost acknowledgement and \
    lost request through a proxy in front of a broker (the same log, record by record).",
];

/// `(heading, paragraphs)`, in display order.
const ITEMS: [(&str, &[&str]); 13] = [
    ("Brokers, replication and acks", BROKERS_REPLICATION_ACKS),
    (
        "Transactions",
        &[
            "One broker holds payouts and the transaction log here, so every transactional request \
             is answered in the tick it is made and the markers are written at once; in Kafka they \
             travel, and the producer waits with CONCURRENT_TRANSACTIONS. payouts is not replicated. \
             The downstream reader is one consumer that reads every partition from the start.",
            "A fenced application closes at its first refused write. Kafka's client throws \
             InvalidProducerEpochException, and an application that catches it and goes on is \
             refused at every later call too: the real broker refused three calls of the zombie in \
             eos-zombie-fenced.",
        ],
    ),
    (
        "Ticks, not milliseconds",
        &["The session timeout, the auto-commit interval and the shutdown deadline are counted in \
           ticks. In Kafka they are durations: session.timeout.ms defaults to 45 seconds and \
           auto.commit.interval.ms to 5 seconds."],
    ),
    (
        "What one poll() returns",
        &["Here poll() takes records from the consumer's partitions in turn, starting one partition \
           further each time. Kafka's client hands out what it fetched for one partition before \
           moving to the next, up to max.poll.records (500 by default)."],
    ),
    (
        "Where a new group starts",
        &["With no committed offset, consumers here start at the log start, as with \
           auto.offset.reset=earliest. Kafka's default is latest: a brand-new group skips the \
           records already in the log and reads only new ones."],
    ),
    (
        "Partitioning",
        &["Keyed records follow Kafka exactly: murmur2 of the key, made positive, modulo the \
           partition count. Keyless records go in sticky batches that move to another partition \
           when a batch fills; Kafka measures that batch in bytes (batch.size, 16 KiB by \
           default), this model in records."],
    ),
    (
        "Assignment and rebalancing",
        &[
            "The four client assignors are modelled as the Java client computes them: range, \
             roundrobin, sticky with the eager protocol (every member gives up all its partitions \
             and rejoins), and cooperative-sticky, whose incremental rebalances let members keep \
             consuming the partitions that do not move.",
            "Kafka 4's consumer protocol follows Kafka 4.4.0's group coordinator (uniform or range \
             target, reconciled through heartbeats), except: every join here gets its own target \
             epoch (Kafka batches them per group.consumer.assignment.interval.ms), and a member \
             fenced by its rebalance timeout drops the batch it is stuck on.",
        ],
    ),
    (
        "Share groups",
        &[
            "Share groups follow Kafka 4.4.0's share-partition and simple assignor (defaults: \
             delivery count limit 5, 2,000 record locks per partition, auto offset reset latest, \
             implicit acknowledgement; the lock is 20 ticks here, 30 s in Kafka). Where they part: \
             every record is its own batch (Kafka acquires and locks whole producer batches), the \
             simple assignor takes partitions in ascending order (Kafka's order hangs on the \
             topic's random id), and a new member's assignment is computed at once.",
            "KafkaShareConsumer has no pause(): Pause here stalls the application on its batch \
             while its heartbeats go on. A crash closes the process's connections, so the broker \
             gives its records back at once; the describe table's START-OFFSET trails the live \
             start offset by one write, as Kafka's share coordinator does.",
            "A stalled consumer that wakes after its locks ran out handles its stale copies and \
             then acknowledges them: the broker refuses those acknowledgements, shown here as an \
             event. Kafka 4.4.0's client reports no error for them from commitSync(), so a real \
             application is never told. Two share-group options that Kafka 4.4.0 leaves off are \
             off here too: share.renew.acknowledge.enable (renewing locks while acknowledging) \
             and a dead-letter topic for archived records (errors.deadletterqueue.topic.name).",
        ],
    ),
    (
        "Several groups",
        &["Up to eight groups can read the topic, each with its own members, committed offsets \
           and application, as in Kafka. Group names here are letters, digits and '-' (Kafka \
           also allows '.' and '_'), so that a shared link's separators stay unambiguous."],
    ),
    (
        "Commits, lag and retention",
        &[
            "Commits are offsets the group coordinator keeps in the internal __consumer_offsets \
             topic. Lag here is measured from the committed offset, as the CLI does; a running \
             consumer's position is usually ahead of it.",
            "Retention here keeps a number of records per partition and deletes the oldest one \
             by one. Kafka deletes whole log segments by age (retention.ms, 7 days by default) or \
             by size (retention.bytes).",
        ],
    ),
    (
        "Members and the describe table",
        &["A consumer restarted after a crash joins with a new member id; its old member stays \
           in the group until its session expires, unless it is a static member \
           (group.instance.id), which takes its old place back. Member ids come from the seeded generator. Hosts are simulated (/10.0.0.N), \
           and the coordinator is shown as localhost:9092. Kafka's --describe lists members in its \
           coordinator's hash map order; this one, where the order is Kafka's choice, by member id."],
    ),
    (
        "Pausing a consumer",
        &["Pausing: this models consumer.pause(). The consumer keeps calling poll() and stays in \
           the group, but fetches nothing new. A consumer that stops calling poll() for longer \
           than max.poll.interval.ms (5 minutes by default) is dropped from the group and its \
           partitions move on without a commit, much like the crash path here."],
    ),
    (
        "Which Kafka",
        &[
            "Defaults and behaviour follow the Java client and classic group coordinator of \
             Apache Kafka 4.4.0, and are checked against it: a conformance harness replays the \
             scenarios on a real 4.4.0 broker with its Java client and its kafka-consumer-groups \
             tool, and runs 10,000 generated groups through the client's own assignors and \
             2,500 through the group coordinator's uniform assignor and 1,250 through its range \
             assignor. The consumer protocol (KIP-848), static membership (KIP-345) and share \
             groups (KIP-932) follow the same release's group coordinator, share-partitions and \
             clients; the share-group experiments also run on the broker with KafkaShareConsumer.",
            "Where they part: when two assignments are equally sticky, the sticky assignors \
             pick by member id, which is random in Kafka and seeded here, so the extra partition \
             may go to a different member (the harness checks that offsetlab picks as Kafka does \
             when given Kafka's ids in the order its group leader had them); and a real producer \
             sees added partitions at its next metadata refresh, not at once. As in Kafka, a member's commit while it is rejoining a \
             rebalance is refused (RebalanceInProgressException) and what it handled stays \
             uncommitted until its next commit.",
        ],
    ),
];

#[component]
pub fn FinePrint() -> Html {
    html! {
        <section class="fine_print" id="fine-print" aria-labelledby="fine-print-heading">
            <details class="fine-print-details">
                <summary>
                    <h2 id="fine-print-heading">{ "Fine print: what this model leaves out, and where it differs from Kafka" }</h2>
                </summary>
            <div class="fine-print-grid">
                { for ITEMS.iter().map(|(heading, paragraphs)| html! {
                    <section class="fine-print-item" key={*heading}>
                        <h3>{ *heading }</h3>
                        { for paragraphs.iter().map(|p| html! { <p>{ *p }</p> }) }
                    </section>
                }) }
            </div>
            </details>
        </section>
    }
}
