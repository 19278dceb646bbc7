//! Hard limits: every queue, log and loop in the engine is bounded by one of these.

pub const PARTITIONS_MAX: u32 = 256;
pub const CONSUMERS_MAX: u32 = 64;
/// Consumer groups reading the topic.
pub const GROUPS_MAX: usize = 8;
/// Bytes of a group's name.
pub const GROUP_NAME_BYTES_MAX: usize = 64;
pub const KEYS_MAX: u32 = 10_000;
pub const RECORDS_PER_POLL_MAX: u32 = 10_000;
pub const HANDLE_PER_TICK_MAX: u32 = 10_000;
pub const RETENTION_RECORDS_MAX: u64 = 100_000;
/// Partitions × retention: caps the records held at once (about 64 MiB).
pub const RETAINED_RECORDS_MAX: u64 = 2_000_000;
pub const SEND_COUNT_MAX: u32 = 100_000;
pub const SEND_RATE_MAX: u32 = 100_000;
pub const SESSION_TIMEOUT_TICKS_MAX: u64 = 100_000;
pub const AUTO_COMMIT_INTERVAL_TICKS_MAX: u64 = 100_000;
pub const STICKY_BATCH_RECORDS_MAX: u32 = 100_000;
/// The producer's delivery path (`client/accumulator.rs`): records a batch holds.
pub const PRODUCER_BATCH_RECORDS_MAX: u32 = 10_000;
/// Records the producer holds unacknowledged (`buffer.memory`, in records).
pub const PRODUCER_BUFFER_RECORDS_MAX: u32 = 100_000;
/// Unacknowledged requests per broker connection without idempotence
/// (Kafka sets no upper bound; with idempotence it is 5).
pub const PRODUCER_MAX_IN_FLIGHT_MAX: u32 = 100;
/// Broker connections the producer keeps.
pub const PRODUCER_CONNECTIONS_MAX: u32 = 64;
/// Linger, request, delivery and backoff timeouts, in ticks.
pub const PRODUCER_TIMEOUT_TICKS_MAX: u64 = 10_000_000;
/// Events waiting for `poll_event`; older ones are dropped (and counted) past this.
pub const EVENTS_QUEUED_MAX: usize = 100_000;
/// The evidence the explanations are built from (`evidence.rs`): the events
/// that are not about one record, kept (about 100 bytes each).
pub const EVIDENCE_FACTS_MAX: usize = 4_096;
/// The evidence: a group's accepted commits kept per partition.
pub const EVIDENCE_COMMITS_MAX: usize = 1_024;
/// The evidence: a group's runs of handled offsets kept per partition (a run
/// is one consumer's records of one tick, 32 bytes).
pub const EVIDENCE_HANDLINGS_MAX: usize = 512;
/// The evidence: a group's anomalous handlings kept (duplicates, out of key order).
pub const EVIDENCE_ANOMALIES_MAX: usize = 2_048;
/// Issue 40, the failing handler: in-place retries before a dead letter.
pub const RETRIES_MAX: u32 = 100;
/// Ticks between two in-place retries, and a retry topic's first delay.
pub const RETRY_BACKOFF_TICKS_MAX: u64 = 10_000;
/// Retry topics (`orders-retry-1` …) of the retry-topics policy.
pub const RETRY_TOPICS_MAX: u32 = 4;
/// Attempts a `send-failing` record fails before it succeeds.
pub const FAILING_ATTEMPTS_MAX: u32 = 100;
/// Records a dead-letter or retry topic keeps per partition: the oldest go
/// past it (retention), as on the source topic.
pub const LETTERS_RETAINED_MAX: u64 = 10_000;
/// Per group, failing records whose attempts the application counts, and
/// effect keys it applied before its handler failed: the oldest are
/// forgotten past it.
pub const FAILING_RECORDS_MAX: usize = 1_024;
/// Handled records kept for the sink strip.
pub const SINK_RECENT_MAX: usize = 512;
pub const CHECKPOINT_WRITE_TICKS_MAX: u64 = 100;
/// Record ids a split-check finding lists (the count goes on past it).
pub const FINDING_IDS_MAX: usize = 20;
/// Findings the split check keeps.
pub const FINDINGS_MAX: usize = 100;
/// Ticks one `handle_tick` call may advance.
pub const CATCH_UP_TICKS_MAX: u64 = 1_000_000;
/// Brokers in the cluster (`cluster.brokers`).
pub const BROKERS_MAX: u32 = 5;
/// The cluster's timeouts (replica lag, broker session), in ticks.
pub const CLUSTER_TIMEOUT_TICKS_MAX: u64 = 1_000_000;
/// acks=all appends waiting for the high watermark, across partitions.
pub const PENDING_ACKS_MAX: usize = 100_000;
/// Runs of acknowledged offsets the replication model keeps per partition.
pub const ACKED_RUNS_MAX: usize = 100_000;
/// Record batches a partition remembers the ends of, above its slowest
/// replica's log end. Past it the oldest ends are forgotten: a follower
/// that far behind copies the batches below the first end kept as one.
pub const BATCH_ENDS_MAX: usize = 100_000;
/// Records one append (one produce request) may carry.
pub const APPEND_RECORDS_MAX: u64 = 100_000;
/// Injected produce faults waiting for their request.
pub const FAULTS_PENDING_MAX: usize = 64;
/// Produce answers on their way back to the producer, across connections.
pub const PRODUCE_RESPONSES_MAX: usize = 100_000;
/// Transactional ids the transaction coordinator keeps (`broker/transaction.rs`).
pub const TRANSACTIONAL_IDS_MAX: usize = 64;
/// `transaction.timeout.ms` in ticks: the broker's `transaction.max.timeout.ms`
/// (Kafka's default 900,000 ms) is the model's bound too.
pub const TRANSACTION_TIMEOUT_TICKS_MAX: u64 = 900_000;
/// Consumer offsets one `TxnOffsetCommit` carries, and that one group
/// holds pending for one transaction: one per partition.
pub const TXN_OFFSETS_MAX: usize = PARTITIONS_MAX as usize;
/// Marker writes and offset commits the coordinator has queued for its caller.
pub const TXN_OUTPUTS_QUEUED_MAX: usize = 100_000;
/// Aborted transactions one partition's index keeps (`broker/txn_index.rs`);
/// past it the oldest are forgotten, as retention would delete them.
pub const ABORTED_TXNS_MAX: usize = 100_000;
/// Records of the output topic `payouts` one partition holds (results
/// and control markers); past it the oldest are deleted, as retention would.
pub const PAYOUT_RECORDS_MAX: u64 = 100_000;
/// Records the downstream consumer of `payouts` reads a tick.
pub const DOWNSTREAM_PER_TICK_MAX: u32 = 10_000;
/// Ticks one `stall` input freezes a consumer's process.
pub const STALL_TICKS_MAX: u64 = 100_000;
/// Ticks a scenario may run.
pub const SCENARIO_TICKS_MAX: u64 = 10_000_000;
/// Inputs a timeline may hold.
pub const TIMELINE_INPUTS_MAX: usize = 100_000;
/// Bytes a scenario file may have.
pub const SCENARIO_BYTES_MAX: usize = 16 * 1024 * 1024;
/// Runs a shrink may make, at least: the original scenario's, which must
/// show the anomaly, and the check of the result.
pub const SHRINK_RUNS_MIN: u32 = 2;
/// Runs a shrink makes when its caller names no budget (`offsetlab shrink`
/// without `--max-runs`): the built-ins shrink in a few hundred.
pub const SHRINK_RUNS_DEFAULT: u32 = 2_000;
/// Runs a shrink may be given (`--max-runs`).
pub const SHRINK_RUNS_MAX: u32 = 1_000_000;
/// Ticks a shrink's run goes between two questions to its caller whether
/// to go on (a wall clock, in the CLI): bounds how far past its time a run
/// goes, at a cost the ticks dwarf.
pub const SHRINK_ASK_EVERY_TICKS: u64 = 64;

/// A topic name's length at most (Kafka's `Topic.MAX_NAME_LENGTH`): a share
/// group's dead-letter topic is named by the scenario.
pub const TOPIC_NAME_MAX: usize = 249;
