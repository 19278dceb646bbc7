//! Time travel: any past tick shown again exactly, forks, bounded snapshots.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::{
    ConsumerId, History, Input, JournalEntry, ReplayError, SNAPSHOT_TAIL_CHUNKS_MAX, SNAPSHOTS_MAX,
    SNAPSHOTS_MIN, Scenario, builtin, describe, snapshots_max,
};

fn scenario(name: &str) -> Scenario {
    builtin(name).expect("built-in")
}

/// A run with inputs by hand: sends, a crash, a restart of the consumer.
fn busy_history(ticks: u64) -> History {
    let mut history = History::new(scenario("default"), 7).unwrap();
    while history.now() < ticks {
        match history.now() {
            5 => history.handle_input(Input::KeepSending { per_tick: 2 }).unwrap(),
            40 => history.handle_input(Input::Crash { consumer: ConsumerId(1) }).unwrap(),
            90 => history.handle_input(Input::Start { consumer: ConsumerId(1) }).unwrap(),
            _ => {}
        }
        history.step();
        while history.poll_event().is_some() {}
    }
    history
}

/// The same run, fresh, stopped at `tick`.
fn fresh_at(history: &History, tick: u64) -> History {
    let journal: Vec<JournalEntry> = history.journal().iter().filter(|e| e.tick <= tick).cloned().collect();
    History::replay(history.scenario().clone(), history.seed(), journal, tick).unwrap()
}

fn assert_same(a: &History, b: &History) {
    assert_eq!(a.now(), b.now());
    assert_eq!(a.sim().view(), b.sim().view(), "tick {}", a.now());
    assert_eq!(a.sim().trace_hash(), b.sim().trace_hash(), "tick {}", a.now());
    assert_eq!(describe(a.sim()), describe(b.sim()));
}

#[test]
fn seeking_back_shows_exactly_the_past_tick() {
    let mut history = busy_history(300);
    let at_head = history.sim().view();
    for tick in [0, 1, 39, 40, 41, 64, 127, 128, 200, 299, 150, 3] {
        assert_eq!(history.seek(tick), tick);
        assert_same(&history, &fresh_at(&history, tick));
        assert_eq!(history.head(), 300, "seeking records nothing");
    }
    assert_eq!(history.seek(10_000), 300, "clamped to the head");
    assert_eq!(history.sim().view(), at_head);
}

#[test]
fn stepping_in_the_past_follows_the_recorded_future() {
    let mut history = busy_history(200);
    let at_head = (history.sim().view(), history.sim().trace_hash());
    history.seek(20);
    while history.now() < 200 {
        history.step();
    }
    assert_eq!((history.sim().view(), history.sim().trace_hash()), at_head);
    assert_eq!(history.journal().len(), 3, "the recorded inputs are kept");
}

#[test]
fn an_input_in_the_past_forks_and_discards_the_future() {
    let mut history = busy_history(200);
    history.seek(30);
    history.handle_input(Input::Stop { consumer: ConsumerId(2) }).unwrap();
    assert_eq!(history.head(), 30, "the future is gone");
    let ticks: Vec<u64> = history.journal().iter().map(|e| e.tick).collect();
    assert_eq!(ticks, [5, 30], "the crash at 40 and the start at 90 were after the fork");
    for _ in 0..50 {
        history.step();
    }
    assert_eq!(history.head(), 80);
    assert_same(&history, &fresh_at(&history, 80));
    let unforked = fresh_at(&busy_history(80), 80);
    assert_ne!(history.sim().view(), unforked.sim().view(), "the fork changed what happened");
}

#[test]
fn a_refused_input_in_the_past_does_not_fork() {
    let mut history = busy_history(100);
    history.seek(50);
    // c1 crashed at tick 40: crashing it again is refused.
    assert!(history.handle_input(Input::Crash { consumer: ConsumerId(1) }).is_err());
    assert_eq!(history.head(), 100);
    assert_eq!(history.journal().len(), 3);
}

#[test]
fn snapshots_stay_bounded_over_long_runs_and_seeks_stay_exact() {
    let mut history = History::new(scenario("busy-group"), 12).unwrap();
    let mut hashes = Vec::new();
    for _ in 0..40_000 {
        history.step();
        while history.poll_event().is_some() {}
        if history.now() % 4_999 == 0 {
            hashes.push((history.now(), history.sim().trace_hash()));
        }
    }
    assert!(history.snapshot_count() <= SNAPSHOTS_MAX, "{}", history.snapshot_count());
    // Twelve partitions: fewer snapshots, so their copied tail chunks stay within the budget.
    assert!(history.snapshot_count() <= snapshots_max(12), "{}", history.snapshot_count());
    assert!(history.snapshot_count() * 12 <= SNAPSHOT_TAIL_CHUNKS_MAX);
    assert_eq!(snapshots_max(3), SNAPSHOTS_MAX, "the default page keeps every snapshot it had");
    assert_eq!(snapshots_max(256), SNAPSHOTS_MIN);
    for &(tick, hash) in hashes.iter().rev() {
        history.seek(tick);
        assert_eq!(history.sim().trace_hash(), hash, "tick {tick}");
    }
}

#[test]
fn replay_refuses_what_cannot_have_happened() {
    let crash = |tick| JournalEntry { tick, input: Input::Crash { consumer: ConsumerId(1) } };
    let error = History::replay(scenario("default"), 1, vec![crash(5), crash(3)], 10).unwrap_err();
    assert_eq!(error, ReplayError::Order { index: 1, tick: 3 });
    let error = History::replay(scenario("default"), 1, vec![crash(5), crash(6)], 10).unwrap_err();
    assert!(matches!(error, ReplayError::Refused { index: 1, tick: 6, .. }), "{error:?}");
    assert!(error.to_string().starts_with("input 2 (tick 6) was refused: c1 is crashed"), "{error}");
    let error = History::replay(scenario("default"), 1, vec![crash(11)], 10).unwrap_err();
    assert_eq!(error, ReplayError::Order { index: 0, tick: 11 });
}

#[test]
fn the_scenarios_timeline_replays_with_the_journal() {
    // crash-commit-after crashes c1 at tick 3 from its timeline.
    let mut history = History::new(scenario("crash-commit-after"), 4).unwrap();
    for _ in 0..60 {
        history.step();
    }
    let headless = scenario("crash-commit-after").run(Some(4), Some(60)).unwrap();
    assert_eq!(history.sim().metrics(), headless.metrics());
    history.seek(2);
    history.seek(60);
    assert_eq!(history.sim().metrics(), headless.metrics());
}

#[test]
fn a_run_exports_as_a_scenario_that_replays_it() {
    // crash-commit-after has its own inputs at ticks 0 and 3; add some by hand around them.
    let mut history = History::new(scenario("crash-commit-after"), 9).unwrap();
    for tick in 0..120 {
        match tick {
            0 | 3 => history.handle_input(Input::Send { count: 2 }).unwrap(),
            50 => history.handle_input(Input::Start { consumer: ConsumerId(1) }).unwrap(),
            _ => {}
        }
        history.step();
    }
    let exported = history.to_scenario();
    exported.validate().unwrap();
    assert_eq!(exported.config.seed, 9);
    assert_eq!(exported.ticks, 121);
    assert_eq!(exported.timeline.len(), 2 + 3);
    let mut again = History::new(exported.clone(), exported.config.seed).unwrap();
    while again.now() < history.now() {
        again.step();
    }
    assert_same(&again, &history);
    // And the command's headless run of it reaches the same state.
    let headless = exported.run(None, Some(120)).unwrap();
    assert_eq!(headless.trace_hash(), history.sim().trace_hash());
}

#[test]
fn an_input_at_a_snapshot_tick_is_in_the_snapshot() {
    // Tick 0 and multiples of 64 are snapshotted on arrival, before any input by hand there.
    let mut history = History::new(scenario("default"), 9).unwrap();
    history.handle_input(Input::Send { count: 10 }).unwrap();
    while history.now() < 64 {
        history.step();
    }
    history.handle_input(Input::Crash { consumer: ConsumerId(1) }).unwrap();
    for _ in 0..10 {
        history.step();
    }
    for tick in [0, 20, 64, 70, 0] {
        history.seek(tick);
        assert_same(&history, &fresh_at(&history, tick));
    }
}
