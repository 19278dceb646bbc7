//! The three-node KRaft cluster of the replication stories ([`SCENARIOS`]), and the
//! `Replication` program's runs on it.
//!
//! Three combined nodes (`process.roles=broker,controller`, ids 1 to 3, a static quorum of the
//! three in `controller.quorum.voters`), each a `kafka.Kafka` JVM with a small heap
//! ([`NODE_HEAP`]) on its own two free 127.0.0.1 ports, its log directory formatted afresh under
//! target/conformance/cluster/nodeN/ and its output in target/conformance/cluster/nodeN.log.
//! Followers stay in the ISR for [`REPLICA_LAG_TIME_MAX_MS`] though they fetch nothing, so a
//! follower paused with SIGSTOP is still in sync when the leader crashes; a broker is fenced after
//! [`SESSION_TIMEOUT_MS`] without a heartbeat, longer than the pauses of the clean stories (the
//! unclean one pauses its follower until it is fenced and out of the ISR).
//!
//! The harness owns every node's process: it passes their pids to `Replication`, which stops and
//! continues the followers (SIGSTOP, SIGCONT) and kills the leader (SIGKILL) itself, one scenario
//! per run. Between two runs [`Cluster::revive`] starts again the node a run killed, on its own
//! log directory, and waits until all three brokers are unfenced. [`Cluster`] is a guard like
//! [`super::Broker`]: dropping it stops every node that still runs (SIGTERM, then SIGKILL after
//! [`super::STOP_GRACE`]); a node that had died by SIGKILL is the leader a run crashed on purpose,
//! and is not an error.
//!
//! The whole phase (start, runs, restart, stop) keeps within the comparisons' deadline: the
//! readiness waits end at it, and so does the stop's SIGTERM grace (at least [`MIN_GRACE`]), so
//! the cluster adds nothing to what `--subset` may take.

use std::fs::{self, File, OpenOptions};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use super::{
    Java, READY_LIMIT, STOP_GRACE, await_ready, comparison, free_port_list, relative, storage_tool,
    wait_until, write,
};
use crate::report::Entry;
use crate::run::{self, Result, step};

/// The nodes, numbered 1 to [`NODES`].
pub const NODES: u16 = 3;
/// Each node's heap: three of them, the programs and the build share 2 cores.
pub const NODE_HEAP: [&str; 2] = ["-Xmx384m", "-Xms128m"];
/// A follower that fetches nothing stays in the ISR this long.
pub const REPLICA_LAG_TIME_MAX_MS: u32 = 30_000;
/// A broker without a heartbeat for this long is fenced (its partitions get new leaders).
pub const SESSION_TIMEOUT_MS: u32 = 9_000;
/// The least SIGTERM grace a stop gives the nodes, even at the deadline.
pub const MIN_GRACE: Duration = Duration::from_secs(2);
/// The scenarios `Replication` plays on the cluster, one run each, in this order.
pub const SCENARIOS: [&str; 3] = ["acks1-leader-crash", "acks-all-survives", "unclean-election"];

/// One node's configuration: broker and controller in one process on 127.0.0.1, the three nodes
/// as the controller quorum, three replicas for internal topics, no automatic leader moves (a
/// node that comes back must not take its partitions back during the next story).
pub fn node_properties(id: u16, ports: &[(u16, u16)], log_dir: &Path) -> String {
    let (port, controller_port) = ports[usize::from(id) - 1];
    let voters: Vec<String> = ports
        .iter()
        .zip(1..)
        .map(|((_, controller), node)| format!("{node}@127.0.0.1:{controller}"))
        .collect();
    format!(
        "\
# Written by `cargo xtask conformance` for one run of the replication stories: node {id} of {NODES}.
process.roles=broker,controller
node.id={id}
controller.quorum.voters={voters}
listeners=PLAINTEXT://127.0.0.1:{port},CONTROLLER://127.0.0.1:{controller_port}
advertised.listeners=PLAINTEXT://127.0.0.1:{port}
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs={log_dir}
num.network.threads=2
num.io.threads=2
num.partitions=1
default.replication.factor=3
offsets.topic.replication.factor=3
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
share.coordinator.state.topic.replication.factor=3
share.coordinator.state.topic.min.isr=2
auto.create.topics.enable=false
auto.leader.rebalance.enable=false
unclean.leader.election.enable=false
# A paused follower stays in the ISR (it is not 'out of sync' before {REPLICA_LAG_TIME_MAX_MS} ms), and a
# broker is fenced {SESSION_TIMEOUT_MS} ms after its last heartbeat: pauses are shorter than that.
replica.lag.time.max.ms={REPLICA_LAG_TIME_MAX_MS}
broker.session.timeout.ms={SESSION_TIMEOUT_MS}
broker.heartbeat.interval.ms=500
group.initial.rebalance.delay.ms=0
",
        voters = voters.join(","),
        log_dir = log_dir.display()
    )
}

/// One node's JVM.
#[derive(Debug)]
struct Node {
    id: u16,
    port: u16,
    properties: PathBuf,
    log: PathBuf,
    child: Child,
    /// Set once it has been stopped or found dead (then `child` has been waited for).
    done: bool,
}

/// The running cluster, stopped when dropped.
#[derive(Debug)]
pub struct Cluster {
    nodes: Vec<Node>,
    /// The comparisons' deadline, which the cluster's waits keep to.
    deadline: Instant,
}

impl Cluster {
    /// Formats three fresh log directories, starts the nodes and waits until all three brokers
    /// serve. On failure every node is stopped before returning, and the error has the logs' ends.
    pub fn start(java: &Java, dir: &Path, deadline: Instant) -> Result<Cluster> {
        if Instant::now() >= deadline {
            return Err("not started: the time limit for the comparisons had passed".to_owned());
        }
        let root = dir.join("cluster");
        if root.exists() {
            fs::remove_dir_all(&root).map_err(|e| format!("cannot remove {}: {e}", root.display()))?;
        }
        let ports: Vec<(u16, u16)> =
            free_port_list(2 * usize::from(NODES))?.chunks(2).map(|p| (p[0], p[1])).collect();
        let cluster_id = storage_tool(java, &["random-uuid"])?;
        let mut configs = Vec::new();
        for id in 1..=NODES {
            let node_dir = root.join(format!("node{id}"));
            let logs = node_dir.join("logs");
            fs::create_dir_all(&logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
            let properties = node_dir.join("server.properties");
            write(&properties, &node_properties(id, &ports, &logs))?;
            let config = properties.display().to_string();
            storage_tool(java, &["format", "-t", &cluster_id, "-c", &config])?;
            configs.push(properties);
        }
        println!("formatted {} (cluster {cluster_id}, {NODES} nodes)", relative(java.ctx, &root));

        let started = Instant::now();
        let mut cluster = Cluster { nodes: Vec::new(), deadline };
        for (properties, id) in configs.into_iter().zip(1..) {
            let log = root.join(format!("node{id}.log"));
            let child = spawn(java, &properties, &log, false)?;
            let (port, controller_port) = ports[usize::from(id) - 1];
            println!(
                "node {id} started (pid {}) on 127.0.0.1:{port}, controller on :{controller_port}",
                child.id()
            );
            cluster.nodes.push(Node { id, port, properties, log, child, done: false });
        }
        match cluster.wait_ready(java, started) {
            Ok(()) => {
                println!("the {NODES} brokers serve after {:.1}s", started.elapsed().as_secs_f64());
                Ok(cluster)
            }
            Err(why) => {
                let tails = cluster.log_tails(java, 25);
                let _ = cluster.stop();
                Err(format!("{why}\n{tails}"))
            }
        }
    }

    /// `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`.
    pub fn bootstrap(&self) -> String {
        let all: Vec<String> = self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        all.join(",")
    }

    /// `--node ID:PID:PORT` for each node, as `Replication` takes them.
    pub fn node_args(&self) -> Vec<String> {
        self.nodes
            .iter()
            .flat_map(|n| ["--node".to_owned(), format!("{}:{}:{}", n.id, n.child.id(), n.port)])
            .collect()
    }

    /// Starts again each node that died by SIGKILL (the leader a run crashed), on its log
    /// directory, and waits until all brokers serve. A node that died otherwise is an error.
    pub fn revive(&mut self, java: &Java) -> Result {
        let started = Instant::now();
        let mut revived = Vec::new();
        for node in &mut self.nodes {
            match node.child.try_wait() {
                Ok(Some(status)) if status.signal() == Some(9) => {
                    node.child = spawn(java, &node.properties, &node.log, true)?;
                    println!("node {} started again (pid {})", node.id, node.child.id());
                    revived.push(node.id);
                }
                Ok(Some(status)) => {
                    return Err(format!(
                        "node {} (pid {}) had exited on its own ({status}); see {}",
                        node.id,
                        node.child.id(),
                        node.log.display()
                    ));
                }
                _ => {}
            }
        }
        if revived.is_empty() {
            return Ok(());
        }
        match self.wait_ready(java, started) {
            Ok(()) => {
                println!("the {NODES} brokers serve again after {:.1}s", started.elapsed().as_secs_f64());
                Ok(())
            }
            Err(why) => Err(format!("{why}\n{}", self.log_tails(java, 25))),
        }
    }

    /// Runs Ready until all brokers are unfenced, a node exits, or [`READY_LIMIT`] (or the
    /// comparisons' deadline) passes.
    fn wait_ready(&mut self, java: &Java, started: Instant) -> Result {
        let deadline = (started + READY_LIMIT).min(self.deadline);
        let bootstrap = self.bootstrap();
        let nodes = &mut self.nodes;
        await_ready(java, &bootstrap, usize::from(NODES), deadline, "the cluster", || {
            nodes.iter_mut().find_map(|n| match n.child.try_wait() {
                Ok(Some(status)) => {
                    Some(format!("node {} exited ({status}) before the cluster served", n.id))
                }
                _ => None,
            })
        })
    }

    /// Stops every node still running: SIGTERM to all, then SIGKILL to those still there after
    /// [`STOP_GRACE`], or at the comparisons' deadline (at least [`MIN_GRACE`]). A node found
    /// dead by SIGKILL is the leader a run crashed; one that exited otherwise is an error.
    /// Stopping twice does nothing.
    pub fn stop(&mut self) -> Result {
        let begin = Instant::now();
        let mut problems = Vec::new();
        let mut running = Vec::new();
        for node in self.nodes.iter_mut().filter(|n| !n.done) {
            match node.child.try_wait() {
                Ok(Some(status)) => {
                    node.done = true;
                    if status.signal() == Some(9) {
                        println!(
                            "node {} (pid {}) had been killed (SIGKILL), as a story's leader",
                            node.id,
                            node.child.id()
                        );
                    } else {
                        problems.push(format!(
                            "node {} (pid {}) had exited on its own ({status}); see {}",
                            node.id,
                            node.child.id(),
                            node.log.display()
                        ));
                    }
                }
                _ => {
                    // A node left paused would not act on SIGTERM: continue it first.
                    let pid = node.child.id().to_string();
                    let _ = Command::new("kill").args(["-CONT", &pid]).status();
                    let _ = Command::new("kill").args(["-TERM", &pid]).status();
                    running.push(node);
                }
            }
        }
        let grace = STOP_GRACE.min(self.deadline.saturating_duration_since(begin)).max(MIN_GRACE);
        let deadline = begin + grace;
        for node in running {
            node.done = true;
            let how = match wait_until(&mut node.child, deadline) {
                Some(status) => format!("on SIGTERM ({status})"),
                None => {
                    let _ = node.child.kill();
                    let _ = node.child.wait();
                    format!("killed after {grace:.1?} of SIGTERM")
                }
            };
            println!(
                "node {} (pid {}) stopped {how}, {:.1}s after the cluster's stop began",
                node.id,
                node.child.id(),
                begin.elapsed().as_secs_f64()
            );
        }
        if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
    }

    /// The last `lines` lines of each node's log.
    fn log_tails(&self, java: &Java, lines: usize) -> String {
        let mut out = String::new();
        for node in &self.nodes {
            let text = fs::read_to_string(&node.log).unwrap_or_default();
            let all: Vec<&str> = text.lines().collect();
            let tail = if all.is_empty() {
                "(empty)".to_owned()
            } else {
                all[all.len().saturating_sub(lines)..].join("\n")
            };
            out.push_str(&format!("the end of {}:\n{tail}\n", relative(java.ctx, &node.log)));
        }
        out
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Err(why) = self.stop() {
            eprintln!("{why}");
        }
    }
}

/// Starts one node's JVM, its output to `log` (appended to when it starts again).
fn spawn(java: &Java, properties: &Path, log: &Path, append: bool) -> Result<Child> {
    let out = if append { OpenOptions::new().append(true).create(true).open(log) } else { File::create(log) }
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| format!("cannot share {}: {e}", log.display()))?;
    let mut cmd = java.cmd(&NODE_HEAP, false, "kafka.Kafka");
    cmd.arg(properties).stdout(out).stderr(err);
    cmd.spawn().map_err(|e| format!("cannot start a cluster node (`{}`): {e}", run::describe(&cmd)))
}

/// The cluster phase: starts the cluster, runs `Replication` once per scenario of [`SCENARIOS`]
/// (starting again the node the run before killed), stops the cluster; the entries of all runs.
pub fn replication(
    java: &Java,
    dir: &Path,
    offsetlab: &str,
    deadline: Instant,
) -> std::result::Result<Vec<Entry>, String> {
    let mut cluster = None;
    step("start the 3-node cluster", || {
        cluster = Some(Cluster::start(java, dir, deadline)?);
        Ok(())
    })?;
    let cluster = cluster.as_mut().ok_or("the cluster did not start")?;
    let mut entries = Vec::new();
    let mut outcome = Ok(());
    for (i, scenario) in SCENARIOS.iter().enumerate() {
        if i > 0 {
            if let Err(why) = step("start the killed node again", || cluster.revive(java)) {
                outcome = Err(format!("before {scenario}: {why}"));
                break;
            }
        }
        let bootstrap = cluster.bootstrap();
        let nodes = cluster.node_args();
        let mut args = vec!["--bootstrap", &bootstrap, "--offsetlab", offsetlab, "--scenario", scenario];
        args.extend(nodes.iter().map(String::as_str));
        args.push("--out");
        let out = dir.join(format!("replication-{scenario}.json"));
        match comparison(java, "Replication", &args, &out, deadline) {
            Ok(found) => entries.extend(found),
            Err(why) => {
                outcome = Err(format!("{scenario}: {why}"));
                break;
            }
        }
    }
    // Stopped here, not only by the guard, to notice a node that died during a run.
    let stopped = cluster.stop();
    outcome.and(stopped)?;
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_properties_name_the_quorum_and_stay_on_loopback() {
        let ports = [(40001, 40002), (40003, 40004), (40005, 40006)];
        let text = node_properties(2, &ports, Path::new("/tmp/cluster/node2/logs"));
        assert!(text.contains("node.id=2\n"));
        assert!(
            text.contains("controller.quorum.voters=1@127.0.0.1:40002,2@127.0.0.1:40004,3@127.0.0.1:40006\n")
        );
        assert!(text.contains("listeners=PLAINTEXT://127.0.0.1:40003,CONTROLLER://127.0.0.1:40004\n"));
        assert!(text.contains("replica.lag.time.max.ms=30000\n"));
        assert!(text.contains("broker.session.timeout.ms=9000\n"));
        assert!(!text.contains("0.0.0.0") && !text.contains("localhost"));
    }
}
