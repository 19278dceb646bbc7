//! `offsetlab assign`: the partitions Kafka's client assignors give each
//! member of a group, computed by the engine, printed as one JSON line; or,
//! with `--batch`, one answer line per case line of a JSON Lines file.

use crate::Failure;
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser as _};
use offsetlab_engine::{
    Assignment, Member, RemoteAssignor, Strategy, TargetMember, TopicPartitions, assign_members,
    cooperative_first_round_of, range_assignment, range_order, uniform_assignment,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead as _, Read as _, Write};
use std::path::{Path, PathBuf};

/// Members `--members` accepts.
pub const MEMBERS_MAX: usize = 1_000;
/// Partitions one `--topic` may have.
pub const TOPIC_PARTITIONS_MAX: u32 = 1_000;
/// Size of a `--previous` file.
const PREVIOUS_BYTES_MAX: usize = 16 << 20;
/// Size of one `--batch` line.
const BATCH_LINE_BYTES_MAX: usize = 16 << 20;
/// Partitions of all topics in one `--batch` case.
const CASE_PARTITIONS_MAX: u64 = 100_000;

#[derive(Debug, Args)]
pub struct AssignArgs {
    /// The assignor (`partition.assignment.strategy`).
    #[arg(
        long,
        value_name = "STRATEGY",
        required_unless_present_any = ["batch", "remote_assignor"],
        conflicts_with = "remote_assignor",
        value_parser = PossibleValuesParser::new(Strategy::ALL.map(Strategy::name))
            .map(|name| name.parse::<Strategy>().expect("one of Strategy::ALL"))
    )]
    strategy: Option<Strategy>,
    /// Member ids, comma-separated, taken verbatim (at most 1000), in the
    /// order the coordinator lists them (JoinGroup order: it only matters to
    /// the sticky assignors, and only for ids whose Java hashes collide).
    /// `ID=INSTANCE` is a static member with that `group.instance.id`: range
    /// and roundrobin order static members first, by instance id, as the Java
    /// client does (`--members c1=inst-2,c2=inst-1`).
    #[arg(long, value_name = "ID[=INSTANCE],…", required_unless_present = "batch")]
    members: Option<String>,
    /// A topic and its partition count (1 to 1000); repeat for more topics.
    /// Every member subscribes to every topic.
    #[arg(long = "topic", value_name = "NAME:N", required_unless_present = "batch", value_parser = parse_topic)]
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
    #[arg(long, conflicts_with = "remote_assignor")]
    first_round: bool,
    /// Instead of a client assignor: the group coordinator's assignor of a
    /// consumer group (`group.remote.assignor`, KIP-848). `uniform`, Kafka's
    /// default, for members all subscribed to one topic (give one --topic):
    /// members in the order the coordinator's map was filled, what they own
    /// from --previous, each member's partitions in the order its set was
    /// filled (which decides what a member over its quota keeps). `range`:
    /// contiguous ranges, static members first by instance id, then the rest
    /// by member id; --previous makes no difference to it.
    #[arg(
        long,
        value_name = "ASSIGNOR",
        value_parser = PossibleValuesParser::new(RemoteAssignor::ALL.map(RemoteAssignor::name)).map(|name| {
            *RemoteAssignor::ALL.iter().find(|a| a.name() == name).expect("one of RemoteAssignor::ALL")
        })
    )]
    remote_assignor: Option<RemoteAssignor>,
    /// Many groups at once, each member with its own subscription: one
    /// case per line of FILE (JSON Lines; `-` reads stdin), one answer per
    /// line out, in order. A case is {"id": "…", "strategy": "sticky",
    /// "topics": {"t0": 6}, "members": [{"id": "c1-…", "topics": ["t0"],
    /// "group_instance_id": "i-0", "owned": {"t0": [0, 1]}, "generation": 3}],
    /// "first_round": false}, members in JoinGroup order; group_instance_id,
    /// owned (of topics that may since have been deleted), generation and
    /// first_round may be left out. The answer is {"id": "…", "assignment":
    /// {member: {topic: [partitions]}}}, or {"line": N, "id": "…", "error":
    /// "…"} for a line that is not a case (the run then fails, after
    /// answering every line). Blank lines are skipped. A case may give
    /// "remote_assignor": "uniform" or "range" instead of "strategy".
    #[arg(long, value_name = "FILE.jsonl", conflicts_with_all = ["strategy", "members", "topics", "previous", "first_round", "remote_assignor"])]
    batch: Option<PathBuf>,
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

/// One member as the coordinator's assignors take it: its id, its instance id
/// (range orders by it) and what it owns in its set's order (uniform keeps it).
struct RemoteMember {
    id: String,
    instance_id: Option<String>,
    owned: Vec<u32>,
}

/// The coordinator's `remote` assignor on one topic every member subscribes to.
fn remote_assignment(
    remote: RemoteAssignor,
    topic: &str,
    partitions: u32,
    members: &[RemoteMember],
) -> Result<Assignment, String> {
    let assigned: Vec<(&str, Vec<u32>)> = match remote {
        RemoteAssignor::Range => {
            let order = range_order(members.iter().map(|m| (m.id.as_str(), m.instance_id.as_deref())));
            range_assignment(&order, partitions)
        }
        RemoteAssignor::Uniform => {
            let target: Vec<TargetMember> =
                members.iter().map(|m| TargetMember { id: m.id.clone(), owned: m.owned.clone() }).collect();
            let got = uniform_assignment(&target, partitions).map_err(|e| e.to_string())?;
            members.iter().map(|m| m.id.as_str()).zip(got).collect()
        }
    };
    Ok(assigned
        .into_iter()
        .map(|(id, got)| (id.to_string(), BTreeMap::from([(topic.to_string(), got)])))
        .collect())
}

/// Prints the assignment as one line of JSON (every member, every topic,
/// partitions ascending), or with `--batch` one line per case.
pub fn run(args: &AssignArgs, out: &mut dyn Write) -> Result<(), Failure> {
    if let Some(path) = &args.batch {
        return batch(path, out);
    }
    let Some(members) = &args.members else {
        return Err(Failure::new("--members is required without --batch"));
    };
    let members = self::members(members)?;
    let topics = topics(&args.topics)?;
    let previous = match &args.previous {
        Some(path) => read_previous(path, &topics)?,
        None => Assignment::new(),
    };
    let assignment = match (args.remote_assignor, args.strategy) {
        (Some(remote), _) => {
            let [(topic, &partitions)] = topics.iter().collect::<Vec<_>>()[..] else {
                return Err(Failure::new(format!(
                    "--remote-assignor {}: give one --topic (its path for members all subscribed \
                     to one topic); got {}",
                    remote.name(),
                    topics.len()
                )));
            };
            let members: Vec<RemoteMember> = members
                .into_iter()
                .map(|(id, instance_id)| {
                    let owned = previous.get(&id).and_then(|t| t.get(topic)).cloned().unwrap_or_default();
                    RemoteMember { id, instance_id, owned }
                })
                .collect();
            remote_assignment(remote, topic, partitions, &members).map_err(Failure::new)?
        }
        (None, None) => {
            return Err(Failure::new("--strategy or --remote-assignor is required without --batch"));
        }
        (None, Some(strategy)) => {
            if args.first_round && strategy != Strategy::CooperativeSticky {
                return Err(Failure::new(format!(
                    "--first-round is cooperative-sticky's first rebalance; --strategy is {strategy}"
                )));
            }
            // Every member subscribes to every topic and owns what --previous
            // gives it, all of one generation.
            let all: BTreeSet<String> = topics.keys().cloned().collect();
            let members: Vec<Member> = members
                .into_iter()
                .map(|(id, group_instance_id)| Member {
                    owned: previous.get(&id).cloned().unwrap_or_default(),
                    id,
                    group_instance_id,
                    topics: all.clone(),
                    generation: Some(1),
                })
                .collect();
            if args.first_round {
                cooperative_first_round_of(&members, &topics)
            } else {
                assign_members(strategy, &members, &topics)
            }
        }
    };
    writeln!(out, "{}", to_json(&assignment)?)?;
    Ok(())
}

fn to_json(value: &impl Serialize) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure::new(format!("cannot print the assignment: {e}")))
}

/// One line of a `--batch` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    #[serde(default)]
    strategy: Option<Strategy>,
    #[serde(default)]
    remote_assignor: Option<RemoteAssignor>,
    topics: BTreeMap<String, u64>,
    members: Vec<Member>,
    #[serde(default)]
    first_round: bool,
}

#[derive(Debug, Serialize)]
struct Answer<'a> {
    id: &'a str,
    assignment: Assignment,
}

#[derive(Debug, Serialize)]
struct BadLine<'a> {
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    error: String,
}

/// `--batch`: answers every line, then fails if any line was not a case.
fn batch(path: &Path, out: &mut dyn Write) -> Result<(), Failure> {
    let shown = path.display().to_string();
    let reader: Box<dyn std::io::BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file =
            std::fs::File::open(path).map_err(|e| Failure::new(format!("cannot read {shown}: {e}")))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut reader = reader;
    let (mut bad, mut first_bad, mut cases) = (0usize, None::<String>, 0usize);
    let mut bytes = Vec::new();
    for number in 1.. {
        bytes.clear();
        let read = (&mut reader)
            .take(BATCH_LINE_BYTES_MAX as u64 + 1)
            .read_until(b'\n', &mut bytes)
            .map_err(|e| Failure::new(format!("cannot read {shown} at line {number}: {e}")))?;
        if read == 0 {
            break;
        }
        let answer = if bytes.len() > BATCH_LINE_BYTES_MAX && !bytes.ends_with(b"\n") {
            // Skip the rest of the line.
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let n = (&mut reader)
                    .take(1 << 20)
                    .read_until(b'\n', &mut rest)
                    .map_err(|e| Failure::new(format!("cannot read {shown} at line {number}: {e}")))?;
                if n == 0 || rest.ends_with(b"\n") {
                    break;
                }
            }
            Err((None, format!("longer than {BATCH_LINE_BYTES_MAX} bytes")))
        } else {
            match std::str::from_utf8(&bytes) {
                Err(e) => {
                    Err((None, format!("not UTF-8 text (invalid byte at column {})", e.valid_up_to() + 1)))
                }
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => answer(text.trim_end()),
            }
        };
        cases += 1;
        let line = match answer {
            Ok(line) => line,
            Err((id, error)) => {
                let error = format!("{shown}: line {number}: {error}");
                bad += 1;
                first_bad.get_or_insert_with(|| error.clone());
                to_json(&BadLine { line: number, id: id.as_deref(), error })?
            }
        };
        writeln!(out, "{line}")?;
    }
    match first_bad {
        None => Ok(()),
        Some(first) => Err(Failure::new(format!("{bad} of {cases} lines are not cases; the first: {first}"))),
    }
}

/// The answer line to one case line, or (the case's id if it has one, what is wrong).
fn answer(text: &str) -> Result<String, (Option<String>, String)> {
    let case: Case = serde_json::from_str(text).map_err(|e| {
        // Name the case if at least its id can be read.
        let id = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("id").and_then(|id| id.as_str().map(str::to_string)));
        (id, format!("{e}"))
    })?;
    let id = case.id.clone();
    let assignment = check_and_assign(&case).map_err(|e| (Some(id.clone()), e))?;
    to_json(&Answer { id: &id, assignment })
        .map_err(|_| (Some(id), "cannot print the assignment".to_string()))
}

fn check_and_assign(case: &Case) -> Result<Assignment, String> {
    if case.members.len() > MEMBERS_MAX {
        return Err(format!("at most {MEMBERS_MAX} members; got {}", case.members.len()));
    }
    let mut topics = TopicPartitions::new();
    let mut total = 0;
    for (name, &count) in &case.topics {
        if name.is_empty() {
            return Err("topics: a topic name is empty".to_string());
        }
        if !(1..=u64::from(TOPIC_PARTITIONS_MAX)).contains(&count) {
            return Err(format!(
                "topics: {name:?} has {count} partitions; a topic has 1 to {TOPIC_PARTITIONS_MAX}"
            ));
        }
        total += count;
        topics.insert(name.clone(), count as u32);
    }
    if total > CASE_PARTITIONS_MAX {
        return Err(format!("at most {CASE_PARTITIONS_MAX} partitions in all; got {total}"));
    }
    let mut ids = BTreeSet::new();
    let mut instances = BTreeMap::new();
    for (i, member) in case.members.iter().enumerate() {
        let at = format!("members[{i}]");
        if member.id.is_empty() {
            return Err(format!("{at}: the member id is empty"));
        }
        if !ids.insert(member.id.as_str()) {
            return Err(format!("{at}: member {:?} is listed twice", member.id));
        }
        if let Some(instance) = &member.group_instance_id {
            if instance.is_empty() {
                return Err(format!("{at}: group_instance_id is empty (leave it out for a dynamic member)"));
            }
            if let Some(other) = instances.insert(instance.as_str(), i) {
                return Err(format!(
                    "{at}: group_instance_id {instance:?} is members[{other}]'s too; the coordinator \
                     fences one of two members with one instance id"
                ));
            }
        }
        for (topic, partitions) in &member.owned {
            let mut seen = BTreeSet::new();
            if let Some(p) = partitions.iter().find(|&&p| !seen.insert(p)) {
                return Err(format!("{at}: owns {topic} partition {p} twice"));
            }
            // A topic the metadata lacks was deleted: Kafka drops its partitions.
            if let Some(&count) = topics.get(topic)
                && let Some(p) = partitions.iter().find(|&&p| p >= count)
            {
                return Err(format!(
                    "{at}: owns {topic} partition {p}, but {topic} has {count} partitions (0 to {})",
                    count - 1
                ));
            }
        }
    }
    let strategy = match (case.strategy, case.remote_assignor) {
        (Some(strategy), None) => strategy,
        (None, Some(remote)) => return remote_case(case, remote, &topics),
        (Some(_), Some(_)) => {
            return Err("a case has a strategy (a client assignor) or a remote_assignor (the \
                        coordinator's), not both"
                .to_string());
        }
        (None, None) => return Err("missing field `strategy` (or `remote_assignor`)".to_string()),
    };
    if case.first_round && strategy != Strategy::CooperativeSticky {
        return Err(format!(
            "first_round is cooperative-sticky's first rebalance; the strategy is {strategy}"
        ));
    }
    Ok(if case.first_round {
        cooperative_first_round_of(&case.members, &topics)
    } else {
        assign_members(strategy, &case.members, &topics)
    })
}

/// A `remote_assignor` case: one topic, every member subscribed to it alone.
fn remote_case(case: &Case, remote: RemoteAssignor, topics: &TopicPartitions) -> Result<Assignment, String> {
    let name = remote.name();
    let [(topic, &partitions)] = topics.iter().collect::<Vec<_>>()[..] else {
        return Err(format!(
            "remote_assignor {name} is modelled for one topic (its homogeneous path); got {} topics",
            topics.len()
        ));
    };
    if case.first_round {
        return Err(format!("first_round is cooperative-sticky's; remote_assignor is {name}"));
    }
    for (i, m) in case.members.iter().enumerate() {
        if m.topics.len() != 1 || !m.topics.contains(topic) {
            return Err(format!(
                "members[{i}]: remote_assignor {name} is modelled for members all subscribed to {topic:?} \
                 alone (its homogeneous path)"
            ));
        }
        if let Some(other) = m.owned.keys().find(|t| *t != topic) {
            return Err(format!(
                "members[{i}]: owns {other:?}; remote_assignor {name} is modelled for one topic"
            ));
        }
    }
    let members: Vec<RemoteMember> = case
        .members
        .iter()
        .map(|m| RemoteMember {
            id: m.id.clone(),
            instance_id: m.group_instance_id.clone(),
            owned: m.owned.get(topic).cloned().unwrap_or_default(),
        })
        .collect();
    remote_assignment(remote, topic, partitions, &members)
}

/// `--members`: each `ID`, or `ID=INSTANCE` for a static member.
fn members(list: &str) -> Result<Vec<(String, Option<String>)>, Failure> {
    let given: Vec<&str> = list.split(',').collect();
    if given.len() > MEMBERS_MAX {
        return Err(Failure::new(format!("--members: at most {MEMBERS_MAX} members; got {}", given.len())));
    }
    let mut members = Vec::with_capacity(given.len());
    let mut ids = BTreeSet::new();
    let mut instances = BTreeMap::new();
    for item in given {
        let (id, instance) = match item.split_once('=') {
            Some((id, instance)) => (id, Some(instance)),
            None => (item, None),
        };
        if id.is_empty() {
            return Err(Failure::new(format!("--members: a member id is empty in {list:?}")));
        }
        if !ids.insert(id) {
            return Err(Failure::new(format!("--members: member {id:?} is listed twice")));
        }
        if let Some(instance) = instance {
            if instance.is_empty() {
                return Err(Failure::new(format!(
                    "--members: {id:?} has an empty group.instance.id (write just {id:?} for a dynamic member)"
                )));
            }
            if let Some(other) = instances.insert(instance, id) {
                return Err(Failure::new(format!(
                    "--members: {id:?} and {other:?} both have group.instance.id {instance:?}; the \
                     coordinator fences one of two members with one instance id"
                )));
            }
        }
        members.push((id.to_string(), instance.map(str::to_string)));
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
        assert_eq!(members("c1,c2").unwrap(), vec![("c1".into(), None), ("c2".into(), None)]);
        assert_eq!(
            members("c1=inst-2,c2").unwrap(),
            vec![("c1".into(), Some("inst-2".into())), ("c2".into(), None)]
        );
        assert!(
            matches!(members("c1=,c2"), Err(Failure::Message(m)) if m.contains("empty group.instance.id"))
        );
        assert!(matches!(members("=i,c2"), Err(Failure::Message(m)) if m.contains("member id is empty")));
        assert!(
            matches!(members("c1=i,c2=i"), Err(Failure::Message(m)) if m.contains("both have group.instance.id \"i\""))
        );
        assert!(matches!(members("c1,,c2"), Err(Failure::Message(m)) if m.contains("empty")));
        assert!(
            matches!(members("c1,c2,c1"), Err(Failure::Message(m)) if m.contains("\"c1\" is listed twice"))
        );
        let many = (0..=MEMBERS_MAX).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
        assert!(matches!(members(&many), Err(Failure::Message(m)) if m.contains("at most 1000")));
    }
}
