//! One partition of topic `orders`: an append-only log bounded by retention.

use std::collections::VecDeque;

/// A record as the log stores it, with the simulation's bookkeeping about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// Unique across the topic and increasing in production order.
    pub id: u64,
    pub produced_tick: u64,
    /// The subject the record is about (`user-N`); its Kafka key when `keyed`.
    pub subject: u32,
    pub keyed: bool,
    /// Times the application handled it.
    pub handled: u32,
    /// Counted as never processed: the group moved past it unhandled.
    pub lost: bool,
    /// In some consumer's fetched, unhandled batch.
    pub in_flight: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct PartitionLog {
    pub log_start: u64,
    pub records: VecDeque<Record>,
}

impl PartitionLog {
    pub fn log_end(&self) -> u64 {
        self.log_start + self.records.len() as u64
    }

    pub fn get(&self, offset: u64) -> Option<&Record> {
        let index = offset.checked_sub(self.log_start)?;
        self.records.get(usize::try_from(index).ok()?)
    }

    pub fn get_mut(&mut self, offset: u64) -> Option<&mut Record> {
        let index = offset.checked_sub(self.log_start)?;
        self.records.get_mut(usize::try_from(index).ok()?)
    }

    /// Appends and returns the new record's offset.
    pub fn append(&mut self, record: Record) -> u64 {
        if let Some(last) = self.records.back() {
            // Rule 1: offsets and production order both strictly increase.
            assert!(last.id < record.id, "records append in production order");
        }
        let offset = self.log_end();
        self.records.push_back(record);
        offset
    }

    /// The offsets `from..to` clamped to what the log still holds.
    pub fn present(&self, from: u64, to: u64) -> std::ops::Range<u64> {
        from.max(self.log_start)..to.min(self.log_end()).max(from.max(self.log_start))
    }
}
