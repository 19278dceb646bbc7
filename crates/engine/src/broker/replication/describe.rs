//! `kafka-topics --describe --topic NAME` text, as Kafka 4.4.0's
//! `TopicCommand` prints it (`TopicDescription.printDescription` and
//! `PartitionDescription.printDescription`).
//!
//! - The header: `Topic: NAME`, then tab-separated `TopicId:` (left out for
//!   the zero UUID), `PartitionCount:`, `ReplicationFactor:` (the first
//!   partition's replica count) and `Configs:`: `name=value` joined by `,`,
//!   every entry whose source is not Kafka's default.
//! - One line per partition, in partition order, each starting with a tab:
//!   `Topic:`, `Partition:`, `Leader:` (`none` without one), `Replicas:` and
//!   `Isr:` (ids joined by `,`), then `Elr:` and `LastKnownElr:` (`N/A` when
//!   the broker did not send them, empty when empty: the admin client of 4.x
//!   describes through `DescribeTopicPartitions`, which always sends them).
//! - No trailing spaces; every line ends with `\n` (`println`).
//!
//! The `Configs:` entries come out of a `java.util.HashMap` keyed by name
//! (the admin client's `Config`), so their order is that map's: by bucket of
//! the name's `String.hashCode` (spread `h ^ h >>> 16`) in a table of 64,
//! the size the topic's 30-odd config entries give it. Names in one bucket
//! keep the caller's order (Kafka's: the broker's response order).

use super::BrokerId;
use std::fmt::Write;

/// One topic, as the describe command receives it (plain values, so the
/// `Sim` can build it from whatever it holds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TopicDescription {
    pub topic: String,
    /// Kafka's `Uuid.toString()`: the 16 random bytes in unpadded base64url.
    /// Empty for the zero UUID (not printed).
    pub topic_id: String,
    pub replication_factor: u32,
    /// The entries whose source is not the default, any order.
    pub configs: Vec<(String, String)>,
    pub partitions: Vec<PartitionDescription>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartitionDescription {
    pub partition: u32,
    pub leader: Option<BrokerId>,
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    /// `None` prints `N/A`.
    pub elr: Option<Vec<BrokerId>>,
    pub last_known_elr: Option<Vec<BrokerId>>,
}

/// Java's `String.hashCode` of an ASCII (or any BMP) string.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The bucket of `name` in a `HashMap` table of 64.
fn bucket(name: &str) -> u32 {
    let h = java_hash(name) as u32;
    (h ^ (h >> 16)) & 63
}

fn ids(ids: &[BrokerId]) -> String {
    ids.iter().map(|id| id.to_string()).collect::<Vec<_>>().join(",")
}

/// The command's output for `topic`.
pub(crate) fn describe_topic(topic: &TopicDescription) -> String {
    let mut configs: Vec<&(String, String)> = topic.configs.iter().collect();
    crate::order::sort_stable_by_key(&mut configs, |(name, _)| bucket(name)); // one bucket keeps its order
    let configs: Vec<String> = configs.iter().map(|(name, value)| format!("{name}={value}")).collect();
    let mut out = format!("Topic: {}", topic.topic);
    if !topic.topic_id.is_empty() {
        let _ = write!(out, "\tTopicId: {}", topic.topic_id);
    }
    let mut partitions: Vec<&PartitionDescription> = topic.partitions.iter().collect();
    crate::order::sort_stable_by_key(&mut partitions, |p| p.partition);
    let _ = writeln!(
        out,
        "\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}",
        partitions.len(),
        partitions.first().map_or(topic.replication_factor, |p| p.replicas.len() as u32),
        configs.join(",")
    );
    for p in partitions {
        let leader = p.leader.map_or_else(|| "none".to_owned(), |l| l.to_string());
        let _ = write!(
            out,
            "\tTopic: {}\tPartition: {}\tLeader: {leader}\tReplicas: {}\tIsr: {}",
            topic.topic,
            p.partition,
            ids(&p.replicas),
            ids(&p.isr)
        );
        let _ = write!(out, "\tElr: {}", p.elr.as_deref().map_or_else(|| "N/A".to_owned(), ids));
        let _ = writeln!(
            out,
            "\tLastKnownElr: {}",
            p.last_known_elr.as_deref().map_or_else(|| "N/A".to_owned(), ids)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn java_string_hashes() {
        // What Java's `String.hashCode` gives for these.
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        assert_eq!(java_hash("hello"), 99_162_322);
        assert_eq!(java_hash("min.insync.replicas"), 268_940_301);
        assert_eq!(java_hash("segment.bytes"), -2_022_974_992);
    }

    #[test]
    fn header_and_partitions_byte_for_byte() {
        let topic = TopicDescription {
            topic: "orders".to_owned(),
            topic_id: "kXkkn1QrTOGrUKh-fE5wRw".to_owned(),
            replication_factor: 3,
            configs: vec![("min.insync.replicas".to_owned(), "2".to_owned())],
            partitions: vec![
                PartitionDescription {
                    partition: 1,
                    leader: None,
                    replicas: vec![2, 3, 1],
                    isr: vec![],
                    elr: Some(vec![2, 3]),
                    last_known_elr: Some(vec![2]),
                },
                PartitionDescription {
                    partition: 0,
                    leader: Some(1),
                    replicas: vec![1, 2, 3],
                    isr: vec![1, 2, 3],
                    elr: Some(vec![]),
                    last_known_elr: Some(vec![]),
                },
            ],
        };
        assert_eq!(
            describe_topic(&topic),
            "Topic: orders\tTopicId: kXkkn1QrTOGrUKh-fE5wRw\tPartitionCount: 2\tReplicationFactor: 3\tConfigs: min.insync.replicas=2\n\
             \tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: \tLastKnownElr: \n\
             \tTopic: orders\tPartition: 1\tLeader: none\tReplicas: 2,3,1\tIsr: \tElr: 2,3\tLastKnownElr: 2\n"
        );
        let old = TopicDescription {
            topic_id: String::new(),
            configs: vec![],
            partitions: vec![PartitionDescription {
                elr: None,
                last_known_elr: None,
                ..topic.partitions[1].clone()
            }],
            ..topic
        };
        assert_eq!(
            describe_topic(&old),
            "Topic: orders\tPartitionCount: 1\tReplicationFactor: 3\tConfigs: \n\
             \tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2,3\tElr: N/A\tLastKnownElr: N/A\n"
        );
    }

    #[test]
    fn configs_in_the_hash_map_order() {
        // Buckets 45, 10 and 27 of 64.
        let names = ["unclean.leader.election.enable", "min.insync.replicas", "segment.bytes"];
        let expected = ["min.insync.replicas", "segment.bytes", "unclean.leader.election.enable"];
        let topic = TopicDescription {
            topic: "orders".to_owned(),
            topic_id: String::new(),
            replication_factor: 1,
            configs: names.iter().map(|n| ((*n).to_owned(), "x".to_owned())).collect(),
            partitions: vec![],
        };
        let text = describe_topic(&topic);
        let listed: Vec<&str> = text
            .trim_end()
            .split("Configs: ")
            .nth(1)
            .unwrap()
            .split(',')
            .map(|e| e.split('=').next().unwrap())
            .collect();
        assert_eq!(listed, expected);
    }
}
