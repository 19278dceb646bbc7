//! Shared by the engine's test files.
#![allow(dead_code)]

use offsetlab_engine::{Event, Input, Sim, builtin};

/// Runs a built-in scenario tick by tick, checking the invariants after
/// every tick, and returns the simulation with every event it emitted.
pub fn events_of(name: &str) -> (Sim, Vec<Event>) {
    let scenario = builtin(name).expect("built-in");
    let mut sim = scenario.run(None, Some(0)).expect("starts");
    let mut events = Vec::new();
    let mut next = 0;
    for tick in 0..scenario.ticks {
        while let Some(t) = scenario.timeline.get(next).filter(|t| t.tick == tick) {
            sim.handle_input(t.input.clone()).expect("accepted");
            next += 1;
        }
        sim.handle_tick(tick + 1);
        sim.check_invariants();
        events.extend(std::iter::from_fn(|| sim.poll_event()));
    }
    (sim, events)
}

/// Advances `ticks` one by one, checking the invariants after each, and
/// returns the events.
pub fn advance(sim: &mut Sim, ticks: u64) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..ticks {
        sim.handle_tick(sim.now() + 1);
        sim.check_invariants();
        events.extend(std::iter::from_fn(|| sim.poll_event()));
    }
    events
}

/// Applies `input`, which must be accepted, and returns its events.
pub fn input(sim: &mut Sim, input: Input) -> Vec<Event> {
    sim.handle_input(input).unwrap_or_else(|e| panic!("refused: {e}"));
    std::iter::from_fn(|| sim.poll_event()).collect()
}
