//! The topic `orders`: its partitions' logs, bounded by retention.

use crate::log::{PartitionLog, Record};

/// The topic's partitions.
///
/// # Calling contract
/// - [`Topic::handle_produce`] adds a record at a partition's log end and returns its offset.
/// - [`Topic::poll_retention`] says what retention will delete, so each
///   group's observer can count what it never handled while the records are
///   still there; [`Topic::handle_delete`] then deletes it.
/// - [`Topic::handle_fetch`] answers a fetch: the records in a range, as plain values.
/// - [`Topic::add_partitions`] grows the topic (`kafka-topics --alter`).
#[derive(Debug, Clone)]
pub(crate) struct Topic {
    partitions: Vec<PartitionLog>,
    retention_records: u64,
}

/// What retention is about to delete from one partition: every offset
/// before `new_log_start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deleted {
    pub partition: u32,
    pub new_log_start: u64,
}

impl Topic {
    pub fn new(partitions: u32, retention_records: u64) -> Topic {
        Topic { partitions: vec![PartitionLog::default(); partitions as usize], retention_records }
    }

    pub fn partition_count(&self) -> u32 {
        self.partitions.len() as u32
    }

    pub fn retention_records(&self) -> u64 {
        self.retention_records
    }

    pub fn log(&self, partition: u32) -> Option<&PartitionLog> {
        self.partitions.get(partition as usize)
    }

    pub fn log_start(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].log_start
    }

    pub fn log_end(&self, partition: u32) -> u64 {
        self.partitions[partition as usize].log_end()
    }

    pub fn get(&self, partition: u32, offset: u64) -> Option<&Record> {
        self.partitions.get(partition as usize)?.get(offset)
    }

    #[inline]
    pub fn handle_produce(&mut self, partition: u32, record: Record) -> u64 {
        self.partitions[partition as usize].append(record)
    }

    /// The records at `from..to` of `partition` (a fetch response).
    pub fn handle_fetch(
        &self,
        partition: u32,
        from: u64,
        to: u64,
    ) -> impl Iterator<Item = (u64, Record)> + '_ {
        let log = &self.partitions[partition as usize];
        log.present(from, to).map(|o| (o, *log.get(o).expect("present")))
    }

    /// What retention deletes now: per partition past retention, the new log start.
    pub fn poll_retention(&self) -> Vec<Deleted> {
        let retention = self.retention_records;
        self.partitions
            .iter()
            .enumerate()
            .filter(|(_, log)| log.records.len() as u64 > retention)
            .map(|(p, log)| Deleted { partition: p as u32, new_log_start: log.log_end() - retention })
            .collect()
    }

    pub fn handle_delete(&mut self, deleted: Deleted) {
        self.partitions[deleted.partition as usize].delete_before(deleted.new_log_start);
    }

    /// A new leader's log is shorter: everything at or past `offset` goes.
    pub fn truncate_to(&mut self, partition: u32, offset: u64) {
        self.partitions[partition as usize].truncate_to(offset);
    }

    pub fn add_partitions(&mut self, added: u32) {
        self.partitions.extend((0..added).map(|_| PartitionLog::default()));
    }

    /// Every retained record, for the invariant checks.
    pub fn check(&self) {
        for (p, log) in self.partitions.iter().enumerate() {
            assert!(log.records.len() as u64 <= self.retention_records, "P{p} holds more than retention");
            // Ids increase along offsets except where the producer's delivery
            // path wrote a record twice or after a later-sent one (flagged).
            let mut highest: Option<u64> = None;
            for r in &log.records {
                assert!(
                    highest.is_none_or(|id| id < r.id) || r.out_of_send_order(),
                    "partition {p}: ids increase with offsets"
                );
                highest = Some(highest.map_or(r.id, |h| h.max(r.id)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn record(id: u64) -> Record {
        Record {
            id,
            produced_tick: id,
            subject: 0,
            keyed: true,
            poison: false,
            failing: crate::log::Failing::default(),
            producer_copy: false,
            producer_reordered: false,
        }
    }

    #[test]
    fn appends_reads_and_deletes_past_retention() {
        let mut topic = Topic::new(2, 3);
        for id in 0..5 {
            assert_eq!(topic.handle_produce(1, record(id)), id);
        }
        assert_eq!(
            topic.handle_fetch(1, 1, 3).map(|(o, r)| (o, r.id)).collect::<Vec<_>>(),
            vec![(1, 1), (2, 2)]
        );
        let deleted = topic.poll_retention();
        assert_eq!(
            deleted,
            vec![Deleted { partition: 1, new_log_start: 2 }],
            "only the partition past retention"
        );
        topic.handle_delete(deleted[0]);
        assert_eq!((topic.log_start(1), topic.log_end(1)), (2, 5));
        // A read clamps to what is retained.
        assert_eq!(topic.handle_fetch(1, 0, 3).count(), 1);
        topic.add_partitions(2);
        assert_eq!(topic.partition_count(), 4);
        assert_eq!(topic.log_end(3), 0);
        topic.check();
    }
}
