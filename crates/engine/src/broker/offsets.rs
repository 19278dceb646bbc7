//! A group's committed offsets, as the broker stores them (Kafka keeps them
//! in `__consumer_offsets`).

/// Committed offsets per partition of one group.
///
/// # Calling contract
/// [`OffsetStore::handle_commit`] stores an offset and returns the one it replaces;
/// the caller (the `Sim`) has checked it against the log end.
#[derive(Debug, Clone, Default)]
pub(crate) struct OffsetStore {
    committed: Vec<Option<u64>>,
    /// Since when the group has had no members (its offsets expire
    /// `offsets.retention` after that).
    empty_since: Option<u64>,
    /// The retention has run out since the group last became empty: the
    /// cleanup happened and does not happen again until it has members.
    cleaned: bool,
}

impl OffsetStore {
    pub fn new(partitions: u32) -> OffsetStore {
        OffsetStore { committed: vec![None; partitions as usize], empty_since: None, cleaned: false }
    }

    pub fn get(&self, partition: u32) -> Option<u64> {
        self.committed.get(partition as usize).copied().flatten()
    }

    pub fn handle_commit(&mut self, partition: u32, offset: u64) -> Option<u64> {
        self.committed[partition as usize].replace(offset)
    }

    /// The group's membership at `now`: its offsets' retention runs while
    /// it has no members, and starts again when it has one.
    pub fn handle_group_empty(&mut self, now: u64, empty: bool) {
        match (empty, self.empty_since) {
            (true, None) => self.empty_since = Some(now),
            (false, Some(_)) => {
                self.empty_since = None;
                self.cleaned = false;
            }
            _ => {}
        }
    }

    /// `offsets.retention`: once the group has had no members for
    /// `retention_ticks`, every committed offset is deleted (Kafka's
    /// `cleanupGroupMetadata`). Returns, once per empty spell, what expired
    /// in partition order (maybe nothing): the group has no offset left then.
    pub fn poll_expired(&mut self, now: u64, retention_ticks: u64) -> Option<Vec<(u32, u64)>> {
        let since = self.empty_since?;
        if self.cleaned || now.saturating_sub(since) < retention_ticks {
            return None;
        }
        self.cleaned = true;
        Some(
            self.committed
                .iter_mut()
                .enumerate()
                .filter_map(|(p, c)| c.take().map(|o| (p as u32, o)))
                .collect(),
        )
    }

    /// Whether the group has a committed offset for any partition.
    pub fn any(&self) -> bool {
        self.committed.iter().any(Option::is_some)
    }

    pub fn add_partitions(&mut self, added: u32) {
        self.committed.extend(std::iter::repeat_n(None, added as usize));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn a_commit_returns_what_it_replaces() {
        let mut offsets = OffsetStore::new(2);
        assert_eq!(offsets.get(0), None);
        assert_eq!(offsets.handle_commit(0, 4), None);
        assert_eq!(offsets.handle_commit(0, 2), Some(4));
        assert_eq!(offsets.get(0), Some(2));
        assert_eq!(offsets.get(7), None, "no such partition: nothing committed, no panic");
        offsets.add_partitions(1);
        assert_eq!(offsets.get(2), None);
    }

    #[test]
    fn offsets_expire_once_per_empty_spell() {
        let mut offsets = OffsetStore::new(2);
        offsets.handle_commit(1, 7);
        offsets.handle_group_empty(10, true);
        assert_eq!(offsets.poll_expired(14, 5), None, "not yet");
        assert_eq!(offsets.poll_expired(15, 5), Some(vec![(1, 7)]));
        assert!(!offsets.any());
        assert_eq!(offsets.poll_expired(16, 5), None, "cleaned once");
        offsets.handle_group_empty(17, false);
        offsets.handle_group_empty(18, true);
        assert_eq!(offsets.poll_expired(23, 5), Some(vec![]), "a new spell, nothing committed");
    }
}
