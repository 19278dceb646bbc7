//! Behaviour kept: every built-in scenario's final counters, tapes and
//! `--describe` text, and a few shared links, as the engine produced them
//! before the broker/client redesign. A change here must be a bug fix, named
//! in the commit that makes it.

#![cfg(not(target_arch = "wasm32"))]

use offsetlab_engine::{History, JournalEntry, Link, LinkScenario, Sim, builtin, builtins, describe};
use std::fmt::Write as _;

/// The counters as they were named before the redesign (new ones are left out).
const METRICS: [&str; 15] = [
    "produced",
    "delivered",
    "distinct_handled",
    "duplicates",
    "effects",
    "never_processed",
    "lost_to_retention",
    "out_of_key_order",
    "total_lag",
    "active_consumers",
    "generation",
    "commit_requests",
    "partition_ticks_stopped",
    "double_paid_cents",
    "ledger_duplicates",
];

fn summary(sim: &Sim) -> String {
    let mut out = String::new();
    let metrics = serde_json::to_value(sim.metrics()).unwrap();
    for key in METRICS {
        if let Some(value) = metrics.get(key) {
            writeln!(out, "  {key} = {value}").unwrap();
        }
    }
    let view = sim.view();
    for p in &view.partitions {
        writeln!(
            out,
            "  P{} start={} end={} committed={:?} lag={:?}",
            p.partition, p.log_start, p.log_end, p.committed, p.lag
        )
        .unwrap();
    }
    for c in &view.consumers {
        writeln!(out, "  {} {:?} handled={} partitions={:?}", c.id, c.state, c.handled, c.partitions)
            .unwrap();
    }
    out.push_str(&describe(sim));
    out
}

#[test]
fn builtins_end_as_before() {
    let mut out = String::new();
    for scenario in builtins() {
        for guided in [false, true] {
            let scenario = if guided { scenario.guided() } else { scenario.clone() };
            let sim = scenario.run(None, None).unwrap_or_else(|e| panic!("{}: {e}", scenario.name));
            writeln!(out, "== {}{}", scenario.name, if guided { " (guided)" } else { "" }).unwrap();
            out.push_str(&summary(&sim));
        }
    }
    expect_test::expect_file!["snapshots/builtins.txt"].assert_eq(&out);
}

/// Links made by the build before the redesign (the query strings are fixed
/// here), opened by today's engine.
const LINKS: [&str; 4] = [
    include_str!("snapshots/link-crash.txt"),
    include_str!("snapshots/link-reset.txt"),
    include_str!("snapshots/link-booblik.txt"),
    include_str!("snapshots/link-inline.txt"),
];

#[test]
fn old_links_open_as_before() {
    let mut out = String::new();
    for query in LINKS {
        let link = Link::parse_query(query.trim()).expect("an old link still reads");
        let (scenario, guided) = link.scenario.clone().resolve().expect("resolves");
        let scenario = if guided { scenario.guided() } else { scenario };
        let journal = link
            .inputs
            .iter()
            .map(|(tick, input)| JournalEntry { tick: *tick, input: input.clone() })
            .collect();
        let history = History::replay(scenario, link.seed, journal, link.tick).expect("replays");
        writeln!(out, "== {} at tick {}", query.trim().chars().take(40).collect::<String>(), link.tick)
            .unwrap();
        out.push_str(&summary(history.sim()));
    }
    expect_test::expect_file!["snapshots/links.txt"].assert_eq(&out);
}

/// Writes the link fixtures (run once, with `MAKE_LINKS=1`, on the old build).
#[test]
fn make_links() {
    if std::env::var_os("MAKE_LINKS").is_none() {
        return;
    }
    use offsetlab_engine::{ConsumerId, Input, ResetSpec};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let make = |name: &str, scenario: LinkScenario, seed: u64, tick: u64, inputs: Vec<(u64, Input)>| {
        let link = Link { scenario, seed, tick, inputs };
        std::fs::write(dir.join(name), link.to_query() + "\n").unwrap();
    };
    let c1 = ConsumerId(1);
    make(
        "link-crash.txt",
        LinkScenario::Builtin { name: "crash-commit-after".into(), guided: true },
        7,
        60,
        vec![
            (3, Input::Send { count: 10 }),
            (5, Input::Crash { consumer: c1 }),
            (30, Input::Start { consumer: c1 }),
        ],
    );
    make(
        "link-reset.txt",
        LinkScenario::Builtin { name: "default".into(), guided: false },
        42,
        80,
        vec![
            (1, Input::Send { count: 20 }),
            (
                20,
                Input::RestartFrom {
                    group: None,
                    reset: ResetSpec::Offset { partition: Some(1), offset: 2 },
                },
            ),
            (40, Input::Send { count: 5 }),
        ],
    );
    make(
        "link-booblik.txt",
        LinkScenario::Builtin { name: "torn-checkpoint".into(), guided: false },
        3,
        90,
        vec![(10, Input::Send { count: 12 })],
    );
    let mut inline = builtin("two-consumers-keyless").or_else(|_| builtin("no-keys-reorder")).unwrap();
    inline.name = "mine".into();
    inline.config.partitions = 4;
    make(
        "link-inline.txt",
        LinkScenario::Inline(Box::new(inline)),
        11,
        50,
        vec![(2, Input::AddConsumer { group: None }), (8, Input::Send { count: 9 })],
    );
}
