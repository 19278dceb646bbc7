//! `offsetlab open LINK`: a link shared from the page, reproduced by the command.

use offsetlab_engine::{ConsumerId, History, Input, Link, LinkScenario, builtin, describe};
use serde_json::Value;
use std::process::{Command, Output};

fn offsetlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_offsetlab")).args(args).output().expect("runs")
}

/// A run made the way the page makes one: crash-commit-after with inputs by hand.
fn shared_run() -> (History, String) {
    let mut history = History::new(builtin("crash-commit-after").unwrap(), 21).unwrap();
    for tick in 0..40 {
        match tick {
            2 => history.handle_input(Input::Send { count: 7 }).unwrap(),
            9 => history.handle_input(Input::Stop { consumer: ConsumerId(2) }).unwrap(),
            _ => {}
        }
        history.step();
    }
    let link = Link {
        scenario: LinkScenario::Builtin { name: "crash-commit-after".into(), guided: false },
        seed: 21,
        tick: 40,
        inputs: history.journal().iter().map(|e| (e.tick, e.input.clone())).collect(),
    };
    (history, format!("https://example.org/offsetlab/?{}", link.to_query()))
}

#[test]
fn a_link_opens_at_the_moment_it_shows() {
    let (history, url) = shared_run();
    let output = offsetlab(&["open", &url]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("scenario crash-commit-after seed 21 ticks 40\n"), "{text}");
    assert!(text.contains(describe(history.sim()).trim_end()), "{text}");
    let json: Value = serde_json::from_slice(&offsetlab(&["open", "--json", &url]).stdout).unwrap();
    let m = history.sim().metrics();
    assert_eq!(json["tick"], 40);
    assert_eq!(json["seed"], 21);
    assert_eq!(json["metrics"]["delivered"], m.delivered);
    assert_eq!(json["metrics"]["duplicates"], m.duplicates);
}

#[test]
fn an_exported_link_runs_as_a_scenario_file() {
    let (history, url) = shared_run();
    let output = offsetlab(&["open", "--export", &url]);
    assert!(output.status.success());
    let scenario = offsetlab_engine::Scenario::parse(std::str::from_utf8(&output.stdout).unwrap()).unwrap();
    assert_eq!(scenario.config.seed, 21);
    let sim = scenario.run(None, Some(40)).unwrap();
    assert_eq!(sim.trace_hash(), history.sim().trace_hash());
}

#[test]
fn a_changed_link_is_refused_with_its_reason() {
    let (_, url) = shared_run();
    let changed = url.replace("seed=21", "seed=22");
    let output = offsetlab(&["open", &changed]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("link: the link was changed or cut short"), "{stderr}");
    let output = offsetlab(&["open", "s=no-such-scenario&seed=1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr).unwrap().contains("no-such-scenario"));
}
