//! A fixed amount of work for A/B comparisons under `perf stat` (instructions
//! and cycles do not depend on how busy the machine is, as wall time does):
//! 12 partitions, 6 consumers, `OFFSETLAB_SEND_PER_TICK` records a tick (590
//! by default: busy, but keeping up), until 3 million records were handled.
//!
//! `cargo build --release -p offsetlab-engine --example busy && perf stat -e instructions:u,cycles:u target/release/examples/busy`
//!
//! Where perf has no counters (a VM), callgrind counts the instructions:
//! `valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/busy`
//! (its "I refs" line).

use offsetlab_engine::{Config, GroupConfig, Input, ProducerConfig, Sim};

fn main() {
    let per_tick = std::env::var("OFFSETLAB_SEND_PER_TICK").ok().and_then(|v| v.parse().ok()).unwrap_or(590);
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
    sim.handle_input(Input::KeepSending { per_tick }).expect("accepted");
    let mut events = 0u64;
    while sim.metrics().delivered < 3_000_000 {
        sim.handle_tick(sim.now() + 1);
        while let Some(event) = sim.poll_event() {
            std::hint::black_box(event);
            events += 1;
        }
    }
    println!("ticks {} delivered {} events {events}", sim.now(), sim.metrics().delivered);
}
