//! The comparison programs' entries files, and the report `cargo xtask conformance` merges from
//! them.
//!
//! Each program writes a JSON array of entries:
//! `{"name", "kind": "scenario"|"assignor", "result": "equal"|"different"|"out-of-scope",
//! "cases": <int>, "detail": "<one line>", "table": "<optional multi-line plain text>"}`.
//! The merged report is `report.json` (the entries without their tables) and `report.md` (a
//! summary table, then each entry's table).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::run::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Scenario,
    Assignor,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Scenario => "scenario",
            Kind::Assignor => "assignor",
        }
    }
}

/// What a comparison found: offsetlab and Kafka agree, disagree, or the case is outside what
/// offsetlab models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Equal,
    Different,
    OutOfScope,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Equal => "equal",
            Verdict::Different => "different",
            Verdict::OutOfScope => "out-of-scope",
        }
    }
}

/// One entry of a program's file; report.json holds every field but `table`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub name: String,
    pub kind: Kind,
    pub result: Verdict,
    pub cases: u64,
    pub detail: String,
    #[serde(default, skip_serializing)]
    pub table: Option<String>,
}

/// The entries in `text`, the contents of the file `file` (named in errors), checked: a JSON
/// array of entries with every field of the right type, names non-empty, unique and on one line,
/// and details on one line.
pub fn parse_entries(file: &str, text: &str) -> Result<Vec<Entry>> {
    let mut json = serde_json::Deserializer::from_str(text);
    let entries: Vec<Entry> = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let at = e.path().to_string();
        let at = if at == "." { String::new() } else { format!(" at {at}") };
        format!("{file} is not a valid entries file{at}: {}", e.inner())
    })?;
    for (i, entry) in entries.iter().enumerate() {
        let bad = |problem: &str| format!("{file} is not a valid entries file at [{i}]: {problem}");
        if entry.name.trim().is_empty() {
            return Err(bad("the name is empty"));
        }
        if entry.name.contains('\n') {
            return Err(bad("the name spans several lines"));
        }
        if entry.detail.contains('\n') {
            return Err(bad(&format!("the detail of `{}` spans several lines", entry.name)));
        }
    }
    unique_names(&entries).map_err(|name| format!("{file} names `{name}` twice"))?;
    Ok(entries)
}

/// `Err(name)` for the first name that two entries share.
pub fn unique_names(entries: &[Entry]) -> std::result::Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    match entries.iter().find(|entry| !seen.insert(entry.name.as_str())) {
        Some(entry) => Err(entry.name.clone()),
        None => Ok(()),
    }
}

/// How one comparison program's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramStatus {
    /// It ran and wrote this many entries.
    Ran(usize),
    /// It could not run to the end, or wrote a malformed file: why.
    Failed(String),
    /// Not run: why (its source does not exist yet).
    Skipped(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramRun {
    pub program: &'static str,
    pub status: ProgramStatus,
}

/// Everything the report says.
#[derive(Debug)]
pub struct Report<'a> {
    pub kafka_version: &'a str,
    pub seed: u64,
    pub subset: bool,
    pub entries: &'a [Entry],
    pub programs: &'a [ProgramRun],
    pub elapsed_secs: f64,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub equal: usize,
    pub different: usize,
    pub out_of_scope: usize,
}

impl Counts {
    pub fn of(entries: &[Entry]) -> Counts {
        let mut counts = Counts::default();
        for entry in entries {
            match entry.result {
                Verdict::Equal => counts.equal += 1,
                Verdict::Different => counts.different += 1,
                Verdict::OutOfScope => counts.out_of_scope += 1,
            }
        }
        counts
    }

    fn line(&self, entries: usize) -> String {
        format!(
            "{} equal, {} different, {} out-of-scope ({entries} entries)",
            self.equal, self.different, self.out_of_scope
        )
    }
}

/// report.json: the entries without their tables, pretty-printed, with a final newline.
pub fn json(entries: &[Entry]) -> String {
    let mut text = serde_json::to_string_pretty(entries).expect("entries serialise");
    text.push('\n');
    text
}

impl Report<'_> {
    fn mode(&self) -> &'static str {
        if self.subset { "subset" } else { "full" }
    }

    fn program_lines(&self) -> Vec<String> {
        self.programs
            .iter()
            .map(|run| match &run.status {
                ProgramStatus::Ran(n) => format!("{}: ran, {n} entries", run.program),
                ProgramStatus::Failed(why) => format!("{}: FAILED: {}", run.program, one_line(why)),
                ProgramStatus::Skipped(why) => format!("{}: not run: {why}", run.program),
            })
            .collect()
    }

    /// report.md: a date-free header, the summary table, the counts, the programs, the time,
    /// then each entry's table in a code block.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# offsetlab against Apache Kafka {}\n", self.kafka_version);
        let _ = writeln!(md, "A {} run with seed {}.\n", self.mode(), self.seed);
        md.push_str("| entry | kind | result | cases | detail |\n|---|---|---|---:|---|\n");
        for entry in self.entries {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                cell(&entry.name),
                entry.kind.as_str(),
                entry.result.as_str(),
                entry.cases,
                cell(&entry.detail)
            );
        }
        let _ = writeln!(md, "\n{}.\n", Counts::of(self.entries).line(self.entries.len()));
        for line in self.program_lines() {
            let _ = writeln!(md, "- {line}");
        }
        let _ = writeln!(md, "\nThe run took {:.1} s.", self.elapsed_secs);
        for entry in self.entries {
            let Some(table) = entry.table.as_deref().filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            let fence = fence_for(table);
            let _ = write!(
                md,
                "\n## {} ({})\n\n{fence}text\n{}\n{fence}\n",
                entry.name,
                entry.result.as_str(),
                table.trim_end()
            );
        }
        md
    }

    /// What the terminal shows: each entry's table, then the summary.
    pub fn terminal(&self) -> String {
        let mut out = String::new();
        for entry in self.entries {
            if let Some(table) = entry.table.as_deref().filter(|t| !t.trim().is_empty()) {
                let _ =
                    writeln!(out, "\n--- {} ({})\n{}", entry.name, entry.result.as_str(), table.trim_end());
            }
        }
        let _ = writeln!(
            out,
            "\nconformance against Apache Kafka {}, {} run, seed {}:",
            self.kafka_version,
            self.mode(),
            self.seed
        );
        let name_width = self.entries.iter().map(|e| e.name.chars().count()).max().unwrap_or(0).max(5);
        let _ =
            writeln!(out, "  {:name_width$}  {:8}  {:12}  {:>7}  detail", "entry", "kind", "result", "cases");
        for entry in self.entries {
            let _ = writeln!(
                out,
                "  {:name_width$}  {:8}  {:12}  {:>7}  {}",
                entry.name,
                entry.kind.as_str(),
                entry.result.as_str(),
                entry.cases,
                entry.detail
            );
        }
        let _ = writeln!(out, "{}", Counts::of(self.entries).line(self.entries.len()));
        for line in self.program_lines() {
            let _ = writeln!(out, "  {line}");
        }
        out
    }
}

/// A markdown table cell: pipes escaped.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A backtick fence longer than any run of backticks inside `text`.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    const SCENARIOS: &str = r#"[
      {"name": "rebalance-on-join", "kind": "scenario", "result": "equal", "cases": 1,
       "detail": "assignments and offsets match after 3 rebalances",
       "table": "gen  offsetlab  kafka\n1    c0:p0-p3   c0:p0-p3\n2    c0:p0-p1   c0:p0-p1\n"},
      {"name": "static-membership", "kind": "scenario", "result": "out-of-scope", "cases": 0,
       "detail": "group.instance.id is not modelled"}
    ]"#;

    const ASSIGNORS: &str = r#"[
      {"name": "range", "kind": "assignor", "result": "different", "cases": 10000,
       "detail": "12 of 10000 cases differ | first: case 481", "table": "case 481\n  offsetlab: c0=[t-0]\n  kafka:     c1=[t-0]"}
    ]"#;

    fn entries() -> Vec<Entry> {
        let mut all = parse_entries("assignors.json", ASSIGNORS).unwrap();
        all.extend(parse_entries("scenarios.json", SCENARIOS).unwrap());
        all
    }

    #[test]
    fn parses_entries_files() {
        let all = entries();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].result, Verdict::Different);
        assert_eq!(all[2].kind, Kind::Scenario);
        assert_eq!(all[2].result, Verdict::OutOfScope);
        assert_eq!(all[2].table, None);
        assert_eq!(Counts::of(&all), Counts { equal: 1, different: 1, out_of_scope: 1 });
    }

    #[test]
    fn report_json_has_every_field_but_the_table() {
        let all = entries();
        let value: serde_json::Value = serde_json::from_str(&json(&all)).unwrap();
        let first = value.as_array().unwrap()[0].as_object().unwrap();
        let mut keys: Vec<&str> = first.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["cases", "detail", "kind", "name", "result"]);
        assert_eq!(first["result"], "different");
        assert_eq!(first["cases"], 10000);
        expect![[r#"
            [
              {
                "name": "static-membership",
                "kind": "scenario",
                "result": "out-of-scope",
                "cases": 0,
                "detail": "group.instance.id is not modelled"
              }
            ]
        "#]]
        .assert_eq(&json(&all[2..]));
    }

    #[test]
    fn report_markdown() {
        let all = entries();
        let programs = [
            ProgramRun { program: "Assignors", status: ProgramStatus::Ran(1) },
            ProgramRun { program: "Scenarios", status: ProgramStatus::Failed("exited 1\nafter".into()) },
        ];
        let report = Report {
            kafka_version: "4.4.0",
            seed: 7,
            subset: true,
            entries: &all,
            programs: &programs,
            elapsed_secs: 61.25,
        };
        expect![[r#"
            # offsetlab against Apache Kafka 4.4.0

            A subset run with seed 7.

            | entry | kind | result | cases | detail |
            |---|---|---|---:|---|
            | range | assignor | different | 10000 | 12 of 10000 cases differ \| first: case 481 |
            | rebalance-on-join | scenario | equal | 1 | assignments and offsets match after 3 rebalances |
            | static-membership | scenario | out-of-scope | 0 | group.instance.id is not modelled |

            1 equal, 1 different, 1 out-of-scope (3 entries).

            - Assignors: ran, 1 entries
            - Scenarios: FAILED: exited 1 after

            The run took 61.2 s.

            ## range (different)

            ```text
            case 481
              offsetlab: c0=[t-0]
              kafka:     c1=[t-0]
            ```

            ## rebalance-on-join (equal)

            ```text
            gen  offsetlab  kafka
            1    c0:p0-p3   c0:p0-p3
            2    c0:p0-p1   c0:p0-p1
            ```
        "#]]
        .assert_eq(&report.markdown());
        let terminal = report.terminal();
        assert!(terminal.contains("--- range (different)\ncase 481\n"));
        assert!(terminal.contains("seed 7"));
        assert!(terminal.contains("1 equal, 1 different, 1 out-of-scope (3 entries)"));
    }

    #[test]
    fn fences_outgrow_backticks_in_tables() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ```` b"), "`````");
    }

    #[test]
    fn refuses_malformed_files_naming_the_file_and_the_problem() {
        let cases = [
            ("{}", "f.json is not a valid entries file: invalid type: map, expected a sequence"),
            ("[1,", "f.json is not a valid entries file at [0]: invalid type: integer `1`"),
            ("not json", "f.json is not a valid entries file: expected ident at line 1 column 2"),
            (
                r#"[{"name":"a","kind":"scenario","result":"same","cases":1,"detail":"d"}]"#,
                "f.json is not a valid entries file at [0].result: unknown variant `same`",
            ),
            (
                r#"[{"name":"a","kind":"scenario","result":"equal","cases":-1,"detail":"d"}]"#,
                "f.json is not a valid entries file at [0].cases: invalid value: integer `-1`",
            ),
            (
                r#"[{"name":"a","kind":"scenario","result":"equal","detail":"d"}]"#,
                "f.json is not a valid entries file at [0]: missing field `cases`",
            ),
            (
                r#"[{"name":"","kind":"assignor","result":"equal","cases":1,"detail":"d"}]"#,
                "f.json is not a valid entries file at [0]: the name is empty",
            ),
            (
                r#"[{"name":"a","kind":"assignor","result":"equal","cases":1,"detail":"two\nlines"}]"#,
                "f.json is not a valid entries file at [0]: the detail of `a` spans several lines",
            ),
            (
                r#"[{"name":"a","kind":"assignor","result":"equal","cases":1,"detail":"d"},
                    {"name":"a","kind":"scenario","result":"equal","cases":1,"detail":"d"}]"#,
                "f.json names `a` twice",
            ),
        ];
        for (text, message) in cases {
            let error = parse_entries("f.json", text).unwrap_err();
            assert!(error.starts_with(message), "for {text}:\n  got  {error}\n  want {message}…");
        }
    }
}
