//! Time travel: scrubbing 10,000 ticks back.
//!
//! `cargo bench -p offsetlab-engine --bench time_travel` measures
//! [`History::seek`] from the head of a 20,000-tick busy-group run (12
//! partitions, 6 consumers, steady traffic, a crash and a restart by hand) to
//! 10,000 ticks earlier, and back to the head. The page's target: under 100 ms.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use offsetlab_engine::{ConsumerId, History, Input, builtin};
use std::hint::black_box;

const TICKS: u64 = 20_000;
const BACK_TICKS: u64 = 10_000;

fn recorded_run() -> History {
    let scenario = builtin("busy-group").expect("built-in");
    let seed = scenario.config.seed;
    let mut history = History::new(scenario, seed).expect("valid");
    while history.now() < TICKS {
        match history.now() {
            5_000 => history.handle_input(Input::Crash { consumer: ConsumerId(2) }).expect("accepted"),
            7_000 => history.handle_input(Input::Start { consumer: ConsumerId(2) }).expect("accepted"),
            _ => {}
        }
        history.step();
        while history.poll_event().is_some() {}
    }
    history
}

fn scrub(c: &mut Criterion) {
    let history = recorded_run();
    let mut group = c.benchmark_group("time_travel");
    group.bench_function("seek 10,000 ticks back", |b| {
        b.iter_batched(
            || history.clone(),
            |mut h| black_box(h.seek(TICKS - BACK_TICKS)),
            BatchSize::LargeInput,
        );
    });
    let mut back = history.clone();
    back.seek(TICKS - BACK_TICKS);
    group.bench_function("seek forward to the head", |b| {
        b.iter_batched(|| back.clone(), |mut h| black_box(h.seek(TICKS)), BatchSize::LargeInput);
    });
    group.bench_function("step back one tick", |b| {
        b.iter_batched(|| history.clone(), |mut h| black_box(h.seek(TICKS - 1)), BatchSize::LargeInput);
    });
    group.finish();
    eprintln!("snapshots held after {TICKS} ticks: {}", history.snapshot_count());
}

criterion_group!(benches, scrub);
criterion_main!(benches);
