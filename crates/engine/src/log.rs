//! One partition's log: an append-only sequence bounded by retention, in
//! copy-on-write chunks so time-travel snapshots share it.

use std::collections::VecDeque;
use std::rc::Rc;

/// A record as the log stores it: plain data, nothing about who read it
/// (each group's observer keeps that, see `crate::observe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Record {
    /// Unique across the topic and increasing in production order.
    pub id: u64,
    pub produced_tick: u64,
    /// The subject the record is about (`user-N`); its Kafka key when `keyed`.
    pub subject: u32,
    pub keyed: bool,
    /// Every application's handler fails on it (`Input::SendPoison`).
    pub poison: bool,
    /// A handler that fails on its first attempts (`Input::SendFailing`).
    pub failing: Failing,
    /// Written again by the producer: its id was already in the partition's
    /// log when it was appended (a retry without idempotence).
    pub producer_copy: bool,
    /// Appended after a later-sent record of the partition (a retry that
    /// overtook nothing but was overtaken), and not a copy.
    pub producer_reordered: bool,
}

impl Record {
    /// The producer wrote it out of its send order or twice: only then may
    /// its id be below an earlier offset's.
    pub fn out_of_send_order(&self) -> bool {
        self.producer_copy || self.producer_reordered
    }
}

/// How a record makes the handler fail besides poison (`Input::SendFailing`):
/// at its first `first` attempts in each group, each one's payout made
/// before the failure when `after_effect`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Failing {
    pub first: u8,
    pub after_effect: bool,
}

/// A log of `T` from `log_start`: the topic's partitions hold records, each
/// group's observer holds its marks about them in a log of its own, aligned
/// offset for offset.
#[derive(Debug, Clone)]
pub(crate) struct PartitionLog<T: Clone = Record> {
    pub log_start: u64,
    pub records: Chunks<T>,
}

impl<T: Clone> Default for PartitionLog<T> {
    fn default() -> Self {
        PartitionLog { log_start: 0, records: Chunks::default() }
    }
}

/// Records per chunk: a power of two (indexing is a shift), and small enough
/// that copying one chunk on write after a snapshot is cheap (8 KiB of records).
pub(crate) const CHUNK_RECORDS: usize = 256;

/// A deque in shared, copy-on-write chunks of [`CHUNK_RECORDS`].
///
/// Why: time travel keeps snapshots of the whole simulation, and the logs are
/// most of it (up to millions of records). Cloning a `Chunks` copies only the
/// chunk pointers; a chunk is copied when it is next written while shared, and
/// only the chunks near the consumers' positions and the log end are written.
/// `Rc`, not `Arc`: a simulation lives on one thread, and the atomic count
/// checked on every write cost a quarter of the throughput.
#[derive(Debug, Clone)]
pub(crate) struct Chunks<T: Clone> {
    chunks: VecDeque<Rc<Vec<T>>>,
    /// Items already popped from the front chunk.
    skip: usize,
    len: usize,
}

/// `Rc::make_mut` with its common case inlined: the chunk written is one no
/// snapshot shares, and the call (made for every record appended and every
/// record handled) cost more than the check.
#[inline]
fn unshared<T: Clone>(chunk: &mut Rc<Vec<T>>) -> &mut Vec<T> {
    if Rc::get_mut(chunk).is_none() {
        return Rc::make_mut(chunk);
    }
    Rc::get_mut(chunk).expect("not shared")
}

impl<T: Clone> Default for Chunks<T> {
    fn default() -> Self {
        Chunks { chunks: VecDeque::new(), skip: 0, len: 0 }
    }
}

impl<T: Clone> Chunks<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn locate(&self, index: usize) -> Option<(usize, usize)> {
        (index < self.len).then(|| {
            let at = self.skip + index;
            (at / CHUNK_RECORDS, at % CHUNK_RECORDS)
        })
    }

    #[inline]
    pub fn get(&self, index: usize) -> Option<&T> {
        let (chunk, within) = self.locate(index)?;
        self.chunks[chunk].get(within)
    }

    /// Copies the chunk first if a snapshot shares it.
    #[inline]
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let (chunk, within) = self.locate(index)?;
        unshared(&mut self.chunks[chunk]).get_mut(within)
    }

    /// The last item: the last chunk's last (no chunk is kept empty, and a
    /// `Chunks` with no items has no chunks), without locating it by index.
    #[inline]
    pub fn back(&self) -> Option<&T> {
        debug_assert_eq!(self.chunks.back().and_then(|c| c.last()).is_some(), self.len > 0);
        self.chunks.back().and_then(|c| c.last())
    }

    #[inline]
    pub fn push_back(&mut self, item: T) {
        match self.chunks.back_mut() {
            Some(last) if last.len() < CHUNK_RECORDS => unshared(last).push(item),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK_RECORDS);
                chunk.push(item);
                self.chunks.push_back(Rc::new(chunk));
            }
        }
        self.len += 1;
        debug_assert_eq!(self.skip + self.len, self.chunks.iter().map(|c| c.len()).sum::<usize>());
    }

    /// Removes the front item; a chunk goes once all of it is popped.
    pub fn pop_front(&mut self) -> Option<T> {
        let item = self.get(0)?.clone();
        self.len -= 1;
        self.skip += 1;
        if self.skip == CHUNK_RECORDS || self.len == 0 {
            self.chunks.pop_front();
            self.skip = 0;
        }
        if self.len == 0 {
            self.chunks.clear();
        }
        Some(item)
    }

    /// Calls `f` on the items at `range` (clamped to the length), copying each
    /// shared chunk once rather than once per item.
    pub fn for_each_mut(&mut self, range: std::ops::Range<usize>, mut f: impl FnMut(&mut T)) {
        let (mut at, end) = (range.start, range.end.min(self.len));
        while at < end {
            let (chunk, within) = self.locate(at).expect("in range");
            let items = Rc::make_mut(&mut self.chunks[chunk]);
            let take = (items.len() - within).min(end - at);
            items[within..within + take].iter_mut().for_each(&mut f);
            at += take;
        }
    }

    /// Appends `n` copies of `item`, a chunk at a time.
    pub fn extend_with(&mut self, n: usize, item: T) {
        let mut left = n;
        while left > 0 {
            let room = match self.chunks.back() {
                Some(last) if last.len() < CHUNK_RECORDS => CHUNK_RECORDS - last.len(),
                _ => {
                    self.chunks.push_back(Rc::new(Vec::with_capacity(CHUNK_RECORDS)));
                    CHUNK_RECORDS
                }
            };
            let take = room.min(left);
            let last = Rc::make_mut(self.chunks.back_mut().expect("a chunk with room"));
            last.extend(std::iter::repeat_n(item.clone(), take));
            self.len += take;
            left -= take;
        }
    }

    /// Removes the first `n` items (at most all): whole chunks go at once.
    pub fn truncate_front(&mut self, n: usize) {
        let n = n.min(self.len);
        self.len -= n;
        self.skip += n;
        let whole = self.skip / CHUNK_RECORDS;
        self.chunks.drain(..whole);
        self.skip %= CHUNK_RECORDS;
        if self.len == 0 {
            self.chunks.clear();
            self.skip = 0;
        }
        debug_assert_eq!(self.skip + self.len, self.chunks.iter().map(|c| c.len()).sum::<usize>());
    }

    /// Keeps the first `n` items (at most all): whole chunks at the back go
    /// at once; the chunk the cut falls in is copied only if a snapshot
    /// shares it (copy-on-write, as every other write).
    pub fn truncate_back(&mut self, n: usize) {
        if n >= self.len {
            return;
        }
        self.len = n;
        let keep = self.skip + n;
        if n == 0 {
            self.chunks.clear();
            self.skip = 0;
            return;
        }
        let chunks = keep.div_ceil(CHUNK_RECORDS);
        self.chunks.truncate(chunks);
        let within = keep - (chunks - 1) * CHUNK_RECORDS;
        let last = self.chunks.back_mut().expect("a chunk holds the kept items");
        if last.len() > within {
            Rc::make_mut(last).truncate(within);
        }
        debug_assert_eq!(self.skip + self.len, self.chunks.iter().map(|c| c.len()).sum::<usize>());
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter()).skip(self.skip)
    }

    /// How many chunks `self` and `other` still share (for tests of copy-on-write).
    #[cfg(test)]
    pub fn shared_chunks(&self, other: &Chunks<T>) -> usize {
        self.chunks.iter().filter(|c| other.chunks.iter().any(|o| Rc::ptr_eq(c, o))).count()
    }
}

impl<'a, T: Clone> IntoIterator for &'a Chunks<T> {
    type Item = &'a T;
    type IntoIter = Box<dyn Iterator<Item = &'a T> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<T: Clone> PartitionLog<T> {
    #[inline]
    pub fn log_end(&self) -> u64 {
        self.log_start + self.records.len() as u64
    }

    #[inline]
    pub fn get(&self, offset: u64) -> Option<&T> {
        let index = offset.checked_sub(self.log_start)?;
        self.records.get(usize::try_from(index).ok()?)
    }

    /// Copies the chunk first if a snapshot shares it: read with `get` first
    /// and write only what changes, so snapshots keep sharing the rest.
    #[inline]
    pub fn get_mut(&mut self, offset: u64) -> Option<&mut T> {
        let index = offset.checked_sub(self.log_start)?;
        self.records.get_mut(usize::try_from(index).ok()?)
    }

    /// Appends and returns the new item's offset.
    #[inline]
    pub fn push(&mut self, item: T) -> u64 {
        let offset = self.log_end();
        self.records.push_back(item);
        offset
    }

    /// Deletes the first item (retention), moving the log start.
    pub fn pop_front(&mut self) -> Option<T> {
        let item = self.records.pop_front()?;
        self.log_start += 1;
        Some(item)
    }

    /// Calls `f` on the items at offsets `from..to` (clamped to the log).
    pub fn for_each_mut(&mut self, from: u64, to: u64, f: impl FnMut(&mut T)) {
        let range = self.present(from, to);
        let start = (range.start - self.log_start) as usize;
        let end = (range.end - self.log_start) as usize;
        self.records.for_each_mut(start..end, f);
    }

    /// Deletes everything before `offset` (retention), moving the log start
    /// there (past the end too: a log that trails another, like an observer's
    /// marks, is then empty from `offset`).
    pub fn delete_before(&mut self, offset: u64) {
        let n = offset.saturating_sub(self.log_start).min(self.records.len() as u64);
        self.records.truncate_front(n as usize);
        self.log_start = (self.log_start + n).max(offset);
    }

    /// Deletes everything at or past `offset` (a new leader's log is
    /// shorter: leader-epoch truncation). A cut before the log start empties
    /// the log and moves its start back there, so the log end is the cut.
    pub fn truncate_to(&mut self, offset: u64) {
        if offset < self.log_start {
            self.records.truncate_back(0);
            self.log_start = offset;
            return;
        }
        self.records.truncate_back((offset - self.log_start) as usize);
    }

    /// The offsets `from..to` clamped to what the log still holds.
    pub fn present(&self, from: u64, to: u64) -> std::ops::Range<u64> {
        from.max(self.log_start)..to.min(self.log_end()).max(from.max(self.log_start))
    }
}

impl PartitionLog<Record> {
    /// Appends and returns the new record's offset.
    #[inline]
    pub fn append(&mut self, record: Record) -> u64 {
        if let Some(last) = self.records.back() {
            // Rule 1: offsets and production order both strictly increase,
            // unless the producer's delivery path wrote it twice or out of order.
            assert!(last.id < record.id || record.out_of_send_order(), "records append in production order");
        }
        self.push(record)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    /// `Chunks` behaves as a `VecDeque`, and a clone is unaffected by later writes.
    #[test]
    fn truncate_to_cuts_the_back_and_copies_only_a_shared_cut_chunk() {
        let mut log: PartitionLog<u32> = PartitionLog::default();
        for i in 0..600 {
            log.push(i);
        }
        log.delete_before(10);
        let snapshot = log.clone();
        log.truncate_to(300);
        assert_eq!((log.log_start, log.log_end()), (10, 300));
        assert_eq!(log.get(299), Some(&299));
        assert_eq!(log.get(300), None);
        assert_eq!(log.records.shared_chunks(&snapshot.records), 1, "the first chunk stays shared");
        assert_eq!(snapshot.log_end(), 600, "the snapshot keeps its records");
        log.push(7);
        assert_eq!(log.get(300), Some(&7));
        log.truncate_to(5);
        assert_eq!((log.log_start, log.log_end()), (5, 5));
        log.truncate_to(512);
        assert_eq!(log.log_end(), 5, "a cut past the end changes nothing");
    }

    #[test]
    fn chunks_behave_as_a_deque_and_clones_are_independent() {
        let mut chunks = Chunks::default();
        let mut model = VecDeque::new();
        let mut snapshots = Vec::new();
        for i in 0..3000u64 {
            chunks.push_back(i);
            model.push_back(i);
            if i % 7 == 0 {
                assert_eq!(chunks.pop_front(), model.pop_front());
            }
            if i % 11 == 0 && !model.is_empty() {
                let index = (i as usize * 31) % model.len();
                *chunks.get_mut(index).unwrap() += 1_000_000;
                model[index] += 1_000_000;
            }
            if i % 500 == 0 {
                snapshots.push((chunks.clone(), model.clone()));
            }
            assert_eq!(chunks.len(), model.len());
            assert_eq!(chunks.back(), model.back());
        }
        assert!(chunks.iter().eq(model.iter()));
        assert_eq!(chunks.get(model.len()), None);
        for (chunks, model) in &snapshots {
            assert!(chunks.iter().eq(model.iter()), "a snapshot keeps its contents");
            assert!((0..model.len()).all(|i| chunks.get(i) == model.get(i)));
        }
        while let Some(item) = model.pop_front() {
            assert_eq!(chunks.pop_front(), Some(item));
        }
        assert_eq!(chunks.pop_front(), None);
        chunks.push_back(7);
        assert_eq!(chunks.get(0), Some(&7));
        // Truncating the front drops whole chunks at once and keeps the rest.
        let mut chunks = Chunks::default();
        for i in 0..1000u64 {
            chunks.push_back(i);
        }
        chunks.truncate_front(300);
        assert_eq!((chunks.len(), chunks.get(0)), (700, Some(&300)));
        chunks.truncate_front(212);
        assert_eq!((chunks.len(), chunks.get(0)), (488, Some(&512)));
        assert!(chunks.iter().copied().eq(512..1000));
        // In-place writes over a range and bulk appends match item by item.
        let copy = chunks.clone();
        chunks.for_each_mut(10..300, |v| *v += 1);
        assert!((0..chunks.len()).all(|i| chunks.get(i).copied() == copy.get(i).map(|v| v + u64::from((10..300).contains(&i)))));
        assert!(copy.iter().copied().eq(512..1000), "the clone is untouched");
        chunks.extend_with(600, 7);
        assert_eq!(chunks.len(), 488 + 600);
        assert!((488..1088).all(|i| chunks.get(i) == Some(&7)));
        chunks.truncate_front(10_000);
        assert_eq!(chunks.len(), 0);
        chunks.push_back(1);
        assert_eq!(chunks.get(0), Some(&1));
    }
}
