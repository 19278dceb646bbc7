//! `offsetlab explain`: why each anomaly of a run happened, as chains of
//! sentences with ticks (the engine's `report` and `explain_record`).

use crate::Failure;
use offsetlab_engine::{Anomaly, Explanation, Report, Sim, explain_record, report, run_sentence, runs};
use serde::Serialize;
use std::fmt::Write as _;

/// What to explain: everything the run counted, one counter, or one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    All,
    Anomaly(Anomaly),
    Record { partition: u32, offset: u64 },
}

impl Query {
    /// From `--anomaly` and `--record` (at most one of them, clap sees to that).
    pub fn parse(anomaly: Option<&str>, record: Option<&str>) -> Result<Query, Failure> {
        match (anomaly, record) {
            (Some(name), _) => Anomaly::from_counter(name).map(Query::Anomaly).ok_or_else(|| {
                let names: Vec<&str> = Anomaly::ALL.iter().map(|a| a.counter()).collect();
                Failure::new(format!(
                    "--anomaly {name}: not a counter explain knows; use one of {}, skipped_by_reset",
                    names.join(", ")
                ))
            }),
            (None, Some(text)) => parse_record(text),
            (None, None) => Ok(Query::All),
        }
    }
}

/// `P1@17` (or `1@17`): partition 1, offset 17.
fn parse_record(text: &str) -> Result<Query, Failure> {
    let bad = || Failure::new(format!("--record {text}: expected PARTITION@OFFSET, like P1@17"));
    let body = text.strip_prefix(['P', 'p']).unwrap_or(text);
    let (partition, offset) = body.split_once('@').ok_or_else(bad)?;
    let partition = partition.parse().map_err(|_| bad())?;
    let offset = offset.parse().map_err(|_| bad())?;
    Ok(Query::Record { partition, offset })
}

/// One group's answer, or the topic's (its writes' anomalies).
#[derive(Debug, Serialize)]
pub struct GroupAnswer {
    /// The group's name; `None` for the topic's answer.
    pub group: Option<String>,
    /// Every counter asked about (all: those above zero).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reports: Vec<Report>,
    /// With `--record`: that record's explanations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Vec<Explanation>>,
}

/// The answer for each group of `sim`, then the topic's when it has one.
pub fn answer(sim: &Sim, query: Query) -> Result<Vec<GroupAnswer>, Failure> {
    if let Query::Record { partition, offset } = query {
        let partitions = sim.view().partitions.len() as u32;
        if partition >= partitions {
            return Err(Failure::new(format!(
                "--record P{partition}@{offset}: the topic has {partitions} partition{} (P0 to P{})",
                if partitions == 1 { "" } else { "s" },
                partitions - 1
            )));
        }
    }
    let names: Vec<String> = sim.view().groups.iter().map(|g| g.name.clone()).collect();
    let mut answers = Vec::new();
    for g in (0..sim.group_count()).map(Some).chain([None]) {
        let group = g.map(|g| names[g].clone());
        let anomalies = Anomaly::ALL.into_iter().filter(|a| a.of_a_group() == g.is_some());
        let answer = match query {
            Query::All => GroupAnswer {
                group,
                reports: anomalies
                    .map(|a| report(sim, g.unwrap_or(0), a))
                    .filter(|r| r.counted > 0)
                    .collect(),
                record: None,
            },
            Query::Anomaly(a) if a.of_a_group() == g.is_some() => {
                GroupAnswer { group, reports: vec![report(sim, g.unwrap_or(0), a)], record: None }
            }
            Query::Anomaly(_) => continue,
            Query::Record { partition, offset } => {
                let record = explain_record(sim, g, partition, offset);
                if g.is_none() && record.is_empty() {
                    continue; // the topic speaks only of a record it wrote wrong
                }
                GroupAnswer { group, reports: Vec::new(), record: Some(record) }
            }
        };
        if g.is_none() && answer.reports.is_empty() && answer.record.is_none() {
            continue; // nothing the producer or the cluster did wrong
        }
        answers.push(answer);
    }
    Ok(answers)
}

/// Lines a counter's text lists unless asked for all.
pub const LISTED_DEFAULT: usize = 20;

/// The answers in sentences: per counter its count, Jepsen's name, the
/// records by cause, then a line per run of records whose chains read the
/// same (the first `listed` runs).
pub fn text(answers: &[GroupAnswer], query: Query, listed: usize) -> String {
    let mut out = String::new();
    let groups = answers.iter().filter(|a| a.group.is_some()).count();
    for answer in answers {
        let name = answer.group.as_deref().map_or("the topic".to_string(), |g| format!("group {g}"));
        if groups > 1 || answer.group.is_none() {
            let _ = writeln!(out, "{name}");
        }
        if let Some(record) = &answer.record {
            if let (true, Query::Record { partition, offset }) = (record.is_empty(), query) {
                let _ = writeln!(out, "P{partition}@{offset}: no anomaly in {name}");
            }
            for e in record {
                let _ = writeln!(out, "{}", e.sentence());
            }
        }
        if answer.reports.is_empty() && answer.record.is_none() {
            let _ = writeln!(out, "no anomaly counted in {name}");
        }
        for r in &answer.reports {
            let name = match r.standard_name {
                Some(n) => format!(" (Jepsen: {}, {})", n.name, n.definition),
                None => String::new(),
            };
            let _ = writeln!(out, "{}: {}{name}", r.anomaly.counter(), r.counted);
            for (cause, n) in &r.causes {
                let _ = writeln!(out, "  {n} × {cause}");
            }
            if r.unexplained > 0 {
                let _ = writeln!(
                    out,
                    "  {} no longer in the journal (retention deleted their records, or older)",
                    r.unexplained
                );
            }
            let runs = runs(&r.explanations);
            for run in runs.iter().take(listed) {
                let _ = writeln!(out, "{}", run_sentence(run));
            }
            // In records: an explanation may cover several (an election's cut).
            let shown: u64 = runs.iter().take(listed).flat_map(|run| run.iter()).map(|e| e.records).sum();
            let explained: u64 = r.causes.iter().map(|(_, n)| n).sum();
            if explained > shown {
                let why = if runs.len() > listed {
                    "--all lists them"
                } else {
                    "not listed: a counter explains its first records one by one, the causes above count them all"
                };
                let _ = writeln!(out, "… and {} more ({why})", explained - shown);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each built-in's anomalies, explained as `offsetlab explain NAME`
    /// prints them (the first three records of each counter).
    #[test]
    fn every_builtins_anomalies_are_explained_as_before() {
        let mut out = String::new();
        for scenario in offsetlab_engine::builtins() {
            let sim = scenario.run(None, None).expect("a built-in runs");
            let answers = answer(&sim, Query::All).expect("no record asked");
            if answers.iter().all(|a| a.reports.is_empty()) {
                continue;
            }
            let _ = writeln!(out, "== {}", scenario.name);
            out.push_str(&text(&answers, Query::All, 3));
        }
        expect_test::expect_file!["../tests/snapshots/explanations.txt"].assert_eq(&out);
    }

    /// torn-checkpoint replays 540 records with one story: a few lines say
    /// them, each record in one run, and `--all` does not send the reader to `--all`.
    #[test]
    fn records_whose_chains_read_the_same_are_one_line() {
        let scenario = offsetlab_engine::builtin("torn-checkpoint").expect("a built-in");
        let sim = scenario.run(None, None).expect("a built-in runs");
        let r = report(&sim, 0, Anomaly::Duplicates);
        let runs = runs(&r.explanations);
        let lines: Vec<&Explanation> = runs.iter().flat_map(|run| run.iter()).collect();
        assert_eq!(lines.len(), r.explanations.len(), "every explanation in one run");
        assert!(lines.iter().zip(&r.explanations).all(|(a, b)| std::ptr::eq(*a, b)), "in order");
        assert!(runs.len() * 10 < r.explanations.len(), "{} runs of {}", runs.len(), r.explanations.len());
        let first = run_sentence(runs[0]);
        assert!(first.starts_with("P0@60.."), "{first}");
        assert!(first.contains(" records) delivered twice — t"), "{first}");
        // Each run is consecutive offsets with one cause; a run of one says its own sentence.
        for run in &runs {
            assert!(run.windows(2).all(|w| w[1].offset == w[0].offset + 1 && w[0].cause == w[1].cause));
            if let [one] = run {
                assert_eq!(run_sentence(run), one.sentence());
            }
        }
        let answers = answer(&sim, Query::All).expect("no record asked");
        let all = text(&answers, Query::All, offsetlab_engine::EXPLANATIONS_MAX);
        assert!(!all.contains("--all lists them"), "{all}");
        assert!(all.contains("more (not listed: a counter explains its first records one by one"), "{all}");
        let none = text(&answers, Query::All, 0);
        assert!(none.contains("… and 540 more (--all lists them)"), "{none}");
    }

    #[test]
    fn records_and_counters_are_parsed_or_refused_by_name() {
        assert_eq!(Query::parse(None, Some("P1@17")).ok(), Some(Query::Record { partition: 1, offset: 17 }));
        assert_eq!(Query::parse(None, Some("2@0")).ok(), Some(Query::Record { partition: 2, offset: 0 }));
        assert_eq!(
            Query::parse(Some("skipped_by_reset"), None).ok(),
            Some(Query::Anomaly(Anomaly::NeverProcessed))
        );
        for bad in ["P1", "P@3", "Px@1", "P1@-2", ""] {
            let Err(Failure::Message(m)) = Query::parse(None, Some(bad)) else { panic!("{bad} accepted") };
            assert!(m.contains("PARTITION@OFFSET"), "{m}");
        }
        let Err(Failure::Message(m)) = Query::parse(Some("lag"), None) else { panic!("lag accepted") };
        assert!(m.contains("duplicates, never_processed, out_of_key_order"), "{m}");
    }
}
