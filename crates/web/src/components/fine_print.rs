//! What the model leaves out or simplifies, and which Kafka it follows: short,
//! and true of both builds (with and without the brokers).

use yew::prelude::*;

/// Said before the items.
const LEAD: &str = "The simulation follows the Java client and the group coordinator of Apache Kafka \
    4.4.0, and a harness checks it by running the experiments that are Kafka's on a real 4.4.0 \
    broker. What it leaves out or simplifies:";

/// Brokers and replication, in the published page's build (with the cluster).
#[cfg(feature = "cluster")]
const BROKERS: &[&str] =
    &["Experiments that show no brokers run on one broker without replication, and only consumers \
     crash there. Those that show brokers model them as Kafka 4.4.0 runs them (crashes and \
     restarts, the ISR, the high watermark, clean and unclean elections, the producer's acks, \
     retries and idempotence) with these shortcuts: the ISR changes and a restarted broker \
     registers at once, a crashed broker keeps its whole log, a new leader keeps the old leader's \
     high watermark, there is no preferred leader election, and partition p's replicas start at \
     broker p + 1 instead of a random one."];
/// Brokers and replication, in a build without the cluster.
#[cfg(not(feature = "cluster"))]
const BROKERS: &[&str] =
    &["This build shows no brokers: every experiment runs on one broker without replication, and \
     only consumers crash. The published page, and the offsetlab command, add brokers that crash, \
     replication, acks and the producer's retries."];

/// `(heading, paragraphs)`, in display order.
const ITEMS: [(&str, &[&str]); 8] = [
    (
        "Ticks, not milliseconds",
        &["Timers count ticks: the session timeout (45 seconds by default in Kafka), \
           max.poll.interval (5 minutes), the auto-commit interval (5 seconds), the shutdown \
           deadline, a share group's record lock (30 seconds). The heartbeat thread checks the \
           poll timer every tick, Kafka's every heartbeat interval."],
    ),
    ("Brokers and replication", BROKERS),
    (
        "The producer",
        &["Keyed records are partitioned exactly as Kafka does it. Keyless records go in sticky \
           batches of a few records, where Kafka's hold up to 16 KiB (batch.size). A real producer \
           notices added partitions at its next metadata refresh, this one at once."],
    ),
    (
        "Consumers",
        &["poll() takes records from the consumer's partitions in turn, where Kafka's client hands \
           out one partition's fetched records first, up to max.poll.records (500). A group without a \
           committed offset starts where auto.offset.reset says; left out, earliest, where Kafka's \
           default is latest. Pause is consumer.pause(): the consumer keeps polling and \
           stays in the group but fetches nothing. Retention keeps a number of records per \
           partition; Kafka deletes whole log segments by age or size."],
    ),
    (
        "Groups",
        &["The four client assignors, Kafka 4's consumer protocol, static members and share groups \
           follow Kafka 4.4.0. Member ids are seeded here and random in Kafka, so where two \
           assignments are equally sticky the extra partition may go to another member. The \
           consumer protocol computes a target for every join here, where Kafka batches joins. A \
           share group takes records one by one, where Kafka locks whole producer batches. A \
           cooperative member whose SyncGroup a new rebalance overtakes applies its assignment; \
           Kafka's client fails the SyncGroup and rejoins with what it owned."],
    ),
    (
        "Transactions",
        &["One broker holds the payouts topic and the transaction log, unreplicated, so \
           transactional requests are answered in the tick they are made and their markers written \
           at once. A fenced application stops at its first refused write; a real one that catches \
           the error is refused again at every call."],
    ),
    (
        "Failing handlers",
        &["Skipping, retrying, orders.DLT and the retry topics are the application's code, not \
           Kafka's; their readers here never crash."],
    ),
    (
        "Offset storage",
        &["The Offset storage panel's checkpoint files, the bridge and partitionFor(null) are not \
           Kafka's: they are a small log system's, shown beside it. Kafka keeps a group's committed \
           offsets on the broker, in its internal __consumer_offsets topic."],
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
            <p class="fine-print-lead">{ LEAD }</p>
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
