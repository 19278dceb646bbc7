//! The `offsetlab` binary, run as a user runs it.

mod common;

use common::temp_file;

use offsetlab_engine::{BUILTINS, Topic, builtin, murmur2, partition_for_key, to_positive};
use serde_json::Value;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};

fn offsetlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_offsetlab")).args(args).output().unwrap()
}

fn stdout_of(args: &[&str]) -> String {
    let output = offsetlab(args);
    assert!(
        output.status.success(),
        "offsetlab {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Runs a command that must fail: exit code 2, nothing on stdout, and an
/// `offsetlab: ` message on stderr, which is returned.
fn failure_of(args: &[&str]) -> String {
    let output = offsetlab(args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "offsetlab {args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(stderr.starts_with("offsetlab: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

// ---------------------------------------------------------------- partition

#[test]
fn partition_prints_each_key_a_tab_and_its_partition_in_input_order() {
    let out = stdout_of(&["partition", "--partitions", "12", "foobar", "21", "abc", "user-1"]);
    // From Kafka's murmur2 vectors: toPositive(-790332482) = 1357151166, and so on.
    let expected = format!(
        "foobar\t{}\n21\t{}\nabc\t{}\nuser-1\t{}\n",
        1_357_151_166 % 12,
        (2_147_483_648u64 - 973_932_308) % 12,
        479_470_107 % 12,
        partition_for_key(b"user-1", 12)
    );
    assert_eq!(out, expected);
}

#[test]
fn hex_keys_hash_their_bytes() {
    for n in ["1", "7", "12", "100", "1000000"] {
        let text = stdout_of(&["partition", "--partitions", n, "foobar"]);
        let hex = stdout_of(&["partition", "--partitions", n, "--hex", "666f6f626172", "666F6F626172"]);
        let part = text.trim_end().split('\t').nth(1).unwrap();
        assert_eq!(hex, format!("666f6f626172\t{part}\n666F6F626172\t{part}\n"), "over {n} partitions");
    }
    let empty = stdout_of(&["partition", "--partitions", "100", "--hex", ""]);
    assert_eq!(empty, format!("\t{}\n", partition_for_key(b"", 100)));
    // Bytes that are not UTF-8 are fine as hex.
    let raw = stdout_of(&["partition", "--partitions", "100", "--hex", "ff00fe"]);
    assert_eq!(raw, format!("ff00fe\t{}\n", partition_for_key(&[0xff, 0x00, 0xfe], 100)));
}

#[test]
fn argument_keys_come_before_file_keys_and_empty_lines_are_skipped() {
    let file = temp_file("keys.txt", b"b\n\nc\r\n d \n\n");
    let out = stdout_of(&["partition", "--partitions", "1000", "--keys-file", file.path(), "a", ""]);
    let expected: String = ["a", "", "b", "c", " d "]
        .iter()
        .map(|k| format!("{k}\t{}\n", partition_for_key(k.as_bytes(), 1000)))
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn hex_keys_file_and_stdin() {
    let file = temp_file("hex.txt", b"666f6f626172\n\n3231\n");
    let out = stdout_of(&["partition", "--partitions", "6", "--hex", "--keys-file", file.path()]);
    let expected =
        format!("666f6f626172\t{}\n3231\t{}\n", partition_for_key(b"foobar", 6), partition_for_key(b"21", 6));
    assert_eq!(out, expected);

    let mut child = Command::new(env!("CARGO_BIN_EXE_offsetlab"))
        .args(["partition", "--partitions", "6", "--keys-file", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"foobar\n21\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let text = format!("foobar\t{}\n21\t{}\n", partition_for_key(b"foobar", 6), partition_for_key(b"21", 6));
    assert_eq!(String::from_utf8(output.stdout).unwrap(), text);
}

#[test]
fn an_empty_keys_file_prints_nothing() {
    let file = temp_file("empty.txt", b"\n\n");
    assert_eq!(stdout_of(&["partition", "--partitions", "3", "--keys-file", file.path()]), "");
    assert_eq!(
        stdout_of(&["expand", "--from", "3", "--to", "4", "--keys-file", file.path()]),
        "moved 0 of 0 keys (0.0%)\n"
    );
}

// ------------------------------------------------------------------- expand

#[test]
fn expand_counts_the_keys_that_move() {
    let keys = ["user-0", "user-1", "user-3", "user-5"];
    let moved: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| partition_for_key(k.as_bytes(), 3) != partition_for_key(k.as_bytes(), 6))
        .collect();
    assert_eq!(moved, ["user-3", "user-5"], "the case this test is built on");

    let mut args = vec!["expand", "--from", "3", "--to", "6"];
    args.extend(keys);
    assert_eq!(stdout_of(&args), "moved 2 of 4 keys (50.0%)\n");

    args.push("--verbose");
    let mut expected = String::new();
    for k in &moved {
        let (old, new) = (partition_for_key(k.as_bytes(), 3), partition_for_key(k.as_bytes(), 6));
        expected += &format!("{k} {old} -> {new}\n");
    }
    expected += "moved 2 of 4 keys (50.0%)\n";
    assert_eq!(stdout_of(&args), expected);
}

#[test]
fn expand_agrees_with_the_engine_over_many_keys() {
    let keys: String = (0..1000).map(|i| format!("order-{i}\n")).collect();
    let file = temp_file("many.txt", keys.as_bytes());
    for (from, to) in [(1, 2), (3, 4), (6, 12), (10, 11), (100, 1000)] {
        let moved = (0..1000)
            .filter(|i| {
                let h = to_positive(murmur2(format!("order-{i}").as_bytes()));
                h % from != h % to
            })
            .count();
        let out = stdout_of(&[
            "expand",
            "--from",
            &from.to_string(),
            "--to",
            &to.to_string(),
            "--keys-file",
            file.path(),
        ]);
        let tenths = (moved * 1000 + 500) / 1000;
        assert_eq!(out, format!("moved {moved} of 1000 keys ({}.{}%)\n", tenths / 10, tenths % 10));
    }
    // Doubling moves exactly the keys whose new partition is in the new half.
    let out = stdout_of(&["expand", "--from", "6", "--to", "12", "-v", "--keys-file", file.path()]);
    for line in out.lines().filter(|l| l.contains("->")) {
        let parts: Vec<&str> = line.split(' ').collect();
        let (old, new): (u32, u32) = (parts[1].parse().unwrap(), parts[3].parse().unwrap());
        assert_eq!(new, old + 6, "{line}");
    }
}

// ---------------------------------------------------------------------- run

fn run_json(args: &[&str]) -> Value {
    let mut all = vec!["run", "--json"];
    all.extend(args);
    let out = stdout_of(&all);
    assert_eq!(out.lines().count(), 1, "one line: {out}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn run_json_has_every_field() {
    let v = run_json(&["--scenario", "crash-commit-after"]);
    assert_eq!(v["scenario"], "crash-commit-after");
    assert!(v["seed"].is_u64());
    assert!(v["tick"].is_u64());
    for key in [
        "delivered",
        "duplicates",
        "never_processed",
        "out_of_key_order",
        "total_lag",
        "active_consumers",
        "generation",
        "effects",
    ] {
        assert!(v["metrics"][key].is_u64(), "metrics.{key}: {v}");
    }
    let table = v["describe"].as_str().unwrap();
    assert!(table.contains("GROUP") && table.contains("CURRENT-OFFSET"), "{table}");
}

/// `run --json` carries every counter the engine keeps, for the run and for each group, and
/// each with the value the engine has: the object is the engine's `Metrics`, not a list copied
/// by hand that misses the counters added since.
#[test]
fn run_json_carries_every_counter_the_engine_keeps() {
    let name = "payout-double-payout";
    let v = run_json(&["--scenario", name]);
    let scenario = builtin(name).unwrap();
    let sim = scenario.run(None, None).unwrap();
    let engine = serde_json::to_value(sim.metrics()).unwrap();
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert!(keys(&engine).len() >= 30, "{engine}");
    assert_eq!(keys(&v["metrics"]), keys(&engine), "the same counters");
    assert_eq!(v["metrics"], engine);
    assert!(v["metrics"]["double_paid_cents"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["groups"][0]["metrics"], serde_json::to_value(sim.metrics_of(0)).unwrap());
}

#[test]
fn run_json_events_adds_the_config_and_the_trace_the_conformance_driver_replays() {
    let plain = run_json(&["--scenario", "crash-commit-after"]);
    assert!(plain.get("events").is_none() && plain.get("config").is_none(), "{plain}");
    let v = run_json(&["--scenario", "crash-commit-after", "--events"]);
    // The rest of the report is unchanged.
    for key in ["scenario", "seed", "tick", "metrics", "describe", "groups"] {
        assert_eq!(v[key], plain[key], "{key}");
    }
    assert_eq!(v["config"]["seed"], v["seed"]);
    assert!(v["config"]["partitions"].is_u64(), "{}", v["config"]);
    let events = v["events"].as_array().unwrap();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"started"), "{kinds:?}");
    for kind in ["rebalance-started", "crashed", "session-expired"] {
        assert!(kinds.contains(&kind), "no {kind} in {kinds:?}");
    }
    // In tick order: the driver replays them as they come.
    let ticks: Vec<u64> = events.iter().map(|e| e["tick"].as_u64().unwrap()).collect();
    assert!(ticks.windows(2).all(|w| w[0] <= w[1]), "{ticks:?}");
}

#[test]
fn commit_after_replays_and_commit_before_skips() {
    let after = run_json(&["--scenario", "crash-commit-after"]);
    assert!(after["metrics"]["duplicates"].as_u64().unwrap() > 0, "{after}");
    assert_eq!(after["metrics"]["never_processed"], 0, "{after}");

    let before = run_json(&["--scenario", "crash-commit-before"]);
    assert!(before["metrics"]["never_processed"].as_u64().unwrap() > 0, "{before}");
}

#[test]
fn runs_are_deterministic_and_carry_their_seed() {
    let a = stdout_of(&["run", "--scenario", "crash-commit-after", "--json"]);
    let b = stdout_of(&["run", "--scenario", "crash-commit-after", "--json"]);
    assert_eq!(a, b);
    let text_a = stdout_of(&["run", "--scenario", "no-keys-reorder", "--seed", "5"]);
    let text_b = stdout_of(&["run", "--scenario", "no-keys-reorder", "--seed", "5"]);
    assert_eq!(text_a, text_b);

    let file_seed = offsetlab_engine::builtin("crash-commit-after").unwrap().config.seed;
    let default: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(default["seed"], file_seed);
    let nine = run_json(&["--scenario", "crash-commit-after", "--seed", "9"]);
    assert_eq!(nine["seed"], 9);
}

#[test]
fn run_text_has_the_header_the_table_and_the_counters() {
    let out = stdout_of(&["run", "--scenario", "crash-commit-after", "--seed", "9", "--ticks", "40"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("scenario crash-commit-after seed 9 ticks 40"));
    assert!(out.contains("\nGROUP "), "{out}");
    for label in [
        "delivered",
        "duplicates",
        "effects",
        "never processed",
        "out of key order",
        "total lag",
        "active consumers",
        "generation",
    ] {
        let line = out.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {out}"));
        let value = line[label.len()..].trim();
        assert!(value.parse::<u64>().is_ok(), "{line}");
    }
    let v = run_json(&["--scenario", "crash-commit-after", "--seed", "9", "--ticks", "40"]);
    assert_eq!(v["tick"], 40);
    assert!(out.contains(v["describe"].as_str().unwrap().trim_end()), "same table in both forms");
}

#[test]
fn a_scenario_file_runs_like_the_built_in() {
    let (name, text) = BUILTINS.iter().find(|(n, _)| *n == "crash-commit-before").unwrap();
    let file = temp_file("scenario.json", text.as_bytes());
    let from_file = stdout_of(&["run", "--scenario", file.path(), "--json"]);
    let built_in = stdout_of(&["run", "--scenario", name, "--json"]);
    assert_eq!(from_file, built_in);
}

#[test]
fn the_scenario_may_come_first_without_its_option() {
    for command in ["run", "check"] {
        assert_eq!(
            stdout_of(&[command, "acks1-leader-crash", "--json"]),
            stdout_of(&[command, "--scenario", "acks1-leader-crash", "--json"]),
            "{command}"
        );
    }
    let both = failure_of(&["run", "default", "--scenario", "default"]);
    assert!(both.contains("cannot be used with"), "{both}");
    let neither = failure_of(&["run", "--seed", "3"]);
    assert!(neither.contains("<SCENARIO>"), "{neither}");
}

#[test]
fn every_built_in_runs() {
    for (name, _) in BUILTINS {
        let v = run_json(&["--scenario", name]);
        assert_eq!(v["scenario"], *name);
    }
}

/// The text of every built-in's run: each counter's label is parted from its
/// value (`run` asserts a label fits its column, so a longer one fails here).
#[test]
fn every_built_ins_text_parts_labels_from_values() {
    for (name, _) in BUILTINS {
        let text = stdout_of(&["run", "--scenario", name]);
        for line in text.lines().filter(|l| l.len() > 17 && l.as_bytes()[0].is_ascii_lowercase()) {
            let (label, value) = line.split_at(17);
            if value.bytes().all(|b| b.is_ascii_digit()) {
                assert!(label.ends_with(' '), "{name}: {line:?}");
            }
        }
    }
}

/// What the guide's check says after the built-in's full run, from the engine.
fn says_after_full_run(name: &str) -> String {
    let scenario = builtin(name).unwrap();
    let sim = scenario.run(None, None).unwrap();
    scenario.guide.unwrap().outcome.check(&sim).unwrap()
}

#[test]
fn run_ends_with_the_guides_outcome() {
    let full = stdout_of(&["run", "--scenario", "crash-commit-after"]);
    let last = full.lines().last().unwrap();
    assert_eq!(last, format!("outcome: reproduced: {}", says_after_full_run("crash-commit-after")));
    assert!(last.starts_with("outcome: reproduced: 2 duplicates: "), "{last}");
    assert_eq!(full.lines().filter(|l| l.starts_with("outcome:")).count(), 1, "{full}");

    let v = run_json(&["--scenario", "crash-commit-after"]);
    assert_eq!(v["outcome"]["reproduced"], true, "{v}");
    assert_eq!(v["outcome"]["message"], says_after_full_run("crash-commit-after"));
}

#[test]
fn guided_leaves_the_learners_steps_out() {
    let guided = stdout_of(&["run", "--scenario", "crash-commit-after", "--guided"]);
    assert_eq!(guided.lines().last(), Some("outcome: not reproduced (Duplicates: 0, needs at least 1)"));
    let counter = |out: &str, label: &str| -> u64 {
        let line = out.lines().find(|l| l.starts_with(label)).unwrap();
        line[label.len()..].trim().parse().unwrap()
    };
    assert_eq!(counter(&guided, "duplicates"), 0, "nobody crashed c1: {guided}");
    assert_eq!(counter(&guided, "generation"), 1, "no rebalance: {guided}");

    let v = run_json(&["--scenario", "crash-commit-after", "--guided"]);
    assert_eq!(v["outcome"]["reproduced"], false, "{v}");
    assert_eq!(v["outcome"]["message"], "Duplicates: 0, needs at least 1");
    assert_eq!(v["metrics"]["duplicates"], 0);

    // Without learner inputs, the guided run is the full run.
    let busy = stdout_of(&["run", "--scenario", "busy-group"]);
    assert_eq!(stdout_of(&["run", "--scenario", "busy-group", "--guided"]), busy);
}

#[test]
fn every_built_in_reproduces_its_outcome_and_its_guided_run_waits_for_the_learner() {
    for scenario in offsetlab_engine::builtins() {
        let name = scenario.name.as_str();
        let v = run_json(&["--scenario", name]);
        assert_eq!(v["outcome"]["reproduced"], true, "{name}: {v}");
        let guided = run_json(&["--scenario", name, "--guided"]);
        let learner_steps = scenario.timeline.iter().any(|t| t.learner);
        assert_eq!(guided["outcome"]["reproduced"], !learner_steps, "{name} --guided: {guided}");
    }
}

#[test]
fn a_scenario_without_a_guide_has_no_outcome() {
    let file = temp_file("plain.json", br#"{ "name": "plain", "ticks": 20, "timeline": [ { "tick": 0, "input": { "do": "send", "count": 5 } } ] }"#);
    let text = stdout_of(&["run", "--scenario", file.path()]);
    assert!(!text.contains("outcome"), "{text}");
    assert!(text.lines().last().unwrap().starts_with("generation "), "{text}");
    let v = run_json(&["--scenario", file.path()]);
    assert!(v["outcome"].is_null(), "{v}");
    assert_eq!(stdout_of(&["run", "--scenario", file.path(), "--guided"]), text);
}

// --------------------------------------------------------------- scenarios

#[test]
fn scenarios_lists_every_built_in_under_its_topic_with_its_summary() {
    let out = stdout_of(&["scenarios"]);
    let builtins = offsetlab_engine::builtins();
    let mut topic = None;
    let mut listed = Vec::new();
    let mut summary_columns = Vec::new();
    for line in out.lines().filter(|l| !l.is_empty()) {
        if let Some(entry) = line.strip_prefix("  ") {
            let name = entry.split(' ').next().unwrap();
            let scenario = builtins.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(scenario.guide.as_ref().map(|g| g.topic), topic, "{name} under its topic");
            assert!(line.ends_with(&scenario.summary), "{line}");
            summary_columns.push(line.len() - scenario.summary.len());
            listed.push(name.to_string());
        } else {
            let heading = Topic::ALL.into_iter().find(|t| t.title() == line);
            assert!(heading.is_some(), "a topic heading: {line:?}");
            assert!(heading > topic, "topics in the page's order:\n{out}");
            topic = heading;
        }
    }
    listed.sort();
    let mut names: Vec<String> = BUILTINS.iter().map(|(name, _)| name.to_string()).collect();
    names.sort();
    assert_eq!(listed, names, "every built-in once");
    assert!(summary_columns.windows(2).all(|w| w[0] == w[1]), "summaries line up:\n{out}");
    assert!(out.starts_with("Keys and order\n  default "), "{out}");
    assert!(out.contains("\n\nDelivery guarantees\n"), "a blank line between topics:\n{out}");
}

// -------------------------------------------------------------- bad input

#[test]
fn an_unknown_scenario_lists_the_built_ins() {
    let err = failure_of(&["run", "--scenario", "crash-commit-sideways"]);
    assert!(err.contains("crash-commit-sideways"), "{err}");
    for (name, _) in BUILTINS {
        assert!(err.contains(name), "{err}");
    }
}

#[test]
fn a_missing_scenario_file_is_named() {
    let err = failure_of(&["run", "--scenario", "/nonexistent/offsetlab/s.json"]);
    assert!(err.contains("cannot read /nonexistent/offsetlab/s.json"), "{err}");
}

#[test]
fn malformed_json_names_the_line() {
    let file = temp_file("bad.json", b"{\n  \"name\": \"x\",\n  \"ticks\": ,\n}\n");
    let err = failure_of(&["run", "--scenario", file.path()]);
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains(file.path()), "{err}");
}

#[test]
fn an_unknown_config_field_is_named() {
    let file = temp_file("field.json", br#"{"name": "x", "config": {"partitons": 4}}"#);
    let err = failure_of(&["run", "--scenario", file.path()]);
    assert!(err.contains("partitons"), "{err}");
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn zero_partitions_in_a_scenario_is_refused() {
    let file = temp_file("zero.json", br#"{"name": "x", "config": {"partitions": 0}}"#);
    let err = failure_of(&["run", "--scenario", file.path()]);
    assert!(err.contains("config.partitions"), "{err}");
}

#[test]
fn a_refused_timeline_input_names_it_and_the_seed() {
    let json = br#"{"name": "bad-crash", "config": {"consumers": 1}, "ticks": 10,
        "timeline": [{"tick": 2, "input": {"do": "crash", "consumer": "c7"}}]}"#;
    let file = temp_file("refused.json", json);
    let err = failure_of(&["run", "--scenario", file.path(), "--seed", "77"]);
    assert!(err.contains("seed 77"), "{err}");
    assert!(err.contains("timeline[0]"), "{err}");
    assert!(err.contains("c7"), "{err}");
}

#[test]
fn too_many_ticks_is_refused_with_the_seed() {
    let err = failure_of(&["run", "--scenario", "default", "--ticks", "99999999999"]);
    assert!(err.contains("ticks") && err.contains("seed 1"), "{err}");
}

#[test]
fn a_scenario_file_that_is_not_utf8_is_refused() {
    let file = temp_file("latin1.json", b"{\"name\": \"caf\xe9\"}");
    let err = failure_of(&["run", "--scenario", file.path()]);
    assert!(err.contains("UTF-8"), "{err}");
}

#[test]
fn invalid_hex_is_refused() {
    let err = failure_of(&["partition", "--partitions", "3", "--hex", "66zz"]);
    assert!(err.contains("\"66zz\"") && err.contains("hex"), "{err}");
    let err = failure_of(&["partition", "--partitions", "3", "--hex", "666"]);
    assert!(err.contains("odd number"), "{err}");
    let file = temp_file("badhex.txt", b"6666\n\n0x66\n");
    let err = failure_of(&["partition", "--partitions", "3", "--hex", "--keys-file", file.path()]);
    assert!(err.contains("line 3") && err.contains(file.path()), "{err}");
}

#[test]
fn partition_counts_are_checked() {
    let err = failure_of(&["partition", "foo"]);
    assert!(err.contains("--partitions"), "{err}");
    let err = failure_of(&["partition", "--partitions", "0", "foo"]);
    assert!(err.contains("--partitions") && err.contains("got 0"), "{err}");
    let err = failure_of(&["partition", "--partitions", "many", "foo"]);
    assert!(err.contains("--partitions"), "{err}");
    let err = failure_of(&["partition", "--partitions", "3"]);
    assert!(err.contains("no keys"), "{err}");
}

#[test]
fn expand_only_grows() {
    for (from, to) in [("6", "3"), ("4", "4")] {
        let err = failure_of(&["expand", "--from", from, "--to", to, "key"]);
        assert!(err.contains("--to") && err.contains("only add partitions"), "{err}");
    }
    let err = failure_of(&["expand", "--from", "0", "--to", "3", "key"]);
    assert!(err.contains("--from"), "{err}");
}

#[test]
fn unreadable_keys_files_are_named() {
    let err = failure_of(&["partition", "--partitions", "3", "--keys-file", "/nonexistent/offsetlab/keys"]);
    assert!(err.contains("cannot read /nonexistent/offsetlab/keys"), "{err}");
    let file = temp_file("binary.txt", b"ok\n\xff\xfe\n");
    let err = failure_of(&["partition", "--partitions", "3", "--keys-file", file.path()]);
    assert!(err.contains("UTF-8"), "{err}");
}

#[test]
fn no_command_and_unknown_commands_fail() {
    failure_of(&[]);
    failure_of(&["partiton", "--partitions", "3", "x"]);
    failure_of(&["run"]);
}

#[test]
fn every_command_has_help() {
    for command in ["partition", "expand", "run", "scenarios", "shrink"] {
        let out = stdout_of(&[command, "--help"]);
        assert!(out.contains("Usage: offsetlab "), "{out}");
    }
    let out = stdout_of(&["partition", "--help"]);
    assert!(out.contains("Empty lines are skipped"), "{out}");
    assert!(out.contains("Keys from the arguments come first"), "{out}");
}

/// Several groups: `--json` keeps the first group's metrics and describe at
/// the top and lists every group; the text has a table and counters per group.
#[test]
fn two_groups_print_each_group() {
    let v = run_json(&["--scenario", "two-groups"]);
    let groups = v["groups"].as_array().expect("groups");
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["demo", "audit"]);
    assert_eq!(v["metrics"], groups[0]["metrics"], "the top level is the first group");
    assert_eq!(v["describe"], groups[0]["describe"]);
    for g in groups {
        let name = g["name"].as_str().unwrap();
        let describe = g["describe"].as_str().unwrap();
        assert!(describe.lines().skip(1).all(|l| l.starts_with(name)), "{name}'s table names it: {describe}");
        assert_eq!(g["metrics"]["delivered"], 240, "{name} handled every record");
    }
    assert_eq!(groups[1]["metrics"]["active_consumers"], 1);
    let text = stdout_of(&["run", "--scenario", "two-groups"]);
    let demo = text.find("group demo").expect("a demo heading");
    let audit = text.find("group audit").expect("an audit heading");
    assert!(demo < audit, "{text}");
    assert!(text[audit..].contains("\naudit           orders          0"), "{text}");
    assert!(text.contains("outcome: reproduced: audit fell"), "{text}");
    // One group: no group headings, as before.
    assert!(!stdout_of(&["run", "--scenario", "crash-commit-after"]).contains("group demo"));
}

/// Inputs naming a group that does not exist are refused by name, with the seed.
#[test]
fn an_input_for_an_unknown_group_is_refused() {
    let dir = std::env::temp_dir().join(format!("offsetlab-groups-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("unknown-group.json");
    std::fs::write(
        &file,
        r#"{"name": "x", "ticks": 5, "timeline": [{"tick": 1, "input": {"do": "add-consumer", "group": "nope"}}]}"#,
    )
    .unwrap();
    let message = failure_of(&["run", "--scenario", file.to_str().unwrap()]);
    assert!(message.contains(r#"no group named "nope""#), "{message}");
    assert!(message.contains("seed"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------- describe views

/// The table between the header line and the counters of `run`'s text.
fn table_of(out: &str) -> &str {
    let start = out.find("\n\n").expect("a blank line after the header") + 2;
    let end = out[start..].find("\n\n").map_or(out.len(), |i| start + i + 1);
    &out[start..end]
}

#[test]
fn describe_members_verbose_shows_epochs_and_target_assignments() {
    let out = stdout_of(&[
        "run",
        "--scenario",
        "consumer-protocol-scale-out",
        "--describe",
        "members",
        "--verbose",
    ]);
    let table = table_of(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   \
         CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT   "
    );
    assert_eq!(lines.len(), 6, "{table}");
    let mut total = 0;
    for line in &lines[1..] {
        let words: Vec<&str> = line.split_whitespace().collect();
        // GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT TARGET-EPOCH TARGET
        assert_eq!(words.len(), 9, "{line}");
        assert_eq!(words[1].len(), 22, "a consumer-protocol member id is a base64 UUID: {line}");
        // Kafka 4.4.0 starts a group at epoch 2 with its first member: 2 + 5 joins + 1 expiry.
        assert_eq!((words[5], words[7]), ("8", "8"), "reconciled to group epoch 8: {line}");
        assert_eq!(words[6], words[8], "current = target once stable: {line}");
        assert!(line.ends_with(' '), "Kafka pads the last column: {line:?}");
        total += words[4].parse::<u32>().unwrap();
    }
    assert_eq!(total, 6);
}

#[test]
fn describe_state_names_the_protocols_assignor_and_state() {
    let consumer = stdout_of(&[
        "run",
        "--scenario",
        "consumer-protocol-scale-out",
        "--describe",
        "state",
        "--ticks",
        "35",
        "-v",
    ]);
    assert_eq!(table_of(&consumer), "Warning: Consumer group 'demo' is rebalancing.\n");
    assert!(consumer.contains(
        "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                GROUP-EPOCH     \
         TARGET-ASSIGNMENT-EPOCH   #MEMBERS\n\
         demo            localhost:9092  (1)       uniform              Reconciling          7               7                         6\n"
    ), "{consumer}");
    let classic = stdout_of(&["run", "--scenario", "scale-out-cooperative", "--describe", "state"]);
    assert_eq!(
        table_of(&classic),
        "GROUP           COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS\n\
         demo            localhost:9092  (1)       cooperative-sticky   Stable               5\n"
    );
    let failure = failure_of(&["run", "--scenario", "default", "--describe", "lag"]);
    assert!(failure.contains("offsets, members, state"), "{failure}");
}

#[test]
fn describe_members_lists_static_members_instance_ids() {
    let out = stdout_of(&["run", "--scenario", "static-rolling-update", "--describe", "members"]);
    let table = table_of(&out);
    assert!(
        table.starts_with(
            "GROUP           CONSUMER-ID                                 GROUP-INSTANCE-ID HOST"
        ),
        "{table}"
    );
    for (line, instance) in table.lines().skip(1).zip(["inst-1", "inst-2", "inst-3"]) {
        let words: Vec<&str> = line.split_whitespace().collect();
        // Kafka names a static classic member after its instance: `inst-1-<UUID>`.
        assert!(words[1].starts_with(&format!("{instance}-")) && words[1].len() == 43, "{line}");
        assert_eq!(words[2], instance, "{line}");
    }
}

#[test]
fn a_share_group_prints_kafka_share_groups_views_and_its_counters() {
    let out = stdout_of(&["run", "--scenario", "share-group-busy"]);
    let table = table_of(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "GROUP           TOPIC           PARTITION  START-OFFSET  LAG");
    assert_eq!(lines.len(), 4, "one row per partition: {table}");
    assert!(out.contains("\narchived         0\nredelivered      0\n"), "{out}");
    let members = stdout_of(&["run", "--scenario", "share-group-busy", "--describe", "members", "--verbose"]);
    let table = table_of(&members);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS  MEMBER-EPOCH  ASSIGNMENT"
    );
    assert_eq!(lines.len(), 9, "eight members: {table}");
    let shared: u32 =
        lines[1..].iter().map(|l| l.split_whitespace().nth(4).unwrap().parse::<u32>().unwrap()).sum();
    assert_eq!(shared, 9, "three partitions, each shared by three: {table}");
    let state = stdout_of(&["run", "--scenario", "share-group-busy", "--describe", "state"]);
    assert!(
        table_of(&state).contains("demo            localhost:9092  (1)       Stable          8\n"),
        "{state}"
    );
    let json = stdout_of(&["run", "--scenario", "share-poison-record", "--json"]);
    let v: serde_json::Value = serde_json::from_str(json.trim()).expect("json");
    assert_eq!(
        (v["metrics"]["archived"].as_u64(), v["metrics"]["failed"].as_u64()),
        (Some(1), Some(5)),
        "{json}"
    );
}

/// `run --describe topic` prints `kafka-topics --describe --topic orders`
/// once; `--json` carries the producer's and the cluster's counters.
#[test]
fn run_describes_the_topic_and_reports_what_was_written() {
    let text = stdout_of(&["run", "--scenario", "unclean-election", "--describe", "topic"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].starts_with("Topic: orders\tTopicId: "), "{text}");
    assert!(
        lines[2].ends_with(
            "\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: unclean.leader.election.enable=true"
        ),
        "{text}"
    );
    // Broker 1 crashed and was fenced: broker 2 leads alone, after an unclean election.
    assert_eq!(
        lines[3], "\tTopic: orders\tPartition: 0\tLeader: 2\tReplicas: 1,2\tIsr: 2\tElr: \tLastKnownElr: ",
        "{text}"
    );
    // The producer's counters follow the group's, once for the topic.
    let producer = text.lines().skip_while(|l| *l != "producer").collect::<Vec<_>>();
    assert_eq!(producer.len(), 6, "producer, four counters, the outcome: {text}");
    let acked_lost: u64 = producer[1].strip_prefix("acknowledged then lost").unwrap().trim().parse().unwrap();
    assert!(acked_lost >= 1, "{text}");
    // The page's labels, one name for a number everywhere.
    assert_eq!(
        &producer[2..5],
        [
            "written twice by the producer      0",
            "reordered by the producer          0",
            "writes refused (NotEnoughReplicas) 0"
        ],
        "{text}"
    );
    // A run without brokers or a delivery path has no such block.
    assert!(!stdout_of(&["run", "--scenario", "default"]).lines().any(|l| l == "producer"));
    let json = stdout_of(&["run", "--scenario", "unclean-election", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let metrics = &value["groups"][0]["metrics"];
    assert!(metrics["acked_lost"].as_u64().unwrap() >= 1, "{json}");
    assert_eq!(metrics["producer_duplicates"], 0);
    assert_eq!(metrics["writes_refused"], 0);
}

/// `run` prints a transactions block for a run with `config.transactions`:
/// payouts per partition with its last stable offset, each member's
/// transactional producer, the downstream counters; `--json` carries them.
#[test]
fn run_reports_the_transactions_and_the_downstream_reader() {
    let text = stdout_of(&["run", "--scenario", "eos-zombie-fenced"]);
    let block: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("transactions")).collect();
    assert_eq!(block[0], "transactions (group demo, downstream read_committed)", "{text}");
    assert!(block[1].starts_with("payouts-0 ") && block[1].contains("last stable"), "{text}");
    // c1, the zombie, was fenced by c3, which owns its transactional.id now.
    // Each line: consumer, transactional.id, epoch, the producer's own state, the coordinator's.
    let words = |consumer: &str| -> Vec<&str> {
        let line =
            block.iter().find(|l| l.starts_with(consumer)).unwrap_or_else(|| panic!("{consumer}: {text}"));
        line.split_whitespace().collect()
    };
    let zombie = words("c1 ");
    assert_eq!((zombie[1], zombie[4]), ("demo-inst-1", "fenced"), "{text}");
    let replacement = words("c3 ");
    assert_eq!((replacement[1], replacement[4]), ("demo-inst-1", "ready"), "{text}");
    assert_eq!(&replacement[5..], ["coordinator", "CompleteCommit"], "{text}");
    let count = |label: &str| -> u64 {
        let line = block.iter().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {text}"));
        line[label.len()..].trim().parse().unwrap()
    };
    assert_eq!((count("read downstream"), count("read twice"), count("aborted read")), (12, 0, 0), "{text}");
    // Each partition's tape: the aborted results marked, the markers named.
    assert_eq!(
        block[2], "  0:#0(aborted) 1:#4(aborted) 2:ABORT 3:#0 4:#4 5:#7 6:#8 7:COMMIT 8:#9 9:#10 10:COMMIT",
        "{text}"
    );
    assert!(count("fenced writes") >= 1, "{text}");
    assert!(!stdout_of(&["run", "--scenario", "default"]).lines().any(|l| l.starts_with("transactions")));
    let json = stdout_of(&["run", "--scenario", "eos-read-uncommitted", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let metrics = &value["metrics"];
    assert!(metrics["aborted_seen"].as_u64().unwrap() >= 1, "{json}");
    assert!(metrics["downstream_duplicates"].as_u64().unwrap() >= 1, "{json}");
    assert_eq!(metrics["fenced_writes"], 0);
    assert_eq!(
        metrics["downstream_delivered"].as_u64().unwrap(),
        12 + metrics["downstream_duplicates"].as_u64().unwrap()
    );
    // Each member's producer: c1 crashed in its transaction, which the coordinator's timeout aborted.
    let producers = value["transactions"]["producers"].as_array().expect("transactions.producers");
    let c1 = producers.iter().find(|p| p["consumer"] == "c1").expect("c1's producer");
    assert_eq!(
        (&c1["transactional_id"], &c1["state"], &c1["coordinator_state"]),
        (&"demo-c1".into(), &"stopped".into(), &"CompleteAbort".into()),
        "{json}"
    );
    let plain = stdout_of(&["run", "--scenario", "default", "--json"]);
    assert!(serde_json::from_str::<serde_json::Value>(&plain).unwrap().get("transactions").is_none());
}

/// A run where members left on their poll timeout prints how many, and the commits that
/// failed after; `--json` has both counters.
#[test]
fn run_prints_the_poll_timeouts_and_the_failed_commits() {
    let text = stdout_of(&["run", "--scenario", "slow-handler-poll-timeout"]);
    let m = builtin("slow-handler-poll-timeout").unwrap().run(None, None).unwrap().metrics();
    assert!(m.members_left_poll_timeout > 0 && m.commit_failed > 0, "{m:?}");
    assert!(text.contains(&format!("left on poll     {}\n", m.members_left_poll_timeout)), "{text}");
    assert!(text.contains(&format!("commits failed   {}\n", m.commit_failed)), "{text}");
    let v = run_json(&["--scenario", "slow-handler-poll-timeout"]);
    assert_eq!(v["metrics"]["commit_failed"], m.commit_failed);
    // Without a poll timeout, the lines are not printed.
    assert!(!stdout_of(&["run", "--scenario", "crash-commit-after"]).contains("left on poll"));
}

/// KIP-1191: `run --json` counts the share group's dead letter and lists it
/// with Kafka's headers; the text prints it under its topic's name.
#[test]
fn run_shows_a_share_groups_dead_letter_with_kafkas_headers() {
    let v = run_json(&["share-dlq"]);
    assert_eq!(v["metrics"]["archived"], 1, "{}", v["metrics"]);
    assert_eq!(v["metrics"]["dead_lettered"], 1, "{}", v["metrics"]);
    let letters = v["share_dead_letters"].as_array().expect("listed");
    assert_eq!(letters.len(), 1);
    let letter = &letters[0];
    assert_eq!(letter["topic"], "dlq.orders");
    assert_eq!(letter["group"], "demo");
    assert!(letter["key"].is_string() && letter["value_record_id"].is_u64(), "copied: {letter}");
    let names: Vec<&str> =
        letter["headers"].as_array().unwrap().iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "__dlq.errors.topic",
            "__dlq.errors.partition",
            "__dlq.errors.offset",
            "__dlq.errors.group",
            "__dlq.errors.delivery.count",
            "__dlq.errors.message"
        ]
    );
    assert_eq!(letter["headers"][4]["value"], "5");
    assert_eq!(letter["headers"][5]["value"], "Offset delivery count exceeded the threshold.");
    let text = stdout_of(&["run", "share-dlq"]);
    assert!(text.contains("dlq.orders (group demo) P"), "{text}");
    assert!(text.contains("  __dlq.errors.group: demo\n"), "{text}");
    assert!(run_json(&["share-poison-record"]).get("share_dead_letters").is_none());
}

/// What the conformance driver `ShareGroups` reads of `share-dlq` from one
/// `run --describe members --json --events`: the group configs, the poison
/// record's `produced` event (its partition, offset, subject and record id)
/// and the letter, whose key, value and headers name that record.
#[test]
fn run_json_events_gives_the_share_dlq_driver_the_poison_its_letter_copies() {
    let v = run_json(&["--scenario", "share-dlq", "--describe", "members", "--events"]);
    let group = &v["config"]["groups"][0];
    assert_eq!(group["dead_letter_topic"], "dlq.orders", "{group}");
    assert_eq!(group["dead_letter_copy_record"], true, "{group}");
    assert_eq!(group["delivery_count_limit"], 5, "{group}");
    let poison: Vec<&Value> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "produced" && e["poison"] == true)
        .collect();
    assert_eq!(poison.len(), 1, "{poison:?}");
    let poison = poison[0];
    assert!(poison["partition"].is_u64() && poison["offset"].is_u64() && poison["keyed"] == true, "{poison}");
    let letter = &v["share_dead_letters"][0];
    assert_eq!(letter["partition"], poison["partition"], "{letter}");
    assert_eq!(letter["key"], format!("user-{}", poison["subject"]), "{letter}");
    assert_eq!(letter["value_record_id"], poison["record_id"], "{letter}");
    let header = |name: &str| {
        letter["headers"].as_array().unwrap().iter().find(|h| h["name"] == name).map(|h| h["value"].clone())
    };
    assert_eq!(header("__dlq.errors.topic"), Some(Value::from("orders")));
    assert_eq!(header("__dlq.errors.group"), Some(group["name"].clone()));
    assert_eq!(header("__dlq.errors.partition"), Some(Value::from(poison["partition"].to_string())));
    assert_eq!(header("__dlq.errors.offset"), Some(Value::from(poison["offset"].to_string())));
    // The driver reads the source topic's name from the members' assignments.
    assert!(
        v["groups"][0]["describe"].as_str().unwrap().contains(" orders:"),
        "{}",
        v["groups"][0]["describe"]
    );
}

// ------------------------------------------------------------------ explain

#[test]
fn explain_names_the_cause_of_each_duplicate_and_the_record_asked_about() {
    let all = stdout_of(&["explain", "commit-on-timer"]);
    assert!(all.starts_with("duplicates: 14 (Jepsen: nonmonotonic-poll, "), "{all}");
    assert!(all.contains("  14 × a crash before the next auto-commit\n"), "{all}");
    let record = stdout_of(&["explain", "--scenario", "commit-on-timer", "--record", "P0@3"]);
    assert_eq!(record.lines().count(), 1, "{record}");
    assert!(
        record.starts_with("P0@3 delivered twice — t34 c1 handled it (generation 1, auto-commit); "),
        "{record}"
    );
    assert!(record.contains("c2 resumed P0 at the committed offset 3, written by c1 at t27"), "{record}");
    let none = stdout_of(&["explain", "commit-on-timer", "--record", "P1@0"]);
    assert_eq!(none, "P1@0: no anomaly in group demo\n");
    let quiet = stdout_of(&["explain", "rebalance-storm", "--anomaly", "out_of_key_order"]);
    assert_eq!(quiet, "out_of_key_order: 0\n");
}

/// Issue 40's causes, as `offsetlab explain` prints them: a record the
/// handler's `skip` policy passed, a record a retry topic reordered, and a
/// dead letter the replay paid twice.
#[test]
fn explain_names_the_failing_handler_and_its_error_policy() {
    expect_test::expect![[r#"
        never_processed: 1 (Jepsen: poll-skip, reads of a partition jumped over offsets that hold records)
          1 × the handler failed and the error policy skipped it
        P2@10 never processed — t3 the producer wrote record #20 to P2@10; t12 c2's handler failed on P2@10 (poison record); t12 the error policy skip logged it and moved on; t13 c2 committed P2 up to 12, past it
    "#]]
    .assert_eq(&stdout_of(&["explain", "poison-skipped"]));
    expect_test::expect![[r#"
        out_of_key_order: 1
          1 × a retry topic: its partition went on without it
        P0@1 out of key order — t5 the producer wrote user-1's record #5 to P0@1; t6 c1's handler failed on P0@1 (a failing attempt); t6 P0@1 went to orders-retry-1 after its handler failed, due at t10; P0 went on; t10 the producer wrote user-1's later record #10 to P0@3; t10 c1 handled the later record of the same key, P0@3, first (generation 1, commit after); t10 the retry consumer handled P0@1 after it
    "#]]
    .assert_eq(&stdout_of(&["explain", "retry-topic-reorders"]));
    expect_test::expect![[r#"
        double_applied_on_replay: 1
          1 × a failed attempt paid before it threw, and the replay paid again
        P1@6 paid twice by the replay — t2 the producer wrote record #10 to P1@6; t8 c1's handler failed on P1@6 after making its payout (a failing attempt); t8 c1 wrote P1@6 to orders.DLT (P1@0) after 1 failed attempt; t20 the handler was fixed; t22 the replay job started reading orders.DLT from its start; t23 the replay job applied P1@6 again from orders.DLT P1@0: the ledger has no unique constraint, so its payout was made twice
    "#]]
    .assert_eq(&stdout_of(&["explain", "dead-letter-replay-not-idempotent", "--anomaly", "double_applied_on_replay"]));
}

#[test]
fn explain_json_lists_the_steps_and_run_adds_them_with_explain() {
    let v: Value = serde_json::from_str(&stdout_of(&["explain", "crash-commit-before", "--json"])).unwrap();
    let report = &v[0]["reports"][0];
    assert_eq!(report["anomaly"], "never_processed");
    assert_eq!(report["standard_name"]["name"], "poll-skip");
    assert_eq!(report["counted"], 3);
    let steps = report["explanations"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[1]["part"]["part"], "commit", "{steps:?}");
    let run = run_json(&["crash-commit-before", "--explain"]);
    assert_eq!(run["explanations"], v);
    assert!(run_json(&["crash-commit-before"]).get("explanations").is_none());
}

#[test]
fn explain_refuses_a_bad_record_or_counter_by_name() {
    assert!(
        failure_of(&["explain", "crash-commit-after", "--record", "P7@0"])
            .contains("3 partitions (P0 to P2)")
    );
    assert!(failure_of(&["explain", "crash-commit-after", "--record", "seven"]).contains("PARTITION@OFFSET"));
    let bad = failure_of(&["explain", "crash-commit-after", "--anomaly", "lag"]);
    assert!(bad.contains("duplicates, never_processed, out_of_key_order"), "{bad}");
    failure_of(&["explain", "crash-commit-after", "--anomaly", "duplicates", "--record", "P0@0"]);
    failure_of(&["run", "crash-commit-after", "--explain"]);
    failure_of(&["explain", "no-such-scenario"]);
}

// ------------------------------------------------------------------- shrink

/// A counter at the end of `run --json`: the highest of the groups' values.
fn counter_of(run: &Value, counter: &str) -> u64 {
    let groups = run["groups"].as_array().expect("groups");
    groups.iter().map(|g| g["metrics"][counter].as_u64().expect(counter)).max().unwrap_or(0)
}

/// `shrink` in text: the scenario on stdout, the report on stderr.
fn shrink_text(args: &[&str]) -> (String, String) {
    let mut all = vec!["shrink"];
    all.extend(args);
    let output = offsetlab(&all);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "offsetlab {all:?} failed: {stderr}");
    (String::from_utf8(output.stdout).unwrap(), stderr)
}

/// The shrunk scenario is scenario JSON that `run` reads and that still
/// ends with the counter above 0; it is no longer than the original; the
/// report says so, with the runs it took.
#[test]
fn shrink_writes_a_smaller_scenario_that_run_reproduces() {
    let (json, report) = shrink_text(&["--scenario", "consumer-checkpoint", "--anomaly", "duplicates"]);
    let shrunk = offsetlab_engine::Scenario::parse(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let original = builtin("consumer-checkpoint").unwrap();
    assert!(shrunk.timeline.len() <= original.timeline.len() && shrunk.ticks <= original.ticks);
    assert!(shrunk.timeline.len() < original.timeline.len() || shrunk.ticks < original.ticks);
    assert_eq!(shrunk.name, "consumer-checkpoint-shrunk");
    let file = temp_file("shrunk.json", json.as_bytes());
    let run = run_json(&["--scenario", file.path()]);
    let duplicates = counter_of(&run, "duplicates");
    assert!(duplicates > 0, "{run}");
    let lines: Vec<&str> = report.lines().collect();
    assert!(lines[0].starts_with("shrunk consumer-checkpoint for duplicates in "), "{report}");
    assert_eq!(
        lines[1],
        format!("inputs           {} -> {}", original.timeline.len(), shrunk.timeline.len())
    );
    assert_eq!(lines[2], format!("ticks            {} -> {}", original.ticks, shrunk.ticks));
    let before = counter_of(&run_json(&["--scenario", "consumer-checkpoint"]), "duplicates");
    assert_eq!(lines[3], format!("duplicates       {before} -> {duplicates}"));
    assert_eq!(lines[4], "stopped by       nothing: no smaller candidate tried shows it");
    assert_eq!(lines.len(), 5, "{report}");
}

/// A scenario file, the scenario in the first position, `--out`: the file
/// holds the scenario, stdout nothing, and the report names the file.
#[test]
fn shrink_reads_a_file_and_writes_out() {
    let original = builtin("acks1-leader-crash").unwrap();
    let input = temp_file("acks1.json", original.to_json().as_bytes());
    let out = temp_file("acks1-shrunk.json", b"");
    let (stdout, report) = shrink_text(&[input.path(), "--anomaly", "acked_lost", "--out", out.path()]);
    assert_eq!(stdout, "");
    assert!(report.contains(&format!("written to       {}\n", out.path())), "{report}");
    let written = std::fs::read_to_string(&out.0).unwrap();
    let shrunk = offsetlab_engine::Scenario::parse(&written).unwrap();
    assert!(shrunk.timeline.len() < original.timeline.len(), "{written}");
    assert!(counter_of(&run_json(&["--scenario", out.path()]), "acked_lost") > 0);
}

/// `--json`: one object on one line, the report's numbers and the shrunk
/// scenario, in the format's field order; a spent budget says which option.
#[test]
fn shrink_json_carries_the_report_and_the_scenario() {
    let out = stdout_of(&["shrink", "crash-commit-before", "--anomaly", "never_processed", "--json"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&v["scenario"], &v["anomaly"]), (&"crash-commit-before".into(), &"never_processed".into()));
    assert_eq!((v["inputs_before"].as_u64(), v["ticks_before"].as_u64()), (Some(2), Some(60)));
    assert!(v["ticks_after"].as_u64().unwrap() < 60, "{v}");
    assert!(v["value_before"].as_u64().unwrap() > 0 && v["value_after"].as_u64().unwrap() > 0, "{v}");
    assert!(v["runs_tried"].as_u64().unwrap() >= 2, "{v}");
    assert_eq!((&v["stopped_by"], &v["out"]), (&Value::Null, &Value::Null));
    let shrunk = &v["shrunk"];
    assert_eq!(shrunk["ticks"], v["ticks_after"]);
    assert_eq!(shrunk["timeline"].as_array().unwrap().len() as u64, v["inputs_after"].as_u64().unwrap());
    // The format's order: name first, as `to_json` writes it.
    assert!(out.contains(r#""shrunk":{"name":"crash-commit-before-shrunk","summary":"#), "{out}");
    let text = serde_json::to_string(shrunk).unwrap();
    offsetlab_engine::Scenario::parse(&text).unwrap();

    let out = stdout_of(&[
        "shrink",
        "crash-commit-before",
        "--anomaly",
        "never_processed",
        "--json",
        "--max-runs",
        "3",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["stopped_by"], "--max-runs 3");
    assert!(v["runs_tried"].as_u64().unwrap() <= 3 && v["value_after"].as_u64().unwrap() > 0, "{v}");
}

/// Stopped by the budget, the report says which option and the result still shows the counter.
#[test]
fn shrink_stopped_by_max_runs_still_reproduces() {
    let (json, report) =
        shrink_text(&["offsets-expired", "--anomaly", "skipped_by_reset", "--max-runs", "2"]);
    assert!(report.contains("in 2 runs\n"), "{report}");
    assert!(
        report.contains("stopped by       --max-runs 2: a smaller scenario may still show it\n"),
        "{report}"
    );
    let file = temp_file("budget.json", json.as_bytes());
    assert!(counter_of(&run_json(&["--scenario", file.path()]), "skipped_by_reset") > 0);
}

#[test]
fn shrink_refuses_an_unknown_counter_with_the_names() {
    let err = failure_of(&["shrink", "--scenario", "crash-commit-after", "--anomaly", "dupes"]);
    assert!(err.contains("--anomaly") && err.contains(r#"no counter named "dupes""#), "{err}");
    for name in ["duplicates", "never_processed", "acked_lost", "producer_reordered", "commit_failed"] {
        assert!(err.contains(name), "{err}");
    }
    let err = failure_of(&["shrink", "--scenario", "crash-commit-after"]);
    assert!(err.contains("--anomaly"), "{err}");
}

#[test]
fn shrink_refuses_a_counter_the_scenario_does_not_show() {
    let err = failure_of(&["shrink", "--scenario", "keys-keep-order", "--anomaly", "duplicates"]);
    assert_eq!(
        err,
        "offsetlab: scenario keys-keep-order: the scenario does not show duplicates: it is 0 in every group \
         after its 150 ticks\n"
    );
}

#[test]
fn shrink_names_a_missing_or_bad_scenario_file() {
    let err =
        failure_of(&["shrink", "--scenario", "/nonexistent/offsetlab/s.json", "--anomaly", "duplicates"]);
    assert!(err.contains("cannot read /nonexistent/offsetlab/s.json"), "{err}");
    let file = temp_file("zero-shrink.json", br#"{"name": "x", "config": {"partitions": 0}}"#);
    let err = failure_of(&["shrink", "--scenario", file.path(), "--anomaly", "duplicates"]);
    assert!(err.contains("config.partitions"), "{err}");
    let err = failure_of(&[
        "shrink",
        "--scenario",
        "crash-commit-after",
        "--anomaly",
        "duplicates",
        "--out",
        "/nonexistent/offsetlab/out.json",
    ]);
    assert!(err.contains("cannot write /nonexistent/offsetlab/out.json"), "{err}");
}

#[test]
fn shrink_checks_its_budgets() {
    for (option, value, says) in [
        ("--max-runs", "0", "got 0"),
        ("--max-runs", "1", "got 1"),
        ("--max-runs", "1000001", "got 1000001"),
        ("--max-runs", "many", "\"many\" is not a whole number"),
        ("--max-runs", "-5", "not a whole number"),
        ("--max-seconds", "0", "got 0"),
        ("--max-seconds", "86401", "got 86401"),
        ("--max-seconds", "1.5", "not a whole number"),
    ] {
        // `--max-runs=-5`: clap takes `-5` apart from its option for a flag.
        let arg = format!("{option}={value}");
        let err = failure_of(&["shrink", "crash-commit-after", "--anomaly", "duplicates", &arg]);
        assert!(err.contains(option) && err.contains(says), "{option} {value}: {err}");
    }
    let err = failure_of(&["shrink", "crash-commit-after", "--anomaly", "duplicates", "--max-runs", "1"]);
    assert!(err.contains("2 to 1000000 runs"), "{err}");
}
