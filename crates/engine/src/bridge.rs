//! The bridge target topic (seed 000): an application writes each handled
//! record to another system's topic whose wire format has no key. The key
//! picks the target partition on the way in and is then gone.

use crate::log::PartitionLog;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BridgePartitionView {
    pub partition: u32,
    pub log_start: u64,
    pub log_end: u64,
}

/// A record on the target side: the wire format has no key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BridgeRecordView {
    pub offset: u64,
    pub source_record_id: u64,
    /// Always `None`: the target's wire format has no field for it.
    pub key: Option<u32>,
}

/// The target topic, one partition per source partition, bounded by the
/// same retention; copy-on-write like the source logs.
///
/// # Calling contract
/// [`BridgeTopic::handle_write`] appends a record's id at the partition its key
/// chose and returns the offset.
#[derive(Debug, Clone, Default)]
pub(crate) struct BridgeTopic {
    partitions: Vec<PartitionLog<u64>>,
}

impl BridgeTopic {
    pub fn new(partitions: u32) -> BridgeTopic {
        BridgeTopic { partitions: vec![PartitionLog::default(); partitions as usize] }
    }

    pub fn add_partitions(&mut self, added: u32) {
        self.partitions.extend((0..added).map(|_| PartitionLog::default()));
    }

    pub fn handle_write(&mut self, partition: u32, source_record_id: u64, retention_records: u64) -> u64 {
        let log = &mut self.partitions[partition as usize];
        let offset = log.push(source_record_id);
        if log.records.len() as u64 > retention_records {
            log.pop_front();
        }
        offset
    }

    pub fn partitions(&self) -> Vec<BridgePartitionView> {
        self.partitions
            .iter()
            .enumerate()
            .map(|(p, log)| BridgePartitionView {
                partition: p as u32,
                log_start: log.log_start,
                log_end: log.log_end(),
            })
            .collect()
    }

    /// Up to `count` records of `partition` from `from`.
    pub fn records(&self, partition: u32, from: u64, count: u32) -> Vec<BridgeRecordView> {
        let Some(log) = self.partitions.get(partition as usize) else { return Vec::new() };
        log.present(from, from.saturating_add(u64::from(count)))
            .map(|offset| BridgeRecordView {
                offset,
                source_record_id: *log.get(offset).expect("present"),
                key: None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn writes_keep_no_key_and_respect_retention() {
        let mut bridge = BridgeTopic::new(1);
        for id in 0..4 {
            assert_eq!(bridge.handle_write(0, 100 + id, 3), id);
        }
        assert_eq!(bridge.partitions()[0], BridgePartitionView { partition: 0, log_start: 1, log_end: 4 });
        let records = bridge.records(0, 0, 10);
        assert_eq!(records.iter().map(|r| r.source_record_id).collect::<Vec<_>>(), vec![101, 102, 103]);
        assert!(records.iter().all(|r| r.key.is_none()));
    }
}
