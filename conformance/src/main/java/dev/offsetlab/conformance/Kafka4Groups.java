package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Runs offsetlab's Kafka 4 group built-ins on a real broker and compares them with the model at
 * the points where both have settled: {@code consumer-protocol-scale-out} (KIP-848's consumer
 * protocol, the coordinator's {@code uniform} assignor) and {@code static-rolling-update}
 * (classic protocol, static members: KIP-345).
 *
 * <p>A program of its own rather than a part of {@link ShareGroups}: its consumers are separate
 * JVMs ({@link GroupMember}) so that a crash is a process that dies, where the share consumers are
 * threads; and what it compares (epochs, target assignments, revocations, restarts, the tool's
 * text) shares nothing with the share groups' delivery counts. Like ShareGroups, ticks are not
 * milliseconds, so the timeline is not replayed tick by tick: the model's steps (a consumer
 * starts, crashes, its session runs out; a static member restarts) are played in the model's
 * order, each once Kafka has settled from the one before.
 *
 * <p>{@code consumer-protocol-scale-out}: the consumers start one at a time, each once the group
 * has settled from the previous join (so the coordinator's join order is the model's); c3's JVM is
 * killed (no leave); three consumers join; c3's session runs out (the broker's consumer-group
 * session, lowered in server.properties). Compared: after each step, the group epoch and the
 * target assignment epoch, and the shape of the target (partitions per member); the exact target
 * by running {@code offsetlab assign --remote-assignor uniform} on Kafka's own member ids in the
 * order the coordinator fills its map and on Kafka's previous target (member ids are random UUIDs
 * in Kafka and seeded in the model, and the uniform assignor's choices follow a HashMap's order of
 * them), and the model's own targets the same way on the model's ids; that each member revoked
 * exactly what it held outside its new target (its rebalance listener's callbacks); and, before
 * the crash, before the expiry and at the end, the real {@code kafka-consumer-groups --describe
 * --members --verbose} (and {@code --state --verbose} at the end) against {@code offsetlab run
 * --describe}, with member ids, hosts, client ids and partition numbers normalised and the rows
 * sorted (which member holds which partition is the exact check's).
 *
 * <p>{@code static-rolling-update}: the consumers start together (the broker's initial rebalance
 * delay gathers them into one generation) with the model's {@code group.instance.id}s and
 * assignor, and records are sent throughout; each consumer in turn commits and {@code close()}s
 * (a static member sends no LeaveGroup) and a new JVM with the same instance id starts within the
 * session. Compared: the first generation and that no rebalance follows, each instance's partitions
 * before and after its restart, duplicates and records never handled, and the tool's text.
 *
 * <p>Usage: {@code Kafka4Groups --bootstrap 127.0.0.1:PORT --offsetlab BIN [--subset] [--scenario
 * NAME] --out FILE.json}: both built-ins, in the subset too ({@code --scenario}: only that one).
 * Exit 0 when it ran (a difference is a result), 1 when the harness failed, 2 on bad arguments.
 */
public final class Kafka4Groups {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The model's topic: the tool's text names it. */
  private static final String TOPIC = "orders";
  /** How long Kafka may take to settle after one step. */
  private static final long SETTLE_TIMEOUT_MS = 20_000;
  /** Between two looks at the group. */
  private static final long LOOK_MS = 100;
  /** A settled group is the same this many looks in a row. */
  private static final int SETTLED_LOOKS = 3;
  /** The static members' session: a restart must come back well within it. */
  private static final int STATIC_SESSION_TIMEOUT_MS = 10_000;
  /** Between two records sent during the rolling update. */
  private static final long SEND_PAUSE_MS = 5;
  private static final long CLOSE_TIMEOUT_MS = 15_000;
  private static final long DRAIN_TIMEOUT_MS = 20_000;
  private static final long TOOL_TIMEOUT_MS = 60_000;

  private final String bootstrap;
  private final String offsetlab;
  private final Path log;
  private final Admin admin;

  private Kafka4Groups(String bootstrap, String offsetlab, Path log) {
    this.bootstrap = bootstrap;
    this.offsetlab = offsetlab;
    this.log = log;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(props);
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts =
        DriverArgs.last(DriverArgs.forDriver("Kafka4Groups", "--bootstrap HOST:PORT --offsetlab BIN [--subset] [--scenario NAME] --out FILE.json", args));
    Path out = Path.of(opts.get("out"));
    Path log = out.toAbsolutePath().resolveSibling("kafka4-consumers.log");
    Files.createDirectories(log.getParent());
    Files.deleteIfExists(log);
    List<Map<String, Object>> entries = new ArrayList<>();
    Kafka4Groups run = new Kafka4Groups(opts.get("bootstrap"), opts.get("offsetlab"), log);
    try {
      // Both built-ins run in the subset too: together they take about a minute.
      String only = opts.get("scenario");
      if (only == null || only.equals("consumer-protocol-scale-out")) entries.add(run.scaleOut("consumer-protocol-scale-out"));
      if (only == null || only.equals("static-rolling-update")) entries.add(run.staticRollingUpdate("static-rolling-update"));
    } finally {
      run.admin.close(java.time.Duration.ofSeconds(5));
    }
    JSON.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), entries);
  }

  // ------------------------------------------------------------------ consumer-protocol-scale-out

  /** Kafka's group after a step: epochs, and per client id its member. */
  record Snapshot(String step, int groupEpoch, int targetEpoch, String state, Map<String, Seen> members) {}

  /** One member as the coordinator describes it. */
  record Seen(String memberId, int epoch, List<Integer> assignment, List<Integer> target) {}

  private Map<String, Object> scaleOut(String name) throws Exception {
    long began = System.nanoTime();
    Checks checks = new Checks();
    JsonNode model = model(List.of("run", "--scenario", name, "--json", "--events"));
    JsonNode group = model.path("config").path("groups").path(0);
    int partitions = model.path("config").path("partitions").asInt();
    String groupName = group.path("name").asText();
    if (!group.path("protocol").asText().equals("consumer") || !group.path("remote_assignor").asText().equals("uniform")) {
      throw new IllegalStateException(name + ": expected the consumer protocol and the uniform assignor, got " + group);
    }
    // The model's steps, its member ids, its group epoch after each step, its target at each
    // epoch, and the order its coordinator's map would hold its ids in for each target.
    List<JsonNode> steps = new ArrayList<>();
    Map<String, String> modelIds = new LinkedHashMap<>();
    TreeMap<Integer, Map<String, List<Integer>>> modelTargets = new TreeMap<>();
    Map<Integer, List<String>> modelOrders = new TreeMap<>();
    Map<Integer, Integer> modelEpochAfterStep = new HashMap<>();
    TimelineOrder modelMembers = new TimelineOrder();
    String joining = null;
    for (JsonNode e : model.path("events")) {
      switch (e.path("event").asText()) {
        case "started" -> {
          steps.add(e);
          modelIds.put(e.path("consumer").asText(), e.path("member_id").asText());
          joining = e.path("member_id").asText();
        }
        case "crashed" -> steps.add(e);
        case "session-expired" -> {
          steps.add(e);
          modelMembers.remove(e.path("member_id").asText());
        }
        // The model bumps the epoch for an expiry just before it says the session expired.
        case "group-epoch-bumped" -> modelEpochAfterStep.put(
            e.path("reason").asText().equals("session-expired") ? steps.size() : steps.size() - 1, e.path("group_epoch").asInt());
        case "target-assignment" -> {
          Map<String, List<Integer>> target = new TreeMap<>();
          for (JsonNode pair : e.path("target")) target.put(pair.get(0).asText(), ints(pair.get(1)));
          modelTargets.put(e.path("target_epoch").asInt(), target);
          List<String> order = new ArrayList<>(modelMembers.order());
          if (joining != null) {
            order.add(joining);
            modelMembers.join(joining);
            joining = null;
          }
          modelOrders.put(e.path("target_epoch").asInt(), order);
        }
        default -> {}
      }
    }
    resetBroker(groupName, partitions);
    int starts = (int) steps.stream().filter(e -> e.path("event").asText().equals("started")).count();
    List<Member> warm = Member.spawn(starts, bootstrap, log);
    Map<String, Member> live = new LinkedHashMap<>();
    Map<String, Member> dead = new LinkedHashMap<>();
    Map<String, Member> everyone = new LinkedHashMap<>();
    List<Snapshot> snapshots = new ArrayList<>();
    /** Per snapshot, each member's callbacks up to it (an index into its events), and who was alive. */
    List<Map<String, Integer>> marks = new ArrayList<>();
    List<Set<String>> alive = new ArrayList<>();
    /** The coordinator's member map (a TimelineHashMap) as the joins and the expiry fill it. */
    TimelineOrder members = new TimelineOrder();
    /** Per snapshot: the members in the order the coordinator filled the assignor's map. */
    List<List<String>> fillOrders = new ArrayList<>();
    Map<String, String[]> texts = new LinkedHashMap<>();
    int lastBeforeCrash = -1;
    int expiry = -1;
    /** Kafka's member ids in join order, and per snapshot (a diagnostic: does the map's order decide?). */
    List<String> joined = new ArrayList<>();
    List<List<String>> joinOrders = new ArrayList<>();
    /** Per snapshot, the model's group epoch after the same step. */
    List<Integer> modelEpochs = new ArrayList<>();
    /** Each member's events before the members are closed at the end. */
    Map<String, Integer> end = new HashMap<>();
    try {
      // Before the first join there is no group: epoch 0 on both sides.
      int epochBefore = 0;
      int modelBefore = 0;
      for (int i = 0; i < steps.size(); i++) {
        JsonNode e = steps.get(i);
        String consumer = e.path("consumer").asText();
        switch (e.path("event").asText()) {
          case "started" -> {
            Member m = warm.remove(0);
            m.start(JSON.createObjectNode().put("op", "start").put("group", groupName).put("client_id", consumer)
                .put("protocol", "consumer").put("max_poll_records", group.path("records_per_poll").asInt(6)));
            live.put(consumer, m);
            everyone.put(consumer, m);
            Snapshot s = settle(groupName, consumer + " joins", live, dead, epochBefore);
            // The joining member is put last, after the members already in the coordinator's map.
            List<String> order = new ArrayList<>(members.order());
            members.join(s.members().get(consumer).memberId());
            order.add(s.members().get(consumer).memberId());
            joined.add(s.members().get(consumer).memberId());
            joinOrders.add(new ArrayList<>(joined));
            record(snapshots, marks, alive, fillOrders, s, everyone, live, order);
            checks.check(s.step() + ": group epoch bumped by", modelEpochAfterStep.get(i) - modelBefore, s.groupEpoch() - epochBefore);
            modelEpochs.add(modelEpochAfterStep.get(i));
            modelBefore = modelEpochAfterStep.get(i);
            epochBefore = s.groupEpoch();
          }
          case "crashed" -> {
            compareDescribe(checks, texts, name, groupName, "before " + consumer + " crashes", e.path("tick").asInt() - 1, null,
                snapshots.get(snapshots.size() - 1));
            lastBeforeCrash = snapshots.size() - 1;
            Member m = live.remove(consumer);
            m.kill();
            dead.put(consumer, m);
          }
          case "session-expired" -> {
            compareDescribe(checks, texts, name, groupName, "before " + consumer + "'s session runs out",
                e.path("tick").asInt() - 1, consumer, snapshots.get(snapshots.size() - 1));
            String gone = snapshots.get(snapshots.size() - 1).members().get(consumer).memberId();
            dead.remove(consumer);
            Snapshot s = settle(groupName, consumer + "'s session runs out", live, dead, epochBefore);
            members.remove(gone);
            joined.remove(gone);
            joinOrders.add(new ArrayList<>(joined));
            expiry = snapshots.size();
            record(snapshots, marks, alive, fillOrders, s, everyone, live, members.order());
            checks.check(s.step() + ": group epoch bumped by", modelEpochAfterStep.get(i) - modelBefore, s.groupEpoch() - epochBefore);
            modelEpochs.add(modelEpochAfterStep.get(i));
            modelBefore = modelEpochAfterStep.get(i);
            epochBefore = s.groupEpoch();
          }
          default -> throw new IllegalStateException("no such step " + e);
        }
      }
      compareDescribe(checks, texts, name, groupName, "the end", -1, null, snapshots.get(snapshots.size() - 1));
      everyone.forEach((c, m) -> end.put(c, m.events().size()));
      // Closed, not killed: they leave at once, and the next run can take the group's name.
      for (Member m : live.values()) m.close();
      waitUntil(CLOSE_TIMEOUT_MS, () -> live.values().stream().allMatch(m -> m.said("closed")));
    } finally {
      for (Member m : everyone.values()) m.kill();
      for (Member m : warm) m.kill();
    }
    if (lastBeforeCrash < 0 || expiry < 0) throw new IllegalStateException(name + ": the model has no crash and expiry");

    // Each step's target: its epoch, its shape, and (exactly) what offsetlab's uniform assignor
    // makes of Kafka's member ids and previous target; and the model's own targets the same way,
    // its ids in the order Kafka's coordinator would have filled its map with them.
    List<ObjectNode> cases = new ArrayList<>();
    for (int k = 0; k < snapshots.size(); k++) {
      Snapshot s = snapshots.get(k);
      Map<String, List<Integer>> modelTarget = modelTargets.get(modelEpochs.get(k));
      checks.check(s.step() + ": partitions per member of the target (sorted)",
          modelTarget == null ? "no target at epoch " + modelEpochs.get(k) : shape(modelTarget), shape(targets(s)));
      Map<String, List<Integer>> previous = k == 0 ? Map.of() : targetsById(snapshots.get(k - 1));
      cases.add(uniformCase("kafka-" + k, partitions, fillOrders.get(k), previous));
    }
    for (Map.Entry<Integer, List<String>> o : modelOrders.entrySet()) {
      Map<String, List<Integer>> previous = new HashMap<>();
      if (modelTargets.containsKey(o.getKey() - 1)) {
        modelTargets.get(o.getKey() - 1).forEach((client, owned) -> previous.put(modelIds.get(client), owned));
      }
      cases.add(uniformCase("model-" + o.getKey(), partitions, o.getValue(), previous));
    }
    for (int k = 0; k < snapshots.size(); k++) {
      Map<String, List<Integer>> previous = k == 0 ? Map.of() : targetsById(snapshots.get(k - 1));
      cases.add(uniformCase("kafka-join-order-" + k, partitions, joinOrders.get(k), previous));
    }
    List<JsonNode> answers = assignBatch(cases);
    for (int k = 0; k < snapshots.size(); k++) {
      Snapshot s = snapshots.get(k);
      Map<String, String> clientOf = new HashMap<>();
      s.members().forEach((client, m) -> clientOf.put(m.memberId(), client));
      checks.check(s.step() + ": target (offsetlab's uniform on Kafka's member ids and previous target)",
          byClient(answers.get(k), clientOf), targets(s));
    }
    Map<String, String> modelClientOf = new HashMap<>();
    modelIds.forEach((client, id) -> modelClientOf.put(id, client));
    int answer = snapshots.size();
    for (Integer epoch : modelOrders.keySet()) {
      // The Kafka side: offsetlab's uniform assignor (equal to Kafka's on Kafka's ids above) on the
      // model's ids in the order Kafka's coordinator would fill its map with them.
      checks.check("model epoch " + epoch + ": its target; kafka: its ids in the coordinator's map order",
          modelTargets.get(epoch), byClient(answers.get(answer++), modelClientOf));
    }
    // Not compared: would the join order have given Kafka's targets too? (Where it would not, this
    // run shows the map's order deciding.)
    int decided = 0;
    for (int k = 0; k < snapshots.size(); k++) {
      Map<String, String> clientOf = new HashMap<>();
      snapshots.get(k).members().forEach((client, m) -> clientOf.put(m.memberId(), client));
      if (!byClient(answers.get(answer++), clientOf).equals(targets(snapshots.get(k)))) decided++;
    }
    checks.note(String.format("%-70s %d of %d steps (not compared: a diagnostic)",
        "Kafka's targets the join order would have missed", decided, snapshots.size()));

    // Revocations: each live member gives up exactly what it held outside its new target, and
    // keeps the rest. The model's consumers all join in one tick where Kafka's are paced, so the
    // counts are compared from the crash on.
    int violations = 0;
    List<String> revocationNotes = new ArrayList<>();
    for (int k = 1; k < snapshots.size(); k++) {
      Snapshot before = snapshots.get(k - 1);
      Snapshot after = snapshots.get(k);
      for (String client : alive.get(k)) {
        if (!alive.get(k - 1).contains(client)) continue;
        Set<Integer> revoked = everyone.get(client).partitions("revoked", marks.get(k - 1).get(client), marks.get(k).get(client));
        Set<Integer> expected = new TreeSet<>(before.members().get(client).assignment());
        expected.removeAll(after.members().get(client).target());
        if (!revoked.equals(expected)) {
          violations++;
          revocationNotes.add(after.step() + ": " + client + " revoked " + revoked + ", held outside its target " + expected);
        }
      }
    }
    checks.check("members that revoked other than what they held outside their new target", 0, violations);
    int lost = 0;
    for (Map.Entry<String, Member> m : everyone.entrySet()) {
      if (live.containsKey(m.getKey())) lost += m.getValue().partitions("lost", 0, end.getOrDefault(m.getKey(), 0)).size();
    }
    checks.check("partitions lost by live members (fenced)", 0, lost);
    checks.check("partitions revoked by live members from the crash to the expiry", modelRevoked(model, "crash"),
        revokedBetween(everyone, live.keySet(), marks.get(lastBeforeCrash), marks.get(expiry - 1)));
    checks.check("partitions revoked by live members after the expiry", modelRevoked(model, "expiry"),
        revokedBetween(everyone, live.keySet(), marks.get(expiry - 1), end));

    Map<String, Object> entry = entry(name, checks, began, String.format(
        "%d consumers (consumer protocol, uniform) on %d partitions, %d steps", starts, partitions, snapshots.size()));
    StringBuilder table = new StringBuilder();
    table.append(String.format("%-34s %-8s %-8s %s%n", "Kafka after", "epoch", "target", "target assignment (client: partitions)"));
    for (Snapshot s : snapshots) {
      Map<String, List<Integer>> t = new TreeMap<>();
      s.members().forEach((c, m) -> t.put(c, m.target()));
      table.append(String.format("%-34s %-8d %-8d %s%n", s.step(), s.groupEpoch(), s.targetEpoch(), t));
    }
    revocationNotes.forEach(n -> table.append("  ").append(n).append('\n'));
    checks.appendTo(table);
    texts.forEach((what, v) -> {
      table.append("offsetlab ").append(what).append(":\n").append(v[0]).append('\n');
      if (!v[0].equals(v[1])) table.append("Kafka ").append(what).append(":\n").append(v[1]).append('\n');
    });
    entry.put("table", table.toString());
    return entry;
  }

  private static Map<String, List<Integer>> targets(Snapshot s) {
    Map<String, List<Integer>> out = new TreeMap<>();
    s.members().forEach((client, m) -> out.put(client, m.target()));
    return out;
  }

  /** The partitions the members `clients` revoked between two marks. */
  private static long revokedBetween(Map<String, Member> everyone, Set<String> clients, Map<String, Integer> from,
      Map<String, Integer> to) {
    long n = 0;
    for (String client : clients) {
      n += everyone.get(client).partitions("revoked", from.getOrDefault(client, 0), to.getOrDefault(client, 0)).size();
    }
    return n;
  }

  /** The partitions the model's live members revoked from its crash to its expiry, or after the expiry. */
  private static long modelRevoked(JsonNode model, String phase) {
    Set<String> crashed = new HashSet<>();
    boolean crashSeen = false;
    boolean expirySeen = false;
    Map<String, Set<Integer>> revoked = new HashMap<>();
    for (JsonNode e : model.path("events")) {
      switch (e.path("event").asText()) {
        case "crashed" -> {
          crashSeen = true;
          crashed.add(e.path("consumer").asText());
        }
        case "session-expired" -> expirySeen = true;
        case "reconciled" -> {
          boolean in = phase.equals("crash") ? crashSeen && !expirySeen : expirySeen;
          if (in && !crashed.contains(e.path("consumer").asText())) {
            Set<Integer> r = revoked.computeIfAbsent(e.path("consumer").asText(), k -> new TreeSet<>());
            e.path("revoking").forEach(p -> r.add(p.asInt()));
          }
        }
        default -> {}
      }
    }
    return revoked.values().stream().mapToLong(Set::size).sum();
  }

  private static void record(List<Snapshot> snapshots, List<Map<String, Integer>> marks, List<Set<String>> alive,
      List<List<String>> fillOrders, Snapshot s, Map<String, Member> everyone, Map<String, Member> live, List<String> order) {
    snapshots.add(s);
    Map<String, Integer> mark = new HashMap<>();
    everyone.forEach((c, m) -> mark.put(c, m.events().size()));
    marks.add(mark);
    alive.add(new TreeSet<>(live.keySet()));
    fillOrders.add(order);
    System.out.printf("  %-30s epoch %d, target %d: %s%n", s.step(), s.groupEpoch(), s.targetEpoch(), targets(s));
  }

  /**
   * Waits until Kafka's group has settled after a step: the group epoch moved past {@code
   * epochBefore}, the target is computed for it, every live member is at the target epoch with
   * its assignment inside its target and its rebalance listener caught up, and what it still
   * lacks is held by a crashed member; the same several looks in a row.
   */
  private Snapshot settle(String group, String step, Map<String, Member> live, Map<String, Member> dead, int epochBefore)
      throws Exception {
    long deadline = System.currentTimeMillis() + SETTLE_TIMEOUT_MS;
    Snapshot last = null;
    int same = 0;
    String why = "no answer";
    while (System.currentTimeMillis() < deadline) {
      Snapshot now = snapshot(group, step);
      why = unsettled(now, live, dead, epochBefore);
      if (why == null && now.equals(last)) {
        if (++same >= SETTLED_LOOKS - 1) return now;
      } else {
        same = 0;
      }
      last = why == null ? now : null;
      Thread.sleep(LOOK_MS);
    }
    throw new IllegalStateException(step + ": Kafka's group did not settle in " + SETTLE_TIMEOUT_MS + " ms: " + why + failures());
  }

  private static String unsettled(Snapshot s, Map<String, Member> live, Map<String, Member> dead, int epochBefore) {
    if (s == null) return "no group yet";
    Set<String> expected = new TreeSet<>(live.keySet());
    expected.addAll(dead.keySet());
    if (!s.members().keySet().equals(expected)) return "members " + s.members().keySet() + ", expected " + expected;
    if (s.groupEpoch() <= epochBefore) return "group epoch still " + s.groupEpoch();
    if (s.targetEpoch() != s.groupEpoch()) return "target epoch " + s.targetEpoch() + " behind group epoch " + s.groupEpoch();
    Set<Integer> held = new HashSet<>();
    for (String c : dead.keySet()) held.addAll(s.members().get(c).assignment());
    for (String c : live.keySet()) {
      Seen m = s.members().get(c);
      if (m.epoch() != s.targetEpoch()) return c + " at epoch " + m.epoch();
      if (!m.target().containsAll(m.assignment())) return c + " still holds " + m.assignment() + " outside " + m.target();
      Set<Integer> missing = new TreeSet<>(m.target());
      missing.removeAll(m.assignment());
      if (!held.containsAll(missing)) return c + " still lacks " + missing;
      if (!live.get(c).owned().equals(new TreeSet<>(m.assignment()))) {
        return c + "'s listener has " + live.get(c).owned() + ", the coordinator " + m.assignment();
      }
    }
    return null;
  }

  /** The group as Admin describes it, by client id; null while it does not exist. */
  private Snapshot snapshot(String group, String step) throws Exception {
    ConsumerGroupDescription d;
    try {
      d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) return null;
      throw e;
    }
    Map<String, Seen> members = new TreeMap<>();
    for (MemberDescription m : d.members()) {
      List<Integer> target = m.targetAssignment().map(a -> partitionsOf(a.topicPartitions())).orElse(List.of());
      members.put(m.clientId(), new Seen(m.consumerId(), m.memberEpoch().orElse(-1),
          partitionsOf(m.assignment().topicPartitions()), target));
    }
    return new Snapshot(step, d.groupEpoch().orElse(-1), d.targetAssignmentEpoch().orElse(-1),
        d.groupState().toString(), members);
  }

  private static List<Integer> partitionsOf(Set<TopicPartition> tps) {
    return new ArrayList<>(new TreeSet<>(tps.stream().map(TopicPartition::partition).toList()));
  }

  /**
   * At a settle point: the group epoch and target assignment epoch (the model's {@code --describe
   * --state --verbose} at {@code tick}, -1 for the end, against Admin's), and the real tool's
   * {@code --describe --members --verbose} (and at the end {@code --state --verbose}) against the
   * model's, normalised. Before c3's session runs out, a tool run that came after it (the broker's
   * timer won the race) is said and not compared.
   */
  private void compareDescribe(Checks checks, Map<String, String[]> texts, String scenario, String group, String when,
      int tick, String mustStillHave, Snapshot kafkaNow) throws Exception {
    List<String> views = tick < 0 ? List.of("members", "state") : List.of("members");
    List<List<String>> calls = new ArrayList<>();
    for (String view : views) calls.add(List.of("--describe", "--group", group, "--" + view, "--verbose"));
    List<String> kafka = tool(calls);
    List<String> ticks = tick < 0 ? List.of() : List.of("--ticks", Integer.toString(tick));
    List<String> stateArgs = new ArrayList<>(List.of("run", "--scenario", scenario, "--json", "--describe", "state", "--verbose"));
    stateArgs.addAll(ticks);
    String[] state = stateRow(model(stateArgs).path("groups").path(0).path("describe").asText());
    checks.check("group epoch, target assignment epoch, " + when, state[0] + ", " + state[1],
        kafkaNow.groupEpoch() + ", " + kafkaNow.targetEpoch());
    for (int v = 0; v < views.size(); v++) {
      List<String> args = new ArrayList<>(List.of("run", "--scenario", scenario, "--json", "--describe", views.get(v), "--verbose"));
      args.addAll(ticks);
      String ours = model(args).path("groups").path(0).path("describe").asText();
      String what = "--describe --" + views.get(v) + " --verbose, " + when;
      if (mustStillHave != null && !Pattern.compile("\\s" + mustStillHave + "\\s").matcher(kafka.get(v)).find()) {
        checks.note(what + ": not compared, " + mustStillHave + "'s session had run out before the tool ran (timing)");
        continue;
      }
      String a = normalise(ours, true);
      String b = normalise(kafka.get(v), true);
      texts.put(what, new String[] {a, b});
      checks.check(what + " (normalised)", a.equals(b) ? "same text" : "text below", a.equals(b) ? "same text" : "differs");
    }
  }

  /** GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH from a {@code --describe --state --verbose} text. */
  private static String[] stateRow(String text) {
    List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
    for (int i = 0; i + 1 < lines.size(); i++) {
      if (lines.get(i).startsWith("GROUP ")) {
        List<String> header = List.of(lines.get(i).replace("COORDINATOR (ID)", "COORDINATOR").trim().split("\\s+"));
        // The coordinator cell is "host:port  (id)": two columns once split.
        String[] row = lines.get(i + 1).trim().replaceAll("  \\((\\d+)\\)", "($1)").split("\\s+");
        int epoch = header.indexOf("GROUP-EPOCH");
        int target = header.indexOf("TARGET-ASSIGNMENT-EPOCH");
        if (epoch >= 0 && target >= 0 && row.length == header.size()) return new String[] {row[epoch], row[target]};
      }
    }
    throw new IllegalStateException("no --state --verbose table in " + text);
  }

  // ------------------------------------------------------------------ static-rolling-update

  private Map<String, Object> staticRollingUpdate(String name) throws Exception {
    long began = System.nanoTime();
    Checks checks = new Checks();
    JsonNode model = model(List.of("run", "--scenario", name, "--json", "--events"));
    JsonNode group = model.path("config").path("groups").path(0);
    int partitions = model.path("config").path("partitions").asInt();
    int consumers = group.path("consumers").asInt();
    int keys = model.path("config").path("producer").path("key_count").asInt(16);
    String groupName = group.path("name").asText();
    if (!group.path("protocol").asText().equals("classic") || !group.path("static_members").asBoolean()) {
      throw new IllegalStateException(name + ": expected static members on the classic protocol, got " + group);
    }
    String assignor = assignorClass(group.path("assignor").asText());
    // The model's instance ids (its --describe --members shows them), restarts and generations.
    Map<String, String> instances = instanceIds(model(List.of("run", "--scenario", name, "--json", "--describe", "members"))
        .path("groups").path(0).path("describe").asText());
    List<String> restarts = new ArrayList<>();
    Map<String, List<Integer>> modelFirst = new TreeMap<>();
    Map<String, List<Integer>> modelAfter = new TreeMap<>();
    int modelFirstGeneration = -1;
    int modelRebalances = 0;
    for (JsonNode e : model.path("events")) {
      switch (e.path("event").asText()) {
        case "stopping" -> restarts.add(e.path("consumer").asText());
        case "rebalance-completed" -> {
          if (modelFirstGeneration < 0) {
            modelFirstGeneration = e.path("generation").asInt();
            for (JsonNode pair : e.path("assignment")) modelFirst.put(pair.get(0).asText(), ints(pair.get(1)));
          } else {
            modelRebalances++;
          }
        }
        case "static-member-replaced" -> modelAfter.put(e.path("consumer").asText(), ints(e.path("assignment")));
        default -> {}
      }
    }
    JsonNode metrics = model.path("metrics");

    resetBroker(groupName, partitions);
    List<Member> warm = Member.spawn(consumers + restarts.size(), bootstrap, log);
    Map<String, Member> live = new LinkedHashMap<>();
    List<Member> all = new ArrayList<>();
    Map<String, List<Integer>> kafkaFirst = new TreeMap<>();
    Map<String, List<Integer>> kafkaAfter = new TreeMap<>();
    Set<Integer> generations = new TreeSet<>();
    AtomicBoolean sending = new AtomicBoolean(true);
    Map<String, Long> sent = Collections.synchronizedMap(new LinkedHashMap<>());
    List<Throwable> producerFailed = Collections.synchronizedList(new ArrayList<>());
    Thread producer = null;
    String[] kafkaTexts;
    try {
      for (int i = 1; i <= consumers; i++) {
        String client = "c" + i;
        Member m = warm.remove(0);
        m.start(startStatic(groupName, client, instances.get(client), assignor, group));
        live.put(client, m);
        all.add(m);
      }
      waitFor("the first generation", SETTLE_TIMEOUT_MS, () -> coverage(live.values()) == partitions);
      live.forEach((c, m) -> {
        kafkaFirst.put(c, new ArrayList<>(m.owned()));
        generations.addAll(m.epochs());
      });
      int firstGeneration = generations.isEmpty() ? -1 : Collections.min(generations);
      producer = new Thread(() -> {
        try (KafkaProducer<String, String> p = producer()) {
          for (long i = 0; sending.get(); i++) {
            RecordMetadata meta = p.send(new ProducerRecord<>(TOPIC, "user-" + (i % keys), Long.toString(i))).get(30, TimeUnit.SECONDS);
            sent.put(meta.partition() + ":" + meta.offset(), i);
            Thread.sleep(SEND_PAUSE_MS);
          }
        } catch (Throwable e) {
          producerFailed.add(e);
        }
      }, "producer");
      producer.start();
      waitFor("every member handling records", SETTLE_TIMEOUT_MS, () -> live.values().stream().allMatch(m -> m.handled().size() > 0));
      for (String client : restarts) {
        Member old = live.get(client);
        old.close();
        waitFor(client + " closing", CLOSE_TIMEOUT_MS, () -> old.said("closed"));
        Member next = warm.remove(0);
        next.start(startStatic(groupName, client, instances.get(client), assignor, group));
        live.put(client, next);
        all.add(next);
        // Back within the session: the same member, its partitions handed back without a rebalance.
        waitFor(client + "'s restart getting its partitions", STATIC_SESSION_TIMEOUT_MS,
            () -> next.said("assigned") && next.owned().size() > 0 || next.said("lost"));
        waitFor(client + "'s restart handling records", SETTLE_TIMEOUT_MS, () -> next.handled().size() > 0);
        kafkaAfter.put(client, new ArrayList<>(next.owned()));
        generations.addAll(next.epochs());
      }
      sending.set(false);
      producer.join(30_000);
      if (!producerFailed.isEmpty()) throw new IllegalStateException(name + ": the producer failed", producerFailed.get(0));
      // A record never handled is a result (counted below), not a harness failure.
      waitUntil(DRAIN_TIMEOUT_MS, () -> handledOnce(all).containsAll(sent.keySet()));
      for (Member m : live.values()) generations.addAll(m.epochs());
      // Rebalance callbacks after each incarnation's first assignment, until it was told to close.
      int callbacks = all.stream().mapToInt(m -> m.callbacksAfterFirst()).sum();
      List<String> texts = tool(List.of(
          List.of("--describe", "--group", groupName, "--members", "--verbose"),
          List.of("--describe", "--group", groupName, "--state", "--verbose")));
      kafkaTexts = texts.toArray(new String[0]);

      checks.check("the first generation", modelFirstGeneration, firstGeneration);
      checks.check("the first generation's assignment", modelFirst, kafkaFirst);
      checks.check("rebalances after it (generations other than the first)", modelRebalances, generations.size() - 1);
      checks.check("rebalance callbacks after each member's first assignment (until its close)", 0, callbacks);
      checks.check("each instance's partitions after its restart", modelAfter, kafkaAfter);
      Map<String, Integer> counts = new HashMap<>();
      for (Member m : all) for (String r : m.handled()) counts.merge(r, 1, Integer::sum);
      long twice = counts.values().stream().filter(n -> n > 1).count();
      long never = sent.keySet().stream().filter(r -> !counts.containsKey(r)).count();
      long refused = all.stream().mapToLong(m -> m.count("commit-failed")).sum();
      checks.check("records handled twice", metrics.path("duplicates").asLong(), twice);
      checks.check("records never handled", metrics.path("never_processed").asLong(), never);
      checks.check("commits refused", 0L, refused);
      checks.note(String.format("%-70s offsetlab %d, kafka %d (not compared: ticks are not milliseconds)",
          "records sent and handled", metrics.path("delivered").asLong(), sent.size()));
    } finally {
      sending.set(false);
      if (producer != null) producer.join(30_000);
      for (Member m : all) m.kill();
      for (Member m : warm) m.kill();
    }
    String[] views = {"members", "state"};
    StringBuilder described = new StringBuilder();
    for (int v = 0; v < views.length; v++) {
      String ours = model(List.of("run", "--scenario", name, "--json", "--describe", views[v], "--verbose"))
          .path("groups").path(0).path("describe").asText();
      String a = normalise(ours, false);
      String b = normalise(kafkaTexts[v], false);
      String what = "--describe --" + views[v] + " --verbose, the end";
      checks.check(what + " (normalised)", a.equals(b) ? "same text" : "text below", a.equals(b) ? "same text" : "differs");
      described.append("offsetlab ").append(what).append(":\n").append(a).append('\n');
      if (!a.equals(b)) described.append("Kafka ").append(what).append(":\n").append(b).append('\n');
    }
    Map<String, Object> entry = entry(name, checks, began, String.format(
        "%d static members (classic, %s) on %d partitions, %d restarts", consumers, group.path("assignor").asText(),
        partitions, restarts.size()));
    StringBuilder table = new StringBuilder();
    checks.appendTo(table);
    table.append(described);
    entry.put("table", table.toString());
    return entry;
  }

  private static ObjectNode startStatic(String group, String client, String instance, String assignor, JsonNode config) {
    return JSON.createObjectNode().put("op", "start").put("group", group).put("client_id", client).put("protocol", "classic")
        .put("instance_id", instance).put("assignor", assignor).put("session_timeout_ms", STATIC_SESSION_TIMEOUT_MS)
        .put("max_poll_records", config.path("records_per_poll").asInt(6));
  }

  /** Partitions the members hold between them. */
  private static int coverage(java.util.Collection<Member> members) {
    Set<Integer> all = new HashSet<>();
    for (Member m : members) all.addAll(m.owned());
    return all.size();
  }

  private static Set<String> handledOnce(List<Member> members) {
    Set<String> out = new HashSet<>();
    for (Member m : members) out.addAll(m.handled());
    return out;
  }

  /** Client id to instance id, from the model's {@code --describe --members} text. */
  private static Map<String, String> instanceIds(String describe) {
    Map<String, String> out = new TreeMap<>();
    List<String> lines = describe.lines().filter(l -> !l.isBlank()).toList();
    int header = 0;
    while (header < lines.size() && !lines.get(header).startsWith("GROUP ")) header++;
    if (header == lines.size()) throw new IllegalStateException("no --members table in " + describe);
    List<String> columns = List.of(lines.get(header).trim().split("\\s+"));
    int instance = columns.indexOf("GROUP-INSTANCE-ID");
    int client = columns.indexOf("CLIENT-ID");
    if (instance < 0 || client < 0) throw new IllegalStateException("no GROUP-INSTANCE-ID in " + describe);
    for (String line : lines.subList(header + 1, lines.size())) {
      String[] cols = line.trim().split("\\s+");
      out.put(cols[client], cols[instance]);
    }
    return out;
  }

  private static String assignorClass(String name) {
    return switch (name) {
      case "range" -> "org.apache.kafka.clients.consumer.RangeAssignor";
      case "roundrobin" -> "org.apache.kafka.clients.consumer.RoundRobinAssignor";
      case "sticky" -> "org.apache.kafka.clients.consumer.StickyAssignor";
      case "cooperative-sticky" -> "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
      default -> throw new IllegalArgumentException("no Kafka assignor named " + name);
    };
  }

  private KafkaProducer<String, String> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }

  // ------------------------------------------------------------------ shared

  /** What was compared: one row per check, the differences, and lines shown but not compared. */
  private static final class Checks {
    final List<String> rows = new ArrayList<>();
    final List<String> differences = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    void check(String what, Object ours, Object kafka) {
      boolean same = String.valueOf(ours).equals(String.valueOf(kafka));
      rows.add(String.format("%-70s offsetlab %s, kafka %s%s", what, ours, kafka, same ? "" : "  DIFFERENT"));
      if (!same) differences.add(what + ": offsetlab " + ours + ", kafka " + kafka);
    }

    void note(String line) {
      notes.add(line);
    }

    void appendTo(StringBuilder out) {
      rows.forEach(r -> out.append(r).append('\n'));
      notes.forEach(n -> out.append(n).append('\n'));
    }
  }

  private static Map<String, Object> entry(String name, Checks checks, long began, String what) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("name", name);
    entry.put("kind", "scenario");
    entry.put("result", checks.differences.isEmpty() ? "equal" : "different");
    entry.put("cases", checks.rows.size());
    entry.put("detail", String.format("%s, %.1f s: %s", what, (System.nanoTime() - began) / 1e9,
        checks.differences.isEmpty() ? checks.rows.size() + " checks equal"
            : checks.differences.size() + " of " + checks.rows.size() + " checks differ; first: " + checks.differences.get(0)));
    System.out.printf("  %-28s %s%n", name, entry.get("detail"));
    return entry;
  }

  private JsonNode model(List<String> args) throws Exception {
    return Scenarios.offsetlab(offsetlab, args, null, false);
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asInt()));
    return out;
  }

  /** Partitions per member, sorted. */
  private static List<Integer> shape(Map<String, List<Integer>> assignment) {
    List<Integer> out = new ArrayList<>();
    assignment.values().forEach(p -> out.add(p.size()));
    Collections.sort(out);
    return out;
  }

  private static Map<String, List<Integer>> targetsById(Snapshot s) {
    Map<String, List<Integer>> out = new HashMap<>();
    s.members().values().forEach(m -> out.put(m.memberId(), m.target()));
    return out;
  }

  /** A {@code remote_assignor: uniform} case of {@code offsetlab assign --batch}. */
  private static ObjectNode uniformCase(String id, int partitions, List<String> order, Map<String, List<Integer>> owned) {
    ObjectNode c = JSON.createObjectNode();
    c.put("id", id);
    c.put("remote_assignor", "uniform");
    c.putObject("topics").put(TOPIC, partitions);
    ArrayNode members = c.putArray("members");
    for (String member : order) {
      ObjectNode m = members.addObject();
      m.put("id", member);
      m.putArray("topics").add(TOPIC);
      List<Integer> mine = owned.get(member);
      if (mine != null && !mine.isEmpty()) {
        ArrayNode list = m.putObject("owned").putArray(TOPIC);
        mine.forEach(list::add);
      }
    }
    return c;
  }

  /** One {@code offsetlab assign --batch -} run for all the cases: the answers, in order. */
  private List<JsonNode> assignBatch(List<ObjectNode> cases) throws Exception {
    Process p = new ProcessBuilder(offsetlab, "assign", "--batch", "-").start();
    try (Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
      for (ObjectNode c : cases) in.write(JSON.writeValueAsString(c) + "\n");
    }
    byte[] out = p.getInputStream().readAllBytes();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("offsetlab assign --batch failed: " + err.strip() + " " + new String(out, StandardCharsets.UTF_8).strip());
    }
    List<JsonNode> answers = new ArrayList<>();
    for (String line : new String(out, StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) answers.add(JSON.readTree(line));
    }
    if (answers.size() != cases.size()) throw new IOException("offsetlab assign gave " + answers.size() + " answers for " + cases.size());
    return answers;
  }

  private static Map<String, List<Integer>> byClient(JsonNode answer, Map<String, String> clientOf) {
    Map<String, List<Integer>> out = new TreeMap<>();
    answer.path("assignment").fields().forEachRemaining(f -> out.put(clientOf.getOrDefault(f.getKey(), f.getKey()), ints(f.getValue().path(TOPIC))));
    return out;
  }

  /**
   * Empties the broker of what an earlier program left under the model's names: the group (once
   * its members' sessions are over) and the topic; then makes the topic afresh.
   */
  private void resetBroker(String group, int partitions) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      try {
        try {
          admin.deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
        }
        try {
          admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
        }
        admin.createTopics(List.of(new NewTopic(TOPIC, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        // A group with a crashed member is not empty until its session ends; a deleted topic
        // takes a moment to go: try again.
        boolean transient_ = e.getCause() instanceof GroupNotEmptyException || e.getCause() instanceof TopicExistsException;
        if (!transient_ || System.currentTimeMillis() > deadline) {
          throw new IOException("cannot clear the broker for " + group + "/" + TOPIC + ": " + e.getCause());
        }
      }
      Thread.sleep(200);
    }
  }

  /** Every consumer JVM started in this run, for {@link #failures}. */
  private static final List<Member> STARTED = Collections.synchronizedList(new ArrayList<>());

  /** What the consumers that failed said, for a timeout's message. */
  private static String failures() {
    StringBuilder out = new StringBuilder();
    synchronized (STARTED) {
      for (Member m : STARTED) {
        for (JsonNode e : m.events()) {
          if (e.path("event").asText().equals("failed")) out.append("; a consumer failed: ").append(e.path("error").asText());
        }
      }
    }
    return out.toString();
  }

  /** Polls `done` until it holds or `timeoutMs` passes: whether it held. */
  private static boolean waitUntil(long timeoutMs, BooleanSupplier done) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) return false;
      Thread.sleep(20);
    }
    return true;
  }

  /** Polls `done` until it holds, or fails naming `what` after `timeoutMs`. */
  private static void waitFor(String what, long timeoutMs, BooleanSupplier done) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out after " + timeoutMs + " ms waiting for " + what + failures());
      Thread.sleep(20);
    }
  }

  /**
   * The real {@code kafka-consumer-groups} (ConsumerGroupCommand), one JVM per call, the calls
   * at once: each one's stdout and stderr (its warnings), as a terminal shows them.
   */
  private List<String> tool(List<List<String>> calls) throws Exception {
    List<Process> processes = new ArrayList<>();
    List<File> outputs = new ArrayList<>();
    for (List<String> args : calls) {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.add("-XX:TieredStopAtLevel=1");
      String log4j = System.getProperty("log4j2.configurationFile");
      if (log4j != null) command.add("-Dlog4j2.configurationFile=" + log4j);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"),
          "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server", bootstrap));
      command.addAll(args);
      File output = File.createTempFile("kafka-consumer-groups", ".txt");
      output.deleteOnExit();
      outputs.add(output);
      processes.add(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start());
    }
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < processes.size(); i++) {
      Process p = processes.get(i);
      if (!p.waitFor(TOOL_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        processes.forEach(Process::destroyForcibly);
        throw new IOException("kafka-consumer-groups " + String.join(" ", calls.get(i)) + " did not finish in " + TOOL_TIMEOUT_MS + " ms");
      }
      String text = Files.readString(outputs.get(i).toPath(), StandardCharsets.UTF_8);
      // Kafka's tools log through SLF4J; without a binding it says so on stderr first.
      texts.add(text.lines().filter(l -> !l.startsWith("SLF4J")).reduce("", (a, b) -> a + b + "\n"));
      outputs.get(i).delete();
    }
    return texts;
  }

  /** A classic member id (its client or instance id, a dash, a UUID) or a consumer-protocol one (22 base64 characters). */
  private static final Pattern MEMBER_ID = Pattern.compile(
      "(?<=\\s)([A-Za-z0-9._-]+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9_-]{22})(?=\\s)");
  private static final Pattern HOST = Pattern.compile("/(\\d+\\.\\d+\\.\\d+\\.\\d+)");
  private static final Pattern COORDINATOR = Pattern.compile("\\S+:\\d+  \\((\\d+)\\) *");
  private static final Pattern CLIENT = Pattern.compile("(?<=\\s)c\\d+(?=\\s)");
  private static final Pattern ASSIGNMENT = Pattern.compile("(?<=\\s)" + TOPIC + ":[0-9,]+(?=\\s|$)");

  /**
   * The tool's text with what differs run to run replaced by placeholders of the same length (so
   * the columns stay where they are): member ids, hosts, the coordinator's address; with {@code
   * anonymous}, also client ids and partition numbers (which member holds which partition is
   * compared elsewhere). The rows are sorted: Kafka lists members in its hash map's order, the
   * model by member id.
   */
  static String normalise(String text, boolean anonymous) {
    String out = MEMBER_ID.matcher(text).replaceAll(r -> "x".repeat(r.group(1).length()));
    out = HOST.matcher(out).replaceAll(r -> "/" + "h".repeat(r.group(1).length()));
    out = COORDINATOR.matcher(out).replaceAll(r -> pad("coordinator  (" + r.group(1) + ")", r.group().length()));
    if (anonymous) {
      out = CLIENT.matcher(out).replaceAll(r -> "c" + "#".repeat(r.group().length() - 1));
      out = ASSIGNMENT.matcher(out).replaceAll(r -> r.group().replaceAll("[0-9]", "#"));
    }
    // Blank lines around the table are the tool's; a row's trailing spaces are its columns'.
    List<String> lines = new ArrayList<>(out.lines().toList());
    while (!lines.isEmpty() && lines.get(0).isBlank()) lines.remove(0);
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) lines.remove(lines.size() - 1);
    int header = 0;
    while (header < lines.size() && !lines.get(header).startsWith("GROUP ")) header++;
    if (header < lines.size()) {
      List<String> rows = new ArrayList<>(lines.subList(header + 1, lines.size()));
      Collections.sort(rows);
      lines = new ArrayList<>(lines.subList(0, header + 1));
      lines.addAll(rows);
    }
    return String.join("\n", lines);
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : s + " ".repeat(width - s.length());
  }

  /**
   * The iteration order of the coordinator's map of a consumer group's members, a {@code
   * TimelineHashMap} (Kafka's {@code BaseHashTable}): a power-of-two table from 2 slots, doubled
   * on every put (a replace too) that would make it over 3/4 full counting one more key, each
   * key's slot the top bits of its {@code hashCode()} times a Fibonacci constant, keys sharing a
   * slot kept in an array in the order they came, and iteration slot by slot, each slot's array
   * from its end. Kafka 4.4's target assignment builder fills the assignor's {@code HashMap} in
   * this order, then the member the heartbeat adds (an overlay on the map: new keys last), so it
   * decides which of two member ids in one bucket of that map comes first. (Checked against
   * Kafka's own TimelineHashMap on random ids, adds, replaces and removes while writing this.)
   */
  static final class TimelineOrder {
    private List<List<String>> slots = newSlots(2);
    private int size;

    private static List<List<String>> newSlots(int n) {
      List<List<String>> out = new ArrayList<>();
      for (int i = 0; i < n; i++) out.add(new ArrayList<>());
      return out;
    }

    private static int slot(String key, int slots) {
      int log2 = 32 - Integer.numberOfLeadingZeros(slots);
      int shift = 65 - log2;
      return (int) ((key.hashCode() * -7046029254386353131L) >>> shift);
    }

    /** A member added or replaced: the table grows before it looks for the key, so a replace can grow it too. */
    void put(String key) {
      if ((size + 1) * 0.75 > slots.size()) {
        List<List<String>> old = slots;
        slots = newSlots(old.size() * 2);
        for (List<String> slot : old) for (String k : slot) slots.get(slot(k, slots.size())).add(k);
      }
      List<String> at = slots.get(slot(key, slots.size()));
      if (!at.contains(key)) {
        at.add(key);
        size++;
      }
    }

    /** A member joins: its metadata record adds it, its assignment record (same operation) replaces it. */
    void join(String key) {
      put(key);
      put(key);
    }

    void remove(String key) {
      if (slots.get(slot(key, slots.size())).remove(key)) size--;
    }

    List<String> order() {
      List<String> out = new ArrayList<>();
      for (List<String> slot : slots) {
        for (int i = slot.size() - 1; i >= 0; i--) out.add(slot.get(i));
      }
      return out;
    }
  }

  /**
   * The driver's end of one {@link GroupMember} JVM: commands out, and every line it says kept in
   * order by a reader thread, so the driver can poll for what it waits for.
   */
  static final class Member {
    private final Process process;
    private final Writer in;
    private final List<JsonNode> events = Collections.synchronizedList(new ArrayList<>());
    /** How many events it had said when it was told to close; -1 before. */
    private int closedAt = -1;

    private Member(Process process) {
      this.process = process;
      this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line = out.readLine(); line != null; line = out.readLine()) {
            events.add(JSON.readTree(line));
          }
        } catch (IOException e) {
          // The process died: its events end here.
        }
      }, "member-reader");
      reader.setDaemon(true);
      reader.start();
    }

    /** Starts `count` JVMs at once (warm: each waits for its start) and waits until each is up. */
    static List<Member> spawn(int count, String bootstrap, Path log) throws Exception {
      List<Member> members = new ArrayList<>();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      for (int i = 0; i < count; i++) {
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1"));
        String log4j = System.getProperty("log4j2.configurationFile");
        if (log4j != null) command.add("-Dlog4j2.configurationFile=" + log4j);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), GroupMember.class.getName(),
            "--bootstrap", bootstrap, "--topic", TOPIC));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        members.add(new Member(pb.start()));
      }
      STARTED.addAll(members);
      try {
        for (Member m : members) waitFor("a consumer JVM to start", 60_000, () -> m.said("ready") || !m.process.isAlive());
        for (Member m : members) {
          if (!m.process.isAlive()) throw new IOException("a consumer JVM exited at start (" + m.process.exitValue() + "); see " + log);
        }
      } catch (Exception e) {
        members.forEach(Member::kill);
        throw e;
      }
      return members;
    }

    void start(ObjectNode command) throws IOException {
      in.write(JSON.writeValueAsString(command) + "\n");
      in.flush();
    }

    void close() throws IOException {
      closedAt = events().size();
      in.write("{\"op\": \"close\"}\n");
      in.flush();
    }

    /** The JVM dies at once: no commit, no leave (a crash). */
    void kill() {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    List<JsonNode> events() {
      synchronized (events) {
        return new ArrayList<>(events);
      }
    }

    boolean said(String what) {
      return events().stream().anyMatch(e -> e.path("event").asText().equals(what) || e.path(what).asBoolean(false));
    }

    long count(String event) {
      return events().stream().filter(e -> e.path("event").asText().equals(event)).count();
    }

    /** What it owns by its listener's callbacks: assigned adds, revoked and lost take away. */
    Set<Integer> owned() {
      return ListenerEvents.owned(events());
    }

    /** The partitions of its `kind` callbacks among its events [from, to). */
    Set<Integer> partitions(String kind, int from, int to) {
      List<JsonNode> all = events();
      Set<Integer> out = new TreeSet<>();
      for (JsonNode e : all.subList(Math.min(from, all.size()), Math.min(to, all.size()))) {
        if (e.path("event").asText().equals(kind)) e.path("partitions").forEach(p -> out.add(p.asInt()));
      }
      return out;
    }

    /** The generations (or member epochs) its assignments came in. */
    Set<Integer> epochs() {
      Set<Integer> out = new TreeSet<>();
      for (JsonNode e : events()) if (e.path("event").asText().equals("assigned")) out.add(e.path("epoch").asInt());
      return out;
    }

    /** Rebalance callbacks (with partitions) after its first assignment, until it was told to close. */
    int callbacksAfterFirst() {
      List<JsonNode> all = events();
      boolean first = true;
      int after = 0;
      for (JsonNode e : all.subList(0, closedAt < 0 ? all.size() : closedAt)) {
        String kind = e.path("event").asText();
        // A callback with no partitions changes nothing (the classic client makes some on a join).
        if (e.path("partitions").isEmpty()) continue;
        if (kind.equals("assigned") && first) {
          first = false;
        } else if (kind.equals("assigned") || kind.equals("revoked") || kind.equals("lost")) {
          after++;
        }
      }
      return after;
    }

    /** Every record handed to it, as "partition:offset". */
    List<String> handled() {
      List<String> out = new ArrayList<>();
      for (JsonNode e : events()) {
        if (e.path("event").asText().equals("handled")) e.path("records").forEach(r -> out.add(r.get(0).asInt() + ":" + r.get(1).asLong()));
      }
      return out;
    }
  }
}
