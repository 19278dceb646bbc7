//! The tapes' windows: which records of a partition the page draws, and where a
//! following window starts (a pure function of the partition's view and the box's width).

use super::{TAPE_CELLS, TAPE_LEAD_CELLS};
use offsetlab_engine::{
    BridgeRecordView, LetterRecordView, LetterTopicId, PayoutRecordView, RecordView, ShareDeadLetterView,
    TransactionsView, View,
};

/// One tape's visible window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tape {
    pub partition: u32,
    /// The first offset in the window.
    pub from: u64,
    pub records: Vec<RecordView>,
    pub following: bool,
    /// Records still in the log before and after the window.
    pub hidden_before: u64,
    pub hidden_after: u64,
    /// Records after the cells the tape's box shows from the window's start:
    /// "Newer" has somewhere to go.
    pub newer_than_shown: u64,
}

/// One tape of the bridge target topic (its newest records).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BridgeTape {
    pub partition: u32,
    pub records: Vec<BridgeRecordView>,
    pub hidden_before: u64,
}

/// One partition of a dead-letter or retry topic that holds letters (its newest ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LetterTape {
    pub topic: LetterTopicId,
    /// `orders.DLT`, `orders-retry-1`, …
    pub name: String,
    pub partition: u32,
    pub records: Vec<LetterRecordView>,
    pub hidden_before: u64,
    pub log_end: u64,
}

/// One partition of a share group's dead-letter topic (KIP-1191) that holds
/// letters (its newest ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareLetterTape {
    /// The share group's index.
    pub group: u32,
    pub partition: u32,
    pub records: Vec<ShareDeadLetterView>,
    pub hidden_before: u64,
    pub log_end: u64,
}

/// One tape of the output topic payouts (its newest offsets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutTape {
    pub partition: u32,
    pub records: Vec<PayoutRecordView>,
    pub hidden_before: u64,
    /// Where a read_committed reader stops.
    pub last_stable_offset: u64,
    pub log_end: u64,
}

/// Exactly-once processing as the page draws it: the payouts tapes, the
/// members' transactional producers, what the downstream reader received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payouts {
    pub tapes: Vec<PayoutTape>,
    pub view: TransactionsView,
}

/// The lowest committed offset of any group on `partition`.
pub(super) fn lowest_committed(view: &View, partition: u32) -> Option<u64> {
    view.groups.iter().filter_map(|g| g.committed.get(partition as usize).copied().flatten()).min()
}

/// The first offset of the last window of a log: its newest `TAPE_CELLS`
/// offsets, or all of it when shorter.
pub(super) fn last_window_start(log_start: u64, log_end: u64) -> u64 {
    log_end.saturating_sub(TAPE_CELLS).max(log_start)
}

/// The furthest a tape's window starts: where its box, showing `shown` cells,
/// ends at the log end.
pub(super) fn last_shown_start(log_start: u64, log_end: u64, shown: u64) -> u64 {
    log_end.saturating_sub(shown).max(log_start)
}

/// The first offset a tape shows, its box showing `shown` cells from there:
/// where the user scrolled, or, following, a few cells before the committed
/// offset (or the cursor, if behind it), sliding to keep the log end in the
/// box when it fits. `behind`, the lowest committed offset of any group on
/// the partition, is kept in view as well (several groups read one tape). A
/// share group's tape does not slide: its in-flight records, from the start
/// offset on, are what there is to see, and they sit at the log end.
#[must_use]
pub fn tape_window_start(
    p: &offsetlab_engine::PartitionView,
    scroll: Option<u64>,
    share: bool,
    shown: u64,
    behind: Option<u64>,
) -> u64 {
    let last = last_shown_start(p.log_start, p.log_end, shown);
    match scroll {
        Some(from) => from.clamp(p.log_start, last),
        None => {
            let committed = p.held.unwrap_or(p.log_start);
            let anchor = p.position.map_or(committed, |position| position.min(committed));
            let anchor = behind.map_or(anchor, |behind| behind.min(anchor));
            // A few cells of context before it, fewer in a narrow box (a phone's shows about
            // four), so the anchor itself stays in the box.
            let lead = TAPE_LEAD_CELLS.min(shown / 4);
            let from = anchor.saturating_sub(lead);
            if share { from.max(p.log_start) } else { from.min(last).max(p.log_start) }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use offsetlab_engine::PartitionView;

    fn partition(log_end: u64, committed: u64, position: u64) -> PartitionView {
        PartitionView {
            partition: 0,
            log_start: 0,
            log_end,
            committed: Some(committed),
            held: Some(committed),
            lag: Some(log_end - committed),
            owner: None,
            owner_alive: true,
            position: Some(position),
            oldest_unprocessed_age: 0,
        }
    }

    /// A box 16 cells wide: the log end is in it when the lag fits, the committed offset
    /// (a few cells in) when it does not; a scrolled window stays where it was put.
    #[test]
    fn a_following_window_holds_the_newest_records_its_box_can() {
        // 30 records, all but 2 committed: the box ends at the log end.
        assert_eq!(tape_window_start(&partition(30, 28, 29), None, false, 16, None), 14);
        // 60 records, committed at 20: the box starts 4 cells before it; the log end is further.
        assert_eq!(tape_window_start(&partition(60, 20, 24), None, false, 16, None), 16);
        // The cursor behind the commit (a reset backwards) anchors instead.
        assert_eq!(tape_window_start(&partition(60, 20, 10), None, false, 16, None), 6);
        // Another group further behind is kept in the box too.
        assert_eq!(tape_window_start(&partition(60, 40, 41), None, false, 16, Some(30)), 26);
        // Scrolled: clamped to where the box ends at the log end.
        assert_eq!(tape_window_start(&partition(60, 40, 41), Some(3), false, 16, None), 3);
        assert_eq!(tape_window_start(&partition(60, 40, 41), Some(59), false, 16, None), 44);
        // Fewer records than the box: from the log start.
        assert_eq!(tape_window_start(&partition(5, 2, 3), None, false, 16, None), 0);
        // A phone's box, three cells: no lead, so the committed offset is the box's first cell.
        assert_eq!(tape_window_start(&partition(60, 20, 24), None, false, 3, None), 20);
    }
}
