//! Each built-in scenario's teaching outcome.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use offsetlab_engine::{Metrics, Scenario, Sim, TimedInput, builtin, builtins, describe};

fn run(name: &str) -> (Sim, Metrics) {
    let sim = builtin(name).expect("built-in").run(None, None).expect("runs");
    sim.check_invariants();
    let metrics = sim.metrics();
    (sim, metrics)
}

/// `builtin()` and `builtins()` give exactly what the validating parser reads
/// from each built-in's JSON, in listing order.
#[test]
fn builtins_read_as_the_validating_parser_reads_them() {
    let all = builtins();
    assert_eq!(all.len(), offsetlab_engine::BUILTINS.len());
    for ((name, text), listed) in offsetlab_engine::BUILTINS.iter().zip(all) {
        let validated = offsetlab_engine::Scenario::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(builtin(name).unwrap(), validated, "{name}");
        assert_eq!(listed, validated, "{name}: builtins() in listing order");
        assert_eq!(validated.name, *name, "the file's name matches its listing");
    }
    let unknown = builtin("no-such-scenario").unwrap_err();
    assert!(unknown.to_string().contains("the built-ins are default, keys-keep-order"), "{unknown}");
}

/// Every file in scenarios/ is a listed built-in.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_scenario_file_is_listed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut listed: Vec<String> =
        offsetlab_engine::BUILTINS.iter().map(|(name, _)| format!("{name}.json")).collect();
    listed.sort();
    assert_eq!(files, listed);
}

#[test]
fn every_builtin_parses_and_runs() {
    let all = builtins();
    assert!(all.len() >= 7);
    for scenario in all {
        assert!(!scenario.summary.is_empty(), "{} has a summary", scenario.name);
        assert!(!scenario.watch.is_empty(), "{} says what to watch", scenario.name);
        let sim = scenario.run(None, None).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
        sim.check_invariants();
        // A scenario serializes back to the JSON it came from.
        let again = offsetlab_engine::Scenario::parse(&scenario.to_json()).expect("round trip");
        assert_eq!(again, scenario);
    }
}

#[test]
fn keys_keep_order() {
    let (_, m) = run("keys-keep-order");
    assert!(m.delivered > 100, "{m:?}");
    assert_eq!(m.out_of_key_order, 0, "{m:?}");
    assert_eq!(m.duplicates, 0);
    assert_eq!(m.never_processed, 0);
}

#[test]
fn no_keys_reorder() {
    let (_, m) = run("no-keys-reorder");
    assert!(m.out_of_key_order > 0, "{m:?}");
    assert_eq!(m.never_processed, 0);
}

#[test]
fn spare_consumers() {
    let (sim, m) = run("spare-consumers");
    assert_eq!(m.active_consumers, 6, "{m:?}");
    let view = sim.view();
    let spares: Vec<String> =
        view.consumers.iter().filter(|c| c.idle_spare).map(|c| c.id.to_string()).collect();
    assert_eq!(spares.len(), 2, "{spares:?}");
}

#[test]
fn crash_commit_after() {
    let (sim, m) = run("crash-commit-after");
    eprintln!("{}\n{m:?}", describe(&sim));
    assert!(m.duplicates > 0, "{m:?}");
    assert_eq!(m.never_processed, 0, "{m:?}");
    assert_eq!(m.distinct_handled, m.produced, "everything was handled at least once: {m:?}");
}

#[test]
fn crash_commit_before() {
    let (sim, m) = run("crash-commit-before");
    eprintln!("{}\n{m:?}", describe(&sim));
    assert!(m.never_processed > 0, "{m:?}");
    assert_eq!(m.duplicates, 0, "{m:?}");
    assert_eq!(m.distinct_handled + m.never_processed, m.produced, "{m:?}");
}

#[test]
fn idempotent_absorbs_duplicates() {
    let (_, m) = run("idempotent-absorbs-duplicates");
    assert!(m.duplicates > 0, "{m:?}");
    assert_eq!(m.effects, m.distinct_handled, "{m:?}");
    assert!(m.delivered > m.effects);
}

#[test]
fn busy_group_keeps_up() {
    let (sim, m) = run("busy-group");
    assert_eq!(m.active_consumers, 6, "{m:?}");
    assert_eq!(sim.view().partitions.len(), 12);
    assert!(m.delivered > 1_500, "{m:?}");
    assert!(m.total_lag < 200, "six consumers handling two records a tick keep up with eight a tick: {m:?}");
    assert_eq!((m.duplicates, m.never_processed, m.out_of_key_order), (0, 0, 0), "{m:?}");
}

/// Every built-in is a guided experiment whose outcome check holds at the end
/// of the scripted run and, when the learner has steps to do, does not hold
/// in the guided run without them: the check detects what the learner causes.
#[test]
fn every_builtin_is_a_guided_experiment_with_a_working_outcome_check() {
    for scenario in builtins() {
        let name = &scenario.name;
        let guide = scenario.guide.as_ref().unwrap_or_else(|| panic!("{name} has a guide"));
        let sim = scenario.run(None, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let message = guide.outcome.check(&sim).unwrap_or_else(|| {
            panic!("{name}: the scripted run reproduces the outcome: {:?}", sim.metrics())
        });
        assert!(!message.contains("{n}"), "{name}: {message}");
        let at_start = offsetlab_engine::Sim::new(scenario.config.clone()).unwrap();
        assert_eq!(guide.outcome.check(&at_start), None, "{name} at tick 0");
        let learner_steps = scenario.timeline.iter().filter(|t| t.learner).count();
        if learner_steps > 0 {
            assert!(!guide.steps.is_empty(), "{name}: learner inputs are described as steps");
            let guided = scenario.guided().run(None, None).unwrap_or_else(|e| panic!("{name} guided: {e}"));
            assert_eq!(
                guide.outcome.check(&guided),
                None,
                "{name}: without the learner's steps the outcome does not happen"
            );
        }
    }
}

/// The page groups the experiments under their topics: none is a topic of one.
#[test]
fn each_topic_has_at_least_two_experiments() {
    let all = builtins();
    for topic in offsetlab_engine::Topic::ALL {
        let names: Vec<&str> = all
            .iter()
            .filter(|s| s.guide.as_ref().is_some_and(|g| g.topic == topic))
            .map(|s| s.name.as_str())
            .collect();
        assert!(names.len() >= 2, "{}: {names:?}", topic.title());
    }
}

/// Drives a Sim as the page does in a guided run: the guided timeline's inputs at
/// their ticks, then `by_hand` (the learner's inputs) at theirs, each through
/// `Sim::handle_input`, which must accept it. Returns the Sim at the scenario's end
/// and the first tick after which the outcome held, if it ever did.
fn drive(scenario: &Scenario, by_hand: &[TimedInput]) -> (Sim, Option<u64>) {
    let outcome = &scenario.guide.as_ref().expect("a guide").outcome;
    let scripted = scenario.guided().timeline;
    let mut sim = Sim::new(scenario.config.clone()).expect("the config is valid");
    let mut first_held = None;
    for tick in 0..scenario.ticks {
        for timed in scripted.iter().chain(by_hand).filter(|t| t.tick == tick) {
            sim.handle_input(timed.input.clone())
                .unwrap_or_else(|e| panic!("{} tick {tick}: {:?} refused: {e}", scenario.name, timed.input));
        }
        sim.handle_tick(tick + 1);
        while sim.poll_event().is_some() {}
        if first_held.is_none() && outcome.check(&sim).is_some() {
            first_held = Some(tick + 1);
        }
    }
    (sim, first_held)
}

/// The steps are doable: a learner who follows the guided run and does the
/// learner inputs by hand at their ticks reproduces the outcome, which had not
/// held before their first step, and without those steps it never holds.
#[test]
fn a_learner_doing_the_steps_by_hand_reproduces_the_outcome() {
    let mut with_steps = 0;
    for scenario in builtins() {
        let name = &scenario.name;
        let guide = scenario.guide.as_ref().expect("a guide");
        let by_hand: Vec<TimedInput> = scenario.timeline.iter().filter(|t| t.learner).cloned().collect();
        if by_hand.is_empty() {
            assert!(guide.steps.is_empty(), "{name}: steps describe learner inputs");
            continue;
        }
        with_steps += 1;
        assert!(!guide.steps.is_empty(), "{name}: learner inputs are described as steps");

        let (alone, held) = drive(&scenario, &[]);
        assert_eq!(held, None, "{name}: without the learner the outcome never holds: {:?}", alone.metrics());

        let (sim, held) = drive(&scenario, &by_hand);
        sim.check_invariants();
        let says = guide
            .outcome
            .evaluate(&sim)
            .unwrap_or_else(|why| panic!("{name}: the learner reproduces the outcome: {why}"));
        assert!(!says.contains("{n}"), "{name}: {says}");
        let first_step = by_hand[0].tick;
        let held = held.expect("it held at the end");
        assert!(
            held > first_step,
            "{name}: held after tick {held}, before the first step at tick {first_step}"
        );
        // The scripted run, with the learner's inputs in the timeline, ends the same way.
        let scripted = scenario.run(None, None).unwrap();
        assert_eq!(scripted.metrics(), sim.metrics(), "{name}");
    }
    assert!(with_steps >= 15, "most experiments ask the learner to do something: {with_steps}");
}
