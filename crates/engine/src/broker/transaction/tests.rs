#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

const ID: &str = "payouts-app";
const PID: ProducerId = ProducerId(1000);

fn coordinator(version: TransactionVersion) -> TransactionCoordinator {
    TransactionCoordinator::new(TxnCoordinatorConfig {
        transaction_version: version,
        ..TxnCoordinatorConfig::new(1000)
    })
}

fn pe(epoch: u32) -> ProducerIdAndEpoch {
    ProducerIdAndEpoch { producer_id: PID, epoch }
}

fn drain(c: &mut TransactionCoordinator) -> Vec<TxnOutput> {
    std::iter::from_fn(|| c.poll_output()).collect()
}

/// Writes every queued marker, as the caller routes them.
fn write_markers(c: &mut TransactionCoordinator) -> Vec<TxnOutput> {
    let outputs = drain(c);
    for o in &outputs {
        if let TxnOutput::WriteMarker { target, marker, .. } = o {
            c.handle_marker_written(marker.producer_id, *target);
        }
    }
    c.check();
    let mut all = outputs;
    all.extend(drain(c));
    all
}

fn state(c: &TransactionCoordinator) -> TxnState {
    c.describe(ID).unwrap().0
}

/// `handleInitProducerId`: a new producer id with epoch 0 the first time, the
/// same id with the epoch bumped by each later init.
#[test]
fn init_hands_out_a_producer_id_then_bumps_its_epoch() {
    let mut c = coordinator(TransactionVersion::V2);
    assert_eq!(c.handle_init_producer_id(ID, 60, None, 0), Ok(pe(0)));
    assert_eq!(c.handle_init_producer_id(ID, 60, None, 1), Ok(pe(1)));
    let other = c.handle_init_producer_id("other", 60, None, 1).unwrap();
    assert_eq!(other, ProducerIdAndEpoch { producer_id: ProducerId(1001), epoch: 0 });
    assert_eq!(c.handle_init_producer_id(ID, 0, None, 1), Err(TxnError::InvalidTransactionTimeout));
    assert_eq!(c.handle_init_producer_id(ID, 901, None, 1), Err(TxnError::InvalidTransactionTimeout));
}

/// The zombie: after a new instance's init, the old epoch's requests are
/// `PRODUCER_FENCED`, its commit included.
#[test]
fn a_new_instance_fences_the_old_one() {
    let mut c = coordinator(TransactionVersion::V2);
    let old = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    let new = c.handle_init_producer_id(ID, 60, None, 1).unwrap();
    assert_eq!(c.handle_add_partitions(ID, old, &[0], 2), Err(TxnError::ProducerFenced));
    assert_eq!(c.handle_end_txn(ID, old, TxnResult::Commit, 2), Err(TxnError::ProducerFenced));
    assert_eq!(c.handle_add_offsets(ID, old, 0, 2), Err(TxnError::ProducerFenced));
    assert_eq!(c.handle_add_partitions(ID, new, &[0], 2), Ok(()));
    let wrong = ProducerIdAndEpoch { producer_id: ProducerId(7), epoch: new.epoch };
    assert_eq!(c.handle_add_partitions(ID, wrong, &[0], 2), Err(TxnError::InvalidProducerIdMapping));
    assert_eq!(
        c.handle_end_txn("nobody", new, TxnResult::Commit, 2),
        Err(TxnError::InvalidProducerIdMapping)
    );
}

/// `prepareInitProducerIdTransit`, `Ongoing`: the old instance's transaction
/// is aborted with a fenced epoch, and the new instance told to retry
/// (`CONCURRENT_TRANSACTIONS`) until the markers are written; its retry then
/// bumps the epoch once more.
#[test]
fn init_aborts_the_previous_instances_ongoing_transaction_first() {
    let mut c = coordinator(TransactionVersion::V2);
    let old = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    c.handle_add_partitions(ID, old, &[0, 2], 1).unwrap();
    assert_eq!(c.handle_init_producer_id(ID, 60, None, 5), Err(TxnError::ConcurrentTransactions));
    assert_eq!(state(&c), TxnState::PrepareAbort);
    // Fenced (0 → 1), then the abort of version 2 bumps again (→ 2).
    let outputs = drain(&mut c);
    assert_eq!(
        outputs,
        [
            TxnOutput::WriteMarker {
                target: TxnTarget::Partition(0),
                marker: pe(2),
                result: TxnResult::Abort
            },
            TxnOutput::WriteMarker {
                target: TxnTarget::Partition(2),
                marker: pe(2),
                result: TxnResult::Abort
            },
        ]
    );
    assert_eq!(
        c.handle_init_producer_id(ID, 60, None, 6),
        Err(TxnError::ConcurrentTransactions),
        "markers pending"
    );
    c.handle_marker_written(PID, TxnTarget::Partition(0));
    assert_eq!(state(&c), TxnState::PrepareAbort);
    c.handle_marker_written(PID, TxnTarget::Partition(2));
    assert_eq!(state(&c), TxnState::CompleteAbort);
    assert_eq!(c.handle_init_producer_id(ID, 60, None, 7), Ok(pe(3)));
    assert_eq!(
        c.handle_end_txn(ID, old, TxnResult::Commit, 7),
        Err(TxnError::ProducerFenced),
        "the zombie's commit"
    );
}

/// The same with transaction version 1: fencing bumps once, and the abort
/// does not bump again.
#[test]
fn version_1_fences_with_one_bump() {
    let mut c = coordinator(TransactionVersion::V1);
    let old = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    c.handle_add_partitions(ID, old, &[1], 1).unwrap();
    assert_eq!(c.handle_init_producer_id(ID, 60, None, 2), Err(TxnError::ConcurrentTransactions));
    assert_eq!(
        drain(&mut c),
        [TxnOutput::WriteMarker { target: TxnTarget::Partition(1), marker: pe(1), result: TxnResult::Abort }]
    );
    c.handle_marker_written(PID, TxnTarget::Partition(1));
    assert_eq!(c.handle_init_producer_id(ID, 60, None, 3), Ok(pe(2)));
}

/// KIP-890: with transaction version 2 every EndTxn bumps the epoch; the
/// markers carry the new epoch and the answer tells the producer.
#[test]
fn version_2_bumps_the_epoch_with_every_transaction() {
    let mut c = coordinator(TransactionVersion::V2);
    let mut p = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    for round in 0..3 {
        c.handle_add_partitions(ID, p, &[0], 1).unwrap();
        let next = c.handle_end_txn(ID, p, TxnResult::Commit, 2).unwrap();
        assert_eq!(next.epoch, p.epoch + 1, "round {round}");
        assert_eq!(
            write_markers(&mut c),
            [TxnOutput::WriteMarker {
                target: TxnTarget::Partition(0),
                marker: next,
                result: TxnResult::Commit
            }]
        );
        // The last epoch's requests are now a zombie's.
        assert_eq!(c.handle_add_partitions(ID, p, &[0], 3), Err(TxnError::ProducerFenced));
        p = next;
    }
    assert_eq!(p.epoch, 3);
}

/// Version 1 keeps the epoch across transactions.
#[test]
fn version_1_keeps_the_epoch() {
    let mut c = coordinator(TransactionVersion::V1);
    let p = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    c.handle_add_partitions(ID, p, &[0], 1).unwrap();
    assert_eq!(c.handle_end_txn(ID, p, TxnResult::Abort, 2), Ok(p));
    write_markers(&mut c);
    assert_eq!(state(&c), TxnState::CompleteAbort);
    // A retry of the completed abort is answered again; a commit is not.
    assert_eq!(c.handle_end_txn(ID, p, TxnResult::Abort, 3), Ok(p));
    assert_eq!(c.handle_end_txn(ID, p, TxnResult::Commit, 3), Err(TxnError::InvalidTxnState));
    assert_eq!(c.handle_end_txn(ID, p, TxnResult::Abort, 3).map(|_| state(&c)), Ok(TxnState::CompleteAbort));
}

/// `endTransaction`'s version 2 table (Empty, CompleteAbort, CompleteCommit
/// × Abort/Commit × retry/current) and the prepare states.
#[test]
fn version_2_end_txn_table() {
    let mut c = coordinator(TransactionVersion::V2);
    let p0 = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    // Empty: commit ITS, abort EB (an empty abort completes at once).
    assert_eq!(c.handle_end_txn(ID, p0, TxnResult::Commit, 1), Err(TxnError::InvalidTxnState));
    let p1 = c.handle_end_txn(ID, p0, TxnResult::Abort, 1).unwrap();
    assert_eq!((p1.epoch, state(&c)), (1, TxnState::CompleteAbort));
    assert!(drain(&mut c).is_empty(), "no partitions, no markers");
    // CompleteAbort: abort retry NONE, abort current EB, commit ITS.
    assert_eq!(c.handle_end_txn(ID, p0, TxnResult::Abort, 2), Ok(p1));
    assert_eq!(c.handle_end_txn(ID, p0, TxnResult::Commit, 2), Err(TxnError::InvalidTxnState));
    assert_eq!(c.handle_end_txn(ID, p1, TxnResult::Commit, 2), Err(TxnError::InvalidTxnState));
    // An epoch from neither: fenced.
    assert_eq!(c.handle_end_txn(ID, pe(9), TxnResult::Abort, 2), Err(TxnError::ProducerFenced));
    // Commit a transaction: PrepareCommit, then the retry with the old epoch
    // while the markers are pending.
    c.handle_add_partitions(ID, p1, &[3], 3).unwrap();
    let p2 = c.handle_end_txn(ID, p1, TxnResult::Commit, 3).unwrap();
    assert_eq!(c.handle_end_txn(ID, p1, TxnResult::Commit, 3), Err(TxnError::ConcurrentTransactions));
    assert_eq!(c.handle_end_txn(ID, p1, TxnResult::Abort, 3), Err(TxnError::InvalidTxnState));
    assert_eq!(c.handle_end_txn(ID, p2, TxnResult::Commit, 3), Err(TxnError::ProducerFenced));
    assert_eq!(c.handle_add_partitions(ID, p2, &[3], 3), Err(TxnError::ConcurrentTransactions));
    write_markers(&mut c);
    // CompleteCommit: commit retry NONE, abort retry ITS, commit current ITS, abort current EB.
    assert_eq!(c.handle_end_txn(ID, p1, TxnResult::Commit, 4), Ok(p2));
    assert_eq!(c.handle_end_txn(ID, p1, TxnResult::Abort, 4), Err(TxnError::InvalidTxnState));
    assert_eq!(c.handle_end_txn(ID, p2, TxnResult::Commit, 4), Err(TxnError::InvalidTxnState));
    assert_eq!(c.handle_end_txn(ID, p2, TxnResult::Abort, 4).map(|p| p.epoch), Ok(3));
}

/// KIP-360: an init that names the epoch it had bumps from it, a retry of a
/// successful init (naming the epoch before) is answered without a second
/// bump, and another epoch is fenced.
#[test]
fn init_with_an_expected_epoch() {
    let mut c = coordinator(TransactionVersion::V1);
    let p0 = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    let p1 = c.handle_init_producer_id(ID, 60, Some(p0), 1).unwrap();
    assert_eq!(p1.epoch, 1);
    assert_eq!(c.handle_init_producer_id(ID, 60, Some(p0), 2), Ok(p1), "a retry");
    assert_eq!(c.handle_init_producer_id(ID, 60, Some(pe(7)), 2), Err(TxnError::ProducerFenced));
    let stranger = ProducerIdAndEpoch { producer_id: ProducerId(5), epoch: 1 };
    assert_eq!(c.handle_init_producer_id(ID, 60, Some(stranger), 2), Err(TxnError::ProducerFenced));
    // A new instance (no expected epoch) forgets the last epoch: the old
    // instance's retry is fenced now.
    c.handle_init_producer_id(ID, 60, None, 3).unwrap();
    assert_eq!(c.handle_init_producer_id(ID, 60, Some(p1), 4), Err(TxnError::ProducerFenced));
}

/// Consume-transform-produce: offsets committed in the transaction are held
/// pending and committed when the COMMIT marker reaches the group.
#[test]
fn transactional_offsets_commit_with_the_marker() {
    let mut c = coordinator(TransactionVersion::V2);
    let p = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    c.handle_add_partitions(ID, p, &[1], 1).unwrap();
    // Version 2: no AddOffsetsToTxn, the commit adds the group.
    c.handle_txn_offset_commit(ID, p, 0, Generations { member: 4, group: 4 }, &[(0, 10), (1, 3)], 1).unwrap();
    c.handle_txn_offset_commit(ID, p, 0, Generations { member: 4, group: 4 }, &[(0, 12)], 1).unwrap();
    assert_eq!(c.pending_offsets(ID, 0), [(0, 12), (1, 3)]);
    let next = c.handle_end_txn(ID, p, TxnResult::Commit, 2).unwrap();
    let outputs = drain(&mut c);
    assert_eq!(
        outputs,
        [
            TxnOutput::WriteMarker {
                target: TxnTarget::Partition(1),
                marker: next,
                result: TxnResult::Commit
            },
            TxnOutput::WriteMarker { target: TxnTarget::Group(0), marker: next, result: TxnResult::Commit },
        ]
    );
    c.handle_marker_written(PID, TxnTarget::Group(0));
    assert_eq!(drain(&mut c), [TxnOutput::CommitOffsets { group: 0, offsets: vec![(0, 12), (1, 3)] }]);
    assert_eq!(state(&c), TxnState::PrepareCommit, "the partition's marker is still pending");
    c.handle_marker_written(PID, TxnTarget::Partition(1));
    assert_eq!(state(&c), TxnState::CompleteCommit);
}

/// Version 1: the producer adds the group with `AddOffsetsToTxn` first; a
/// `TxnOffsetCommit` for a group not in the transaction is refused, and one
/// with no transaction ongoing too.
#[test]
fn version_1_needs_add_offsets_first() {
    let mut c = coordinator(TransactionVersion::V1);
    let p = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    let current = Generations { member: 1, group: 1 };
    assert_eq!(c.handle_txn_offset_commit(ID, p, 0, current, &[(0, 1)], 1), Err(TxnError::InvalidTxnState));
    assert_eq!(state(&c), TxnState::Empty);
    c.handle_add_partitions(ID, p, &[0], 1).unwrap();
    assert_eq!(c.handle_txn_offset_commit(ID, p, 0, current, &[(0, 1)], 1), Err(TxnError::InvalidTxnState));
    c.handle_add_offsets(ID, p, 0, 1).unwrap();
    assert_eq!(c.handle_txn_offset_commit(ID, p, 0, current, &[(0, 1)], 1), Ok(()));
}

/// An abort drops the pending offsets: the group's committed offsets stay.
#[test]
fn an_abort_drops_the_pending_offsets() {
    let mut c = coordinator(TransactionVersion::V2);
    let p = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    c.handle_add_offsets(ID, p, 2, 1).unwrap();
    c.handle_txn_offset_commit(ID, p, 2, Generations { member: 1, group: 1 }, &[(0, 5)], 1).unwrap();
    c.handle_end_txn(ID, p, TxnResult::Abort, 2).unwrap();
    let outputs = write_markers(&mut c);
    assert!(outputs.iter().all(|o| !matches!(o, TxnOutput::CommitOffsets { .. })));
    assert_eq!(state(&c), TxnState::CompleteAbort);
}

/// A member fenced by a newer generation cannot commit offsets in the
/// transaction (`ILLEGAL_GENERATION` / `STALE_MEMBER_EPOCH`).
#[test]
fn a_stale_generation_cannot_commit_offsets() {
    let mut c = coordinator(TransactionVersion::V2);
    let p = c.handle_init_producer_id(ID, 60, None, 0).unwrap();
    c.handle_add_offsets(ID, p, 0, 1).unwrap();
    assert_eq!(
        c.handle_txn_offset_commit(ID, p, 0, Generations { member: 3, group: 4 }, &[(0, 1)], 1),
        Err(TxnError::IllegalGeneration)
    );
    assert!(c.pending_offsets(ID, 0).is_empty());
}

/// `abortTimedOutTransactions`: an ongoing transaction past its timeout is
/// aborted with the epoch fenced; the producer that stopped can neither
/// write nor commit in it. Strictly after start + timeout, as
/// `timedOutTransactions` compares.
#[test]
fn the_timeout_aborts_a_dead_producers_transaction() {
    let mut c = coordinator(TransactionVersion::V2);
    let p = c.handle_init_producer_id(ID, 10, None, 0).unwrap();
    c.handle_add_partitions(ID, p, &[0], 5).unwrap();
    c.handle_add_offsets(ID, p, 1, 6).unwrap();
    c.handle_txn_offset_commit(ID, p, 1, Generations { member: 2, group: 2 }, &[(0, 9)], 1).unwrap();
    c.handle_tick(15);
    assert_eq!(state(&c), TxnState::Ongoing, "15 is not past 5 + 10");
    c.handle_tick(16);
    assert_eq!(state(&c), TxnState::PrepareAbort);
    let outputs = write_markers(&mut c);
    assert_eq!(
        outputs,
        [
            TxnOutput::WriteMarker {
                target: TxnTarget::Partition(0),
                marker: pe(2),
                result: TxnResult::Abort
            },
            TxnOutput::WriteMarker { target: TxnTarget::Group(1), marker: pe(2), result: TxnResult::Abort },
            TxnOutput::TimedOut { transactional_id: ID.to_owned(), aborted_with: pe(2) },
        ]
    );
    assert_eq!(state(&c), TxnState::CompleteAbort);
    assert_eq!(c.handle_add_partitions(ID, p, &[0], 17), Err(TxnError::ProducerFenced));
    assert_eq!(c.handle_end_txn(ID, p, TxnResult::Commit, 17), Err(TxnError::ProducerFenced));
    // A restarted instance initialises past the fenced epochs.
    assert_eq!(c.handle_init_producer_id(ID, 10, None, 18), Ok(pe(3)));
}

/// The bound on transactional ids is the model's: refused, not asserted.
#[test]
fn transactional_ids_are_bounded() {
    let mut c = coordinator(TransactionVersion::V2);
    for i in 0..TRANSACTIONAL_IDS_MAX {
        c.handle_init_producer_id(&format!("t{i}"), 60, None, 0).unwrap();
    }
    assert_eq!(c.handle_init_producer_id("one-more", 60, None, 0), Err(TxnError::LimitExceeded));
    assert!(c.handle_init_producer_id("t0", 60, None, 0).is_ok());
}

#[test]
fn the_config_is_validated() {
    let mut config = TxnCoordinatorConfig::new(0);
    assert_eq!(config.validate(), Ok(()));
    config.max_timeout_ticks = 0;
    assert_eq!(config.validate().unwrap_err().field, "transactions.max_timeout_ticks");
    config.max_timeout_ticks = TRANSACTION_TIMEOUT_TICKS_MAX + 1;
    assert!(config.validate().is_err());
}

/// `TransactionState.validPreviousStates`.
#[test]
fn valid_previous_states_are_kafkas() {
    use TxnState::*;
    let all = [Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort];
    let allowed = |to: TxnState| all.iter().filter(|&&from| to.may_follow(from)).copied().collect::<Vec<_>>();
    assert_eq!(allowed(Empty), [Empty, CompleteCommit, CompleteAbort]);
    assert_eq!(allowed(Ongoing), [Empty, Ongoing, CompleteCommit, CompleteAbort]);
    assert_eq!(allowed(PrepareCommit), [Ongoing]);
    assert_eq!(allowed(PrepareAbort), [Empty, Ongoing, CompleteCommit, CompleteAbort]);
    assert_eq!(allowed(CompleteCommit), [PrepareCommit]);
    assert_eq!(allowed(CompleteAbort), [PrepareAbort]);
}

/// Issue 15's story end to end, the coordinator and the `payouts`
/// partition wired as a leader would: the application reads `orders`, writes
/// payouts and commits its offsets in a transaction; its next transaction
/// dies with it and the timeout aborts it; a zombie's late writes are
/// refused; `read_committed` sees only the committed payouts, and the
/// output's offsets have gaps where the markers are.
#[test]
fn consume_transform_produce_with_a_crash_and_a_zombie() {
    use crate::broker::txn_index::{IsolationLevel, LogEntry, PartitionTxns, TxnWriteError};
    let version = TransactionVersion::V2;
    let mut c = coordinator(version);
    let mut payouts = PartitionTxns::new(0);
    let mut log: Vec<LogEntry> = Vec::new();
    let mut committed_offsets = Vec::new();

    // Produces `records` payouts as the leader of payouts-0 would.
    let produce = |c: &mut TransactionCoordinator,
                   payouts: &mut PartitionTxns,
                   log: &mut Vec<LogEntry>,
                   p: ProducerIdAndEpoch,
                   records: u64,
                   now: u64|
     -> Result<u64, TxnError> {
        payouts.check_data(p.producer_id, p.epoch, true).map_err(|_| TxnError::InvalidProducerEpoch)?;
        if !payouts.in_transaction(p.producer_id, p.epoch) {
            c.handle_add_partitions(ID, p, &[0], now).map_err(TxnError::on_produce)?;
        }
        let base = log.len() as u64;
        payouts.append_data(p.producer_id, p.epoch, true, base, records);
        log.extend((0..records).map(|_| LogEntry::Transactional(p.producer_id)));
        Ok(base)
    };
    // Routes the coordinator's outputs: markers to payouts-0 (and the group).
    let route = |c: &mut TransactionCoordinator,
                 payouts: &mut PartitionTxns,
                 log: &mut Vec<LogEntry>,
                 committed: &mut Vec<(u32, u64)>| {
        while let Some(output) = c.poll_output() {
            match output {
                TxnOutput::WriteMarker { target, marker, result } => {
                    if target == TxnTarget::Partition(0) {
                        let offset = log.len() as u64;
                        let aborted = result == TxnResult::Abort;
                        payouts
                            .append_marker(marker.producer_id, marker.epoch, aborted, offset, version)
                            .unwrap();
                        log.push(LogEntry::Marker);
                    }
                    c.handle_marker_written(marker.producer_id, target);
                }
                TxnOutput::CommitOffsets { offsets, .. } => committed.extend(offsets),
                TxnOutput::TimedOut { .. } => {}
            }
        }
        payouts.set_high_watermark(log.len() as u64);
    };

    // Transaction 1: orders 0..3 become payouts 0..3, committed with the
    // consumer's position (orders-0 at 3).
    let first = c.handle_init_producer_id(ID, 10, None, 0).unwrap();
    assert_eq!(produce(&mut c, &mut payouts, &mut log, first, 3, 1), Ok(0));
    c.handle_add_offsets(ID, first, 0, 1).unwrap();
    c.handle_txn_offset_commit(ID, first, 0, Generations { member: 1, group: 1 }, &[(0, 3)], 1).unwrap();
    let second = c.handle_end_txn(ID, first, TxnResult::Commit, 2).unwrap();
    route(&mut c, &mut payouts, &mut log, &mut committed_offsets);
    assert_eq!(committed_offsets, [(0, 3)]);

    // Transaction 2: two payouts, then the process dies before committing.
    assert_eq!(produce(&mut c, &mut payouts, &mut log, second, 2, 3), Ok(4), "the marker took offset 3");
    c.handle_add_offsets(ID, second, 0, 3).unwrap();
    c.handle_txn_offset_commit(ID, second, 0, Generations { member: 1, group: 1 }, &[(0, 5)], 1).unwrap();
    route(&mut c, &mut payouts, &mut log, &mut committed_offsets);
    assert_eq!(payouts.last_stable_offset(), 4, "read_committed waits at the open transaction");
    for now in 4..=13 {
        c.handle_tick(now);
    }
    route(&mut c, &mut payouts, &mut log, &mut committed_offsets);
    assert_eq!(state(&c), TxnState::Ongoing, "13 is not past 3 + 10");
    c.handle_tick(14);
    route(&mut c, &mut payouts, &mut log, &mut committed_offsets);
    assert_eq!(state(&c), TxnState::CompleteAbort);
    assert_eq!(committed_offsets, [(0, 3)], "the aborted transaction's offsets are never committed");

    // The dead instance, back as a zombie, is refused: at payouts-0 by the
    // abort marker's epoch, at a new partition by the coordinator.
    assert_eq!(produce(&mut c, &mut payouts, &mut log, second, 1, 16), Err(TxnError::InvalidProducerEpoch));
    assert!(matches!(
        payouts.check_data(second.producer_id, second.epoch, true),
        Err(TxnWriteError::InvalidProducerEpoch { .. })
    ));
    assert_eq!(
        c.handle_add_partitions(ID, second, &[1], 16).map_err(TxnError::on_produce),
        Err(TxnError::InvalidProducerEpoch)
    );
    assert_eq!(c.handle_end_txn(ID, second, TxnResult::Commit, 16), Err(TxnError::ProducerFenced));

    // The restarted application initialises and redoes orders 3..5.
    let third = c.handle_init_producer_id(ID, 10, None, 17).unwrap();
    assert!(third.epoch > second.epoch + 1);
    assert_eq!(produce(&mut c, &mut payouts, &mut log, third, 2, 17), Ok(7), "the abort marker took 6");
    c.handle_add_offsets(ID, third, 0, 17).unwrap();
    c.handle_txn_offset_commit(ID, third, 0, Generations { member: 2, group: 2 }, &[(0, 5)], 1).unwrap();
    c.handle_end_txn(ID, third, TxnResult::Commit, 18).unwrap();
    route(&mut c, &mut payouts, &mut log, &mut committed_offsets);
    assert_eq!(committed_offsets, [(0, 3), (0, 5)]);

    let read = |isolation| payouts.fetchable(0, u64::MAX, isolation, |o| log[o as usize]);
    assert_eq!(
        read(IsolationLevel::ReadCommitted),
        [0, 1, 2, 7, 8],
        "each payout once, gaps at 3, 4..6 and 9"
    );
    assert_eq!(read(IsolationLevel::ReadUncommitted), [0, 1, 2, 4, 5, 7, 8], "the aborted payouts too");
}

#[cfg(not(target_arch = "wasm32"))]
mod sequences;
