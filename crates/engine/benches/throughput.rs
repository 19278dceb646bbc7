//! Steady-state throughput: 12 partitions, 6 consumers, keep sending.
//!
//! `cargo bench -p offsetlab-engine --bench throughput` prints handled records
//! per second (criterion's "thrpt") and, after the timing, the resident memory
//! at 1, 5 and 10 million handled records, to show it stays flat (bounded by retention).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use offsetlab_engine::GroupConfig;
use offsetlab_engine::{Config, Input, ProducerConfig, Sim};
use std::hint::black_box;

const PARTITIONS: u32 = 12;
const CONSUMERS: u32 = 6;
const HANDLE_PER_TICK: u32 = 100;
/// Enough to keep every consumer busy: 6 × 100 handled per tick.
/// `OFFSETLAB_SEND_PER_TICK` sets another rate (590: busy, but keeping up).
fn send_per_tick() -> u32 {
    std::env::var("OFFSETLAB_SEND_PER_TICK").ok().and_then(|v| v.parse().ok()).unwrap_or(600)
}
/// Each iteration runs ticks until this many more records were handled (it
/// overshoots by less than one tick's 600, under 1%).
const RECORDS_PER_ITERATION: u64 = 60_000;

fn steady_state() -> Sim {
    let mut sim = Sim::new(Config {
        seed: 5,
        partitions: PARTITIONS,
        producer: ProducerConfig { key_count: 1_000, ..ProducerConfig::default() },
        groups: vec![GroupConfig {
            consumers: CONSUMERS,
            records_per_poll: 500,
            handle_per_tick: HANDLE_PER_TICK,
            ..GroupConfig::default()
        }],
        ..Config::default()
    })
    .expect("valid");
    sim.handle_input(Input::KeepSending { per_tick: send_per_tick() }).expect("accepted");
    run_ticks(&mut sim, 200);
    sim
}

/// Advances tick by tick and drains the events, as a shell would.
fn run_ticks(sim: &mut Sim, ticks: u64) {
    for _ in 0..ticks {
        sim.handle_tick(sim.now() + 1);
        while let Some(event) = sim.poll_event() {
            black_box(event);
        }
    }
}

/// Runs until `records` more were handled.
fn handle_records(sim: &mut Sim, records: u64) {
    let target = sim.metrics().delivered + records;
    // Bounded: at least one record per tick is handled in steady state.
    for _ in 0..records {
        if sim.metrics().delivered >= target {
            return;
        }
        run_ticks(sim, 1);
    }
    panic!("steady state stalled");
}

fn throughput(c: &mut Criterion) {
    let mut sim = steady_state();
    let mut group = c.benchmark_group("steady_state");
    group.throughput(Throughput::Elements(RECORDS_PER_ITERATION));
    group.bench_function("12_partitions_6_consumers_handled_records", |b| {
        b.iter(|| handle_records(&mut sim, RECORDS_PER_ITERATION));
    });
    group.finish();
    memory_over_ten_million_records();
}

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn memory_over_ten_million_records() {
    let mut sim = steady_state();
    let start = sim.metrics().delivered;
    let mut checkpoints = vec![1_000_000u64, 5_000_000, 10_000_000].into_iter().peekable();
    let mut report = Vec::new();
    while let Some(&target) = checkpoints.peek() {
        handle_records(&mut sim, 100_000);
        if sim.metrics().delivered - start >= target {
            report.push((target, resident_kib()));
            checkpoints.next();
        }
    }
    for (records, rss) in report {
        match rss {
            Some(kib) => println!("memory: {records:>10} records handled, resident {kib} KiB"),
            None => println!("memory: {records:>10} records handled, resident size unavailable"),
        }
    }
    let view = sim.view();
    let retained: u64 = view.partitions.iter().map(|p| p.log_end - p.log_start).sum();
    println!(
        "memory: records retained {retained} (retention {} per partition)",
        view.settings.retention_records
    );
}

criterion_group!(benches, throughput);
criterion_main!(benches);
