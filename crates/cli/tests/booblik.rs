//! `offsetlab check` and `offsetlab run --offset-dir`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn offsetlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_offsetlab")).args(args).output().expect("runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("offsetlab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn check_fails_on_a_torn_checkpoint_and_lists_record_ids() {
    let output = offsetlab(&["check", "--scenario", "torn-checkpoint"]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.starts_with("split check: scenario torn-checkpoint seed 5 ticks 120\n"), "{text}");
    assert!(text.contains("VIOLATION at tick 40: c1 resumed P0 from"), "{text}");
    assert!(text.contains("record ids "), "{text}");
    assert!(text.trim_end().ends_with("FAILED: 1 violations"), "{text}");
}

#[test]
fn check_passes_an_atomic_checkpoint_with_a_legal_replay() {
    let output = offsetlab(&["check", "--scenario", "atomic-checkpoint", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["passed"], true);
    assert_eq!(json["seed"], 5);
    assert_eq!(json["check"]["legal_replays"], 1);
    assert_eq!(json["check"]["findings"][0]["kind"], "legal-replay");
}

#[test]
fn check_counts_never_processed_records_as_violations() {
    let output = offsetlab(&["check", "--scenario", "crash-commit-before"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(stdout(&output).contains("never reached a consumer"));
    assert_eq!(offsetlab(&["check", "--scenario", "crash-commit-after"]).status.code(), Some(0));
}

#[test]
fn offset_dir_carries_positions_across_runs() {
    let dir = scratch("offset-dir");
    let dir_arg = dir.to_str().unwrap();
    let first = offsetlab(&["run", "--scenario", "keys-keep-order", "--offset-dir", dir_arg, "--json"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let first: serde_json::Value = serde_json::from_str(&stdout(&first)).unwrap();
    assert!(first["resumed_from"].as_array().unwrap().iter().all(|r| r["resumedFrom"] == 0), "{first}");
    let saved = std::fs::read_to_string(dir.join("c1").join("orders-0.pos")).unwrap();
    assert!(saved.starts_with("offsetlab-position v1 "), "{saved}");

    let second = offsetlab(&["run", "--scenario", "keys-keep-order", "--offset-dir", dir_arg]);
    assert!(second.status.success());
    let text = stdout(&second);
    let resumed: Vec<&str> = text.lines().filter(|l| l.contains("resumedFrom")).collect();
    assert!(!resumed.is_empty(), "{text}");
    assert!(
        resumed.iter().any(|l| !l.ends_with(" 0")),
        "the second run resumes where the first stopped: {text}"
    );
    // Nothing was handled twice: the second run only handles what the first did not.
    let json = offsetlab(&["run", "--scenario", "keys-keep-order", "--offset-dir", dir_arg, "--json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(json["metrics"]["duplicates"], 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_torn_offset_file_stops_the_run_and_loses_nothing() {
    let dir = scratch("torn");
    std::fs::create_dir_all(dir.join("c1")).unwrap();
    let file = dir.join("c1").join("orders-0.pos");
    std::fs::write(&file, "offsetlab-position v1 12").unwrap();
    let output = offsetlab(&["run", "--scenario", "default", "--offset-dir", dir.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("orders-0.pos") && err.contains("torn position file"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "offsetlab-position v1 12", "left as it was");
    std::fs::remove_dir_all(&dir).unwrap();
}
