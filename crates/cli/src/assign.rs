//! `offsetlab assign`: the partitions Kafka's client assignors give each
//! member of a group, computed by the engine, printed as one JSON line.

use crate::Failure;
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser as _};
use offsetlab_engine::{Assignment, Strategy, TopicPartitions, assign, cooperative_first_round};
use std::collections::BTreeSet;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// Members `--members` accepts.
pub const MEMBERS_MAX: usize = 1_000;
/// Partitions one `--topic` may have.
pub const TOPIC_PARTITIONS_MAX: u32 = 1_000;
/// Size of a `--previous` file.
const PREVIOUS_BYTES_MAX: usize = 16 << 20;

#[derive(Debug, Args)]
pub struct AssignArgs {
    /// The assignor (`partition.assignment.strategy`).
    #[arg(
        long,
        value_name = "STRATEGY",
        value_parser = PossibleValuesParser::new(Strategy::ALL.map(Strategy::name))
            .map(|name| name.parse::<Strategy>().expect("one of Strategy::ALL"))
    )]
    strategy: Strategy,
    /// Member ids, comma-separated, taken verbatim (at most 1000), in the
    /// order the coordinator lists them (JoinGroup order: it only matters to
    /// the sticky assignors, and only for ids whose Java hashes collide).
    #[arg(long, value_name = "ID,ID,…")]
    members: String,
    /// A topic and its partition count (1 to 1000); repeat for more topics.
    /// Every member subscribes to every topic.
    #[arg(long = "topic", value_name = "NAME:N", required = true, value_parser = parse_topic)]
    topics: Vec<(String, u32)>,
    /// What each member owned in the previous generation, in the output's
    /// shape: {"member": {"topic": [partitions]}}. The sticky assignors keep
    /// what they can; range and roundrobin ignore it. Members no longer in
    /// --members have left; a partition two members claim is kept by neither.
    #[arg(long, value_name = "FILE.json")]
    previous: Option<PathBuf>,
    /// With cooperative-sticky: print the first rebalance (the partitions
    /// that change owner left out until their owners revoke them) instead of
    /// where the second ends.
    #[arg(long)]
    first_round: bool,
}

fn parse_topic(text: &str) -> Result<(String, u32), String> {
    let usage = "expected NAME:N, a topic and its partition count, e.g. orders:6";
    let Some((name, count)) = text.rsplit_once(':') else { return Err(usage.to_string()) };
    if name.is_empty() {
        return Err(format!("the topic name is empty; {usage}"));
    }
    let range = || format!("a topic has 1 to {TOPIC_PARTITIONS_MAX} partitions");
    match count.parse::<u64>() {
        Ok(n) if (1..=u64::from(TOPIC_PARTITIONS_MAX)).contains(&n) => Ok((name.to_string(), n as u32)),
        Ok(n) => Err(format!("{}; got {n}", range())),
        Err(_) => Err(format!("{}; {count:?} is not a whole number ({usage})", range())),
    }
}

/// The assignment as one line of JSON: every member, every topic, partitions ascending.
pub fn run(args: &AssignArgs) -> Result<String, Failure> {
    let members = members(&args.members)?;
    let topics = topics(&args.topics)?;
    if args.first_round && args.strategy != Strategy::CooperativeSticky {
        return Err(Failure::new(format!(
            "--first-round is cooperative-sticky's first rebalance; --strategy is {}",
            args.strategy
        )));
    }
    let previous = match &args.previous {
        Some(path) => read_previous(path, &topics)?,
        None => Assignment::new(),
    };
    let assignment = if args.first_round {
        // The leader's target is the sticky assignment; the first round leaves out what moves.
        cooperative_first_round(&assign(Strategy::Sticky, &members, &topics, &previous), &previous)
    } else {
        assign(args.strategy, &members, &topics, &previous)
    };
    serde_json::to_string(&assignment).map_err(|e| Failure::new(format!("cannot print the assignment: {e}")))
}

fn members(list: &str) -> Result<Vec<String>, Failure> {
    let members: Vec<String> = list.split(',').map(str::to_string).collect();
    if members.len() > MEMBERS_MAX {
        return Err(Failure::new(format!("--members: at most {MEMBERS_MAX} members; got {}", members.len())));
    }
    if members.iter().any(String::is_empty) {
        return Err(Failure::new(format!("--members: a member id is empty in {list:?}")));
    }
    let mut seen = BTreeSet::new();
    if let Some(twice) = members.iter().find(|m| !seen.insert(m.as_str())) {
        return Err(Failure::new(format!("--members: member {twice:?} is listed twice")));
    }
    Ok(members)
}

fn topics(given: &[(String, u32)]) -> Result<TopicPartitions, Failure> {
    let mut topics = TopicPartitions::new();
    for (name, count) in given {
        if topics.insert(name.clone(), *count).is_some() {
            return Err(Failure::new(format!("--topic: topic {name:?} is given twice")));
        }
    }
    Ok(topics)
}

/// Reads and checks a `--previous` file: JSON of the output's shape whose
/// topics and partitions all exist, no member listing a partition twice.
fn read_previous(path: &Path, topics: &TopicPartitions) -> Result<Assignment, Failure> {
    let shown = path.display();
    let cannot = |e: std::io::Error| Failure::new(format!("cannot read {shown}: {e}"));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    file.take(PREVIOUS_BYTES_MAX as u64 + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() > PREVIOUS_BYTES_MAX {
        return Err(Failure::new(format!("{shown}: larger than {PREVIOUS_BYTES_MAX} bytes")));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Failure::new(format!("{shown}: not UTF-8 text (invalid byte at offset {at})"))
    })?;
    let previous: Assignment = serde_json::from_str(&text).map_err(|e| {
        Failure::new(format!(
            "{shown}: {e}; expected {{\"member\": {{\"topic\": [partition, …]}}}} with partitions 0 or more"
        ))
    })?;
    for (member, owned) in &previous {
        for (topic, partitions) in owned {
            let Some(&count) = topics.get(topic) else {
                return Err(Failure::new(format!(
                    "{shown}: member {member:?} owns topic {topic:?}, which no --topic gives"
                )));
            };
            let mut seen = BTreeSet::new();
            if let Some(p) = partitions.iter().find(|&&p| !seen.insert(p)) {
                return Err(Failure::new(format!(
                    "{shown}: member {member:?} lists {topic} partition {p} twice"
                )));
            }
            if let Some(p) = partitions.iter().find(|&&p| p >= count) {
                return Err(Failure::new(format!(
                    "{shown}: member {member:?} owns {topic} partition {p}, but {topic} has {count} \
                     partitions (0 to {})",
                    count - 1
                )));
            }
        }
    }
    Ok(previous)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_name_colon_count() {
        assert_eq!(parse_topic("orders:6"), Ok(("orders".to_string(), 6)));
        assert_eq!(parse_topic("a:b:1000"), Ok(("a:b".to_string(), 1000)));
        assert!(parse_topic("orders").unwrap_err().contains("NAME:N"));
        assert!(parse_topic(":3").unwrap_err().contains("empty"));
        assert!(parse_topic("orders:0").unwrap_err().contains("got 0"));
        assert!(parse_topic("orders:1001").unwrap_err().contains("got 1001"));
        assert!(parse_topic("orders:-1").unwrap_err().contains("not a whole number"));
    }

    #[test]
    fn members_are_checked() {
        assert_eq!(members("c1,c2").unwrap(), vec!["c1", "c2"]);
        assert!(matches!(members("c1,,c2"), Err(Failure::Message(m)) if m.contains("empty")));
        assert!(
            matches!(members("c1,c2,c1"), Err(Failure::Message(m)) if m.contains("\"c1\" is listed twice"))
        );
        let many = (0..=MEMBERS_MAX).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
        assert!(matches!(members(&many), Err(Failure::Message(m)) if m.contains("at most 1000")));
    }
}
