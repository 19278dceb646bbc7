//! The dead-letter topic `orders.DLT` and the retry topics `orders-retry-1`,
//! `orders-retry-2`, … (issue 40): real topics the applications write a
//! failed record to, with offsets and retention of their own, and the
//! positions of the applications' readers of them (each group's retry
//! consumer and its dead-letter replay job, `<group>-dlt-replay`).
//!
//! A letter is the original record (its key, its id, which is its effect
//! key) with Spring Kafka's `DeadLetterPublishingRecoverer` headers:
//! `kafka_dlt-original-partition`, `kafka_dlt-original-offset`,
//! `kafka_dlt-original-consumer-group`, `kafka_dlt-exception-message`; on
//! a retry topic also `retry_topic-backoff-timestamp` (here the tick it is due)
//! and `retry_topic-attempts`. It goes to the partition of the same number
//! as its source's (the recoverer's default destination).

use crate::event::Tick;
use crate::input::ConsumerId;
use crate::limits;
use crate::log::PartitionLog;
use serde::Serialize;

/// The dead-letter topic's name, after Spring Kafka's `DeadLetterPublishingRecoverer` (`<topic>.DLT`).
pub const DEAD_LETTER_TOPIC: &str = "orders.DLT";

/// The topic the letters' originals are on.
const SOURCE_TOPIC: &str = "orders";

/// Retry topic `level`'s name (1-based): `orders-retry-1`, …
#[must_use]
pub fn retry_topic_name(level: u32) -> String {
    format!("orders-retry-{level}")
}

/// One record on the dead-letter topic or a retry topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Letter {
    /// The original record's id: its effect key.
    pub record_id: u64,
    /// Its key (`user-N`) when `keyed`.
    pub subject: u32,
    pub keyed: bool,
    /// `kafka_dlt-original-partition` / `-offset`.
    pub source_partition: u32,
    pub source_offset: u64,
    /// `kafka_dlt-original-consumer-group`: the index of the group whose application wrote it.
    pub group: u32,
    /// `kafka_dlt-exception-message`.
    pub cause: &'static str,
    /// The application instance (consumer card) that wrote it.
    pub consumer: ConsumerId,
    /// Attempts the handler made before it was written here (`retry_topic-attempts`).
    pub attempts: u32,
    pub written_tick: Tick,
    /// Retry topics: the tick its retry consumer handles it at
    /// (`retry_topic-backoff-timestamp`); the written tick on the DLT.
    pub due_tick: Tick,
    /// The original was produced at.
    pub produced_tick: Tick,
    /// How the original makes the handler fail, carried so a retry fails the same way.
    pub poison: bool,
    pub fails_first: u8,
    pub after_effect: bool,
}

/// Where a letter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "topic", rename_all = "kebab-case")]
pub enum LetterTopicId {
    DeadLetter,
    /// `orders-retry-<level>`, 1-based.
    Retry {
        level: u32,
    },
}

impl LetterTopicId {
    #[must_use]
    pub fn name(self) -> String {
        match self {
            LetterTopicId::DeadLetter => DEAD_LETTER_TOPIC.to_string(),
            LetterTopicId::Retry { level } => retry_topic_name(level),
        }
    }
}

/// A letter topic's partition bounds, for its tape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LetterPartitionView {
    pub partition: u32,
    pub log_start: u64,
    pub log_end: u64,
}

/// A letter with its offset, for the tapes and the CLI's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LetterRecordView {
    pub partition: u32,
    pub offset: u64,
    pub letter: Letter,
}

/// Why the broker archived a share group's record, as KIP-1191 writes it in
/// `__dlq.errors.message` (`ShareGroupDLQManager`'s two causes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShareDlqCause {
    /// A `REJECT` acknowledgement (`CLIENT_REJECT`).
    Rejected,
    /// Its delivery count reached `share.delivery.count.limit` when it was
    /// released or its lock ran out (`DELIVERY_COUNT_EXCEEDED`).
    DeliveryCountExceeded,
}

impl ShareDlqCause {
    /// The cause's message, Kafka 4.4.0's words.
    #[must_use]
    pub fn message(self) -> &'static str {
        match self {
            ShareDlqCause::Rejected => "Offset rejected by client.",
            ShareDlqCause::DeliveryCountExceeded => "Offset delivery count exceeded the threshold.",
        }
    }
}

/// The original record's key and value, copied with
/// `errors.deadletterqueue.copy.record.enable`: its id (the value's
/// payout operation) and its key `user-N` when keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CopiedRecord {
    pub record_id: u64,
    pub subject: u32,
    pub keyed: bool,
}

/// One record the broker wrote to a share group's dead-letter topic
/// (KIP-1191, `ShareGroupDLQStateManager$ProduceRequestHandler`): null key
/// and value unless the group copies records, and the context headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShareDeadLetter {
    /// The share group's index.
    pub group: u32,
    /// `__dlq.errors.partition` / `__dlq.errors.offset`.
    pub source_partition: u32,
    pub source_offset: u64,
    /// `__dlq.errors.delivery.count`.
    pub delivery_count: u8,
    /// `__dlq.errors.message`.
    pub cause: ShareDlqCause,
    /// Key and value, with copy.record.enable; else both null.
    pub copied: Option<CopiedRecord>,
    /// The broker's clock at the write: the record's timestamp.
    pub written_tick: Tick,
}

impl ShareDeadLetter {
    /// Its headers, in the order Kafka 4.4.0 writes them
    /// (`ProduceRequestHandler.headers`), values as their UTF-8 strings.
    #[must_use]
    pub fn headers(&self, group_name: &str) -> [(&'static str, String); 6] {
        [
            ("__dlq.errors.topic", SOURCE_TOPIC.to_string()),
            ("__dlq.errors.partition", self.source_partition.to_string()),
            ("__dlq.errors.offset", self.source_offset.to_string()),
            ("__dlq.errors.group", group_name.to_string()),
            ("__dlq.errors.delivery.count", self.delivery_count.to_string()),
            ("__dlq.errors.message", self.cause.message().to_string()),
        ]
    }
}

/// A record of a share group's dead-letter topic, with where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShareDeadLetterView {
    pub partition: u32,
    pub offset: u64,
    pub letter: ShareDeadLetter,
}

/// A share group's dead-letter topic, made at its first write with the
/// source topic's partition count then (Kafka: the broker's default
/// `num.partitions` when it auto-creates it, or what an operator chose).
#[derive(Debug, Clone, Default)]
struct ShareDlq {
    partitions: Vec<PartitionLog<ShareDeadLetter>>,
    /// Records written, those retention dropped included.
    written: u64,
}

/// A letter topic: one log per partition, bounded by [`limits::LETTERS_RETAINED_MAX`].
#[derive(Debug, Clone, Default)]
struct LetterTopic {
    partitions: Vec<PartitionLog<Letter>>,
}

impl LetterTopic {
    fn new(partitions: u32) -> LetterTopic {
        LetterTopic { partitions: vec![PartitionLog::default(); partitions as usize] }
    }
}

/// Per group: where its readers of the letter topics are.
#[derive(Debug, Clone, Default)]
struct Readers {
    /// Per retry level, per partition: the retry consumer's next offset.
    retry: Vec<Vec<u64>>,
    /// The replay job's next offset per DLT partition, once started.
    replay: Option<Vec<u64>>,
}

/// The letter topics and their readers.
///
/// # Calling contract
/// [`DeadLetters::handle_write`] appends a letter to the partition of its
/// source's number and returns its offset. [`DeadLetters::poll_due`] gives a
/// group's retry consumer the letters of one level that are due, in offset
/// order per partition (a letter not yet due holds back those behind it, as
/// Spring's retry consumer pauses the partition), and moves past them.
/// [`DeadLetters::handle_replay_started`] starts a group's replay job at the
/// DLT's start; [`DeadLetters::poll_replay`] gives it the group's letters in
/// order and moves past them (letters of other groups are passed over).
#[derive(Debug, Clone)]
pub(crate) struct DeadLetters {
    dlt: LetterTopic,
    retry: Vec<LetterTopic>,
    readers: Vec<Readers>,
    /// Per group: its share dead-letter topic (KIP-1191), once written.
    share: Vec<Option<ShareDlq>>,
}

impl DeadLetters {
    /// `levels`: the retry topics the groups' policies use.
    pub fn new(partitions: u32, groups: usize, levels: u32) -> DeadLetters {
        assert!(levels <= limits::RETRY_TOPICS_MAX);
        let readers = Readers { retry: vec![vec![0; partitions as usize]; levels as usize], replay: None };
        DeadLetters {
            dlt: LetterTopic::new(partitions),
            retry: (0..levels).map(|_| LetterTopic::new(partitions)).collect(),
            readers: vec![readers; groups],
            share: vec![None; groups],
        }
    }

    /// Makes retry topics up to `levels` (a group's new policy uses them);
    /// those there stay, with their letters.
    pub fn ensure_levels(&mut self, levels: u32) {
        assert!(levels <= limits::RETRY_TOPICS_MAX);
        let partitions = self.dlt.partitions.len();
        while self.levels() < levels {
            self.retry.push(LetterTopic::new(partitions as u32));
            for readers in &mut self.readers {
                readers.retry.push(vec![0; partitions]);
            }
        }
    }

    pub fn add_partitions(&mut self, added: u32) {
        for topic in std::iter::once(&mut self.dlt).chain(self.retry.iter_mut()) {
            topic.partitions.extend((0..added).map(|_| PartitionLog::default()));
        }
        for readers in &mut self.readers {
            for positions in readers.retry.iter_mut().chain(readers.replay.iter_mut()) {
                positions.extend((0..added).map(|_| 0));
            }
        }
    }

    fn topic(&self, id: LetterTopicId) -> Option<&LetterTopic> {
        match id {
            LetterTopicId::DeadLetter => Some(&self.dlt),
            LetterTopicId::Retry { level } => self.retry.get(level.checked_sub(1)? as usize),
        }
    }

    /// The retry topics there are.
    pub fn levels(&self) -> u32 {
        self.retry.len() as u32
    }

    pub fn handle_write(&mut self, to: LetterTopicId, letter: Letter) -> u64 {
        let topic = match to {
            LetterTopicId::DeadLetter => &mut self.dlt,
            LetterTopicId::Retry { level } => {
                let index = level.checked_sub(1).expect("levels are 1-based") as usize;
                self.retry.get_mut(index).expect("a retry topic the policies use")
            }
        };
        let log = &mut topic.partitions[letter.source_partition as usize];
        let offset = log.push(letter);
        if log.records.len() as u64 > limits::LETTERS_RETAINED_MAX {
            log.pop_front();
        }
        offset
    }

    /// Group `g`'s due letters of retry topic `level`, at most `max`.
    pub fn poll_due(&mut self, g: usize, level: u32, now: Tick, max: u32) -> Vec<LetterRecordView> {
        let mut out = Vec::new();
        let index = level.checked_sub(1).expect("levels are 1-based") as usize;
        let (Some(topic), Some(positions)) = (self.retry.get(index), self.readers[g].retry.get_mut(index))
        else {
            return out;
        };
        for (p, log) in topic.partitions.iter().enumerate() {
            let position = &mut positions[p];
            *position = (*position).max(log.log_start);
            while out.len() < max as usize {
                let Some(letter) = log.get(*position) else { break };
                if letter.group as usize == g {
                    if letter.due_tick > now {
                        break;
                    }
                    out.push(LetterRecordView { partition: p as u32, offset: *position, letter: *letter });
                }
                *position += 1;
            }
        }
        out
    }

    /// Whether group `g`'s replay job runs.
    pub fn replaying(&self, g: usize) -> bool {
        self.readers[g].replay.is_some()
    }

    pub fn handle_replay_started(&mut self, g: usize) {
        let starts = self.dlt.partitions.iter().map(|log| log.log_start).collect();
        self.readers[g].replay.get_or_insert(starts);
    }

    /// Group `g`'s replay job's next letters, at most `max`.
    pub fn poll_replay(&mut self, g: usize, max: u32) -> Vec<LetterRecordView> {
        let mut out = Vec::new();
        let Some(positions) = self.readers[g].replay.as_mut() else { return out };
        for (p, log) in self.dlt.partitions.iter().enumerate() {
            let position = &mut positions[p];
            *position = (*position).max(log.log_start);
            while out.len() < max as usize {
                let Some(letter) = log.get(*position) else { break };
                if letter.group as usize == g {
                    out.push(LetterRecordView { partition: p as u32, offset: *position, letter: *letter });
                }
                *position += 1;
            }
        }
        out
    }

    /// The replay job's committed offsets (`--describe --group <group>-dlt-replay`).
    pub fn replay_positions(&self, g: usize) -> Option<Vec<u64>> {
        self.readers.get(g)?.replay.clone()
    }

    pub fn partitions(&self, id: LetterTopicId) -> Vec<LetterPartitionView> {
        self.topic(id).map_or_else(Vec::new, |topic| bounds(&topic.partitions))
    }

    /// The broker writes a record share group `g` archived to its
    /// dead-letter topic: to the partition of its source's number modulo the
    /// topic's partition count (`populateDLQTopicData`). Returns where.
    pub fn handle_share_write(&mut self, g: usize, letter: ShareDeadLetter) -> (u32, u64) {
        let partitions = self.dlt.partitions.len();
        let topic = self.share[g].get_or_insert_with(|| ShareDlq {
            partitions: vec![PartitionLog::default(); partitions],
            written: 0,
        });
        let partition = letter.source_partition % topic.partitions.len() as u32;
        let log = &mut topic.partitions[partition as usize];
        let offset = log.push(letter);
        if log.records.len() as u64 > limits::LETTERS_RETAINED_MAX {
            log.pop_front();
        }
        topic.written += 1;
        (partition, offset)
    }

    /// Records the broker wrote to group `g`'s share dead-letter topic.
    pub fn share_written(&self, g: usize) -> u64 {
        self.share.get(g).and_then(Option::as_ref).map_or(0, |t| t.written)
    }

    /// Group `g`'s share dead-letter topic's partition bounds; none before its first write.
    pub fn share_partitions(&self, g: usize) -> Vec<LetterPartitionView> {
        self.share.get(g).and_then(Option::as_ref).map_or_else(Vec::new, |topic| bounds(&topic.partitions))
    }

    /// Every record group `g`'s share dead-letter topic retains, partition by partition.
    pub fn share_records(&self, g: usize) -> Vec<ShareDeadLetterView> {
        let Some(topic) = self.share.get(g).and_then(Option::as_ref) else { return Vec::new() };
        let mut out = Vec::new();
        for (p, log) in topic.partitions.iter().enumerate() {
            for offset in log.present(log.log_start, log.log_end()) {
                let letter = *log.get(offset).expect("present");
                out.push(ShareDeadLetterView { partition: p as u32, offset, letter });
            }
        }
        out
    }

    /// Up to `count` letters of `partition` from `from`.
    pub fn records(&self, id: LetterTopicId, partition: u32, from: u64, count: u32) -> Vec<LetterRecordView> {
        let Some(log) = self.topic(id).and_then(|t| t.partitions.get(partition as usize)) else {
            return Vec::new();
        };
        log.present(from, from.saturating_add(u64::from(count)))
            .map(|offset| LetterRecordView { partition, offset, letter: *log.get(offset).expect("present") })
            .collect()
    }
}

/// Each partition's bounds, for a letter topic's view.
fn bounds<T: Clone>(partitions: &[PartitionLog<T>]) -> Vec<LetterPartitionView> {
    partitions
        .iter()
        .enumerate()
        .map(|(p, log)| LetterPartitionView {
            partition: p as u32,
            log_start: log.log_start,
            log_end: log.log_end(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn letter(group: u32, partition: u32, due_tick: Tick) -> Letter {
        Letter {
            record_id: 7,
            subject: 1,
            keyed: true,
            source_partition: partition,
            source_offset: 3,
            group,
            cause: "boom",
            consumer: ConsumerId(1),
            attempts: 1,
            written_tick: 0,
            due_tick,
            produced_tick: 0,
            poison: true,
            fails_first: 0,
            after_effect: false,
        }
    }

    #[test]
    fn a_retry_letter_waits_for_its_tick_and_holds_back_those_behind() {
        let mut letters = DeadLetters::new(2, 2, 1);
        let retry = LetterTopicId::Retry { level: 1 };
        assert_eq!(letters.handle_write(retry, letter(0, 1, 5)), 0);
        assert_eq!(letters.handle_write(retry, letter(1, 1, 2)), 1);
        assert_eq!(letters.handle_write(retry, letter(0, 1, 3)), 2);
        assert!(letters.poll_due(0, 1, 4, 10).is_empty(), "the first is due at 5");
        let due = letters.poll_due(0, 1, 5, 10);
        assert_eq!(due.iter().map(|d| d.offset).collect::<Vec<_>>(), vec![0, 2], "group 1's is passed over");
        assert_eq!(letters.poll_due(1, 1, 5, 10).len(), 1);
        assert!(letters.poll_due(0, 1, 9, 10).is_empty(), "read once");
    }

    #[test]
    fn the_replay_reads_its_groups_letters_from_the_start_once() {
        let mut letters = DeadLetters::new(1, 2, 0);
        letters.handle_write(LetterTopicId::DeadLetter, letter(0, 0, 0));
        letters.handle_write(LetterTopicId::DeadLetter, letter(1, 0, 0));
        assert!(letters.poll_replay(0, 10).is_empty(), "not started");
        letters.handle_replay_started(0);
        assert_eq!(letters.poll_replay(0, 10).len(), 1);
        assert!(letters.poll_replay(0, 10).is_empty());
        assert_eq!(letters.replay_positions(0), Some(vec![2]));
        letters.add_partitions(1);
        assert_eq!(letters.partitions(LetterTopicId::DeadLetter).len(), 2);
    }
}
