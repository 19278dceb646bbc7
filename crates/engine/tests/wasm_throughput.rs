//! The benchmark's steady state (12 partitions, 6 consumers, keep sending),
//! measured in wasm32. A measurement, not a test: it is ignored by default and
//! asserts nothing about speed. Run it under Node.js:
//!
//! `cargo test -p offsetlab-engine --target wasm32-unknown-unknown --release --test wasm_throughput -- --include-ignored`
#![cfg(target_arch = "wasm32")]

use offsetlab_engine::GroupConfig;
use offsetlab_engine::{Config, Input, ProducerConfig, Sim};
use wasm_bindgen_test::{console_log, wasm_bindgen_test};

#[wasm_bindgen_test]
#[ignore = "a measurement; run with --include-ignored"]
fn steady_state_handled_records_per_second() {
    let mut sim = Sim::new(Config {
        seed: 5,
        partitions: 12,
        producer: ProducerConfig { key_count: 1_000, ..ProducerConfig::default() },
        groups: vec![GroupConfig {
            consumers: 6,
            records_per_poll: 500,
            handle_per_tick: 100,
            ..GroupConfig::default()
        }],
        ..Config::default()
    })
    .expect("valid");
    sim.handle_input(Input::KeepSending { per_tick: 600 }).expect("accepted");
    let mut run = |sim: &mut Sim, ticks: u64| {
        for _ in 0..ticks {
            sim.handle_tick(sim.now() + 1);
            while sim.poll_event().is_some() {}
        }
    };
    run(&mut sim, 200);
    let mut best = 0.0f64;
    for _ in 0..5 {
        let before = sim.metrics().delivered;
        let start = js_sys::Date::now();
        run(&mut sim, 2_000);
        let seconds = (js_sys::Date::now() - start) / 1000.0;
        let handled = (sim.metrics().delivered - before) as f64;
        best = best.max(handled / seconds);
        console_log!(
            "wasm32: {handled} records handled in {seconds:.3} s = {:.2} M/s",
            handled / seconds / 1e6
        );
    }
    console_log!("wasm32 best: {:.2} million handled records per second", best / 1e6);
    assert!(sim.metrics().delivered > 0);
}

/// Time travel in wasm32: seeking 10,000 ticks back in a 20,000-tick busy-group
/// run (the native figure comes from `benches/time_travel.rs`).
#[wasm_bindgen_test]
#[ignore = "a measurement; run with --include-ignored"]
fn seeking_ten_thousand_ticks_back() {
    use offsetlab_engine::{ConsumerId, History, builtin};
    let scenario = builtin("busy-group").expect("built-in");
    let seed = scenario.config.seed;
    let mut history = History::new(scenario, seed).expect("valid");
    while history.now() < 20_000 {
        match history.now() {
            5_000 => history.handle_input(Input::Crash { consumer: ConsumerId(2) }).expect("accepted"),
            7_000 => history.handle_input(Input::Start { consumer: ConsumerId(2) }).expect("accepted"),
            _ => {}
        }
        history.step();
        while history.poll_event().is_some() {}
    }
    let mut worst = 0.0f64;
    for _ in 0..5 {
        let start = js_sys::Date::now();
        history.seek(10_000);
        let back = js_sys::Date::now() - start;
        let start = js_sys::Date::now();
        history.seek(20_000);
        let forward = js_sys::Date::now() - start;
        worst = worst.max(back).max(forward);
        console_log!("wasm32: seek 10,000 ticks back {back:.1} ms, forward to the head {forward:.1} ms");
    }
    console_log!("wasm32 worst seek: {worst:.1} ms");
    assert_eq!(history.now(), 20_000);
}
