//! An independent check of the partitioner: keys and the partitions that
//! kafka-python (another Kafka client) picks for them, in
//! `fixtures/kafka_python_partitions.tsv`, through the CLI and the engine.

use offsetlab_engine::partition_for_key;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const FIXTURE: &str = include_str!("fixtures/kafka_python_partitions.tsv");

struct Row {
    key: String,
    partitions: u32,
    expected: u32,
}

fn rows() -> Vec<Row> {
    let mut lines = FIXTURE.split('\n').peekable();
    let mut header = Vec::new();
    while let Some(line) = lines.next_if(|l| l.starts_with('#')) {
        header.push(line);
    }
    assert!(header[0].contains("kafka-python"), "the fixture names its source: {header:?}");
    lines
        .filter(|line| !line.is_empty())
        .map(|line| {
            let mut fields = line.rsplitn(3, '\t');
            let expected = fields.next().unwrap().parse().unwrap();
            let partitions = fields.next().unwrap().parse().unwrap();
            let key = fields.next().unwrap_or_else(|| panic!("three fields: {line:?}")).to_string();
            Row { key, partitions, expected }
        })
        .collect()
}

#[test]
fn the_fixture_is_large_and_varied() {
    let rows = rows();
    assert!(rows.len() >= 1200, "{} rows", rows.len());
    let counts: std::collections::BTreeSet<u32> = rows.iter().map(|r| r.partitions).collect();
    assert_eq!(counts.into_iter().collect::<Vec<_>>(), vec![1, 2, 3, 6, 12, 100, 256, 1000]);
    assert!(rows.iter().any(|r| r.key.is_empty()));
    assert!(rows.iter().any(|r| r.key.len() > r.key.chars().count()), "multi-byte keys");
    assert!(rows.iter().any(|r| r.key.len() >= 1000), "long keys");
}

#[test]
fn the_engine_agrees_with_kafka_python() {
    let rows = rows();
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let got = partition_for_key(r.key.as_bytes(), r.partitions);
            (got != r.expected).then(|| {
                format!("{:?} over {}: engine {got}, kafka-python {}", r.key, r.partitions, r.expected)
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{} of {} rows differ:\n{}", wrong.len(), rows.len(), wrong.join("\n"));
}

#[test]
fn the_cli_agrees_with_kafka_python() {
    let mut by_count: BTreeMap<u32, Vec<Row>> = BTreeMap::new();
    for row in rows() {
        by_count.entry(row.partitions).or_default().push(row);
    }
    let mut checked = 0;
    for (partitions, rows) in &by_count {
        // The empty key cannot be a keys-file line (empty lines are skipped):
        // it goes as an argument, so it comes first in the output.
        let (empty, file_rows): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| r.key.is_empty());
        let path = temp_path(&format!("keys-{partitions}"));
        let text: String = file_rows.iter().map(|r| format!("{}\n", r.key)).collect();
        std::fs::write(&path, text).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_offsetlab"));
        command.args(["partition", "--partitions", &partitions.to_string(), "--keys-file"]).arg(&path);
        if !empty.is_empty() {
            command.args(["--", ""]);
        }
        let output = command.output().unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let stdout = String::from_utf8(output.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        let expected: Vec<&Row> = empty.iter().chain(&file_rows).copied().collect();
        assert_eq!(lines.len(), expected.len(), "one line per key over {partitions} partitions");
        for (line, row) in lines.iter().zip(expected) {
            assert_eq!(*line, format!("{}\t{}", row.key, row.expected), "over {partitions} partitions");
            checked += 1;
        }
    }
    assert_eq!(checked, rows().len());
}

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("offsetlab-cli-kafka-python-{}-{name}.txt", std::process::id()))
}
