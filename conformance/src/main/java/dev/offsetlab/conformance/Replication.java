package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The replication built-ins on a real three-node KRaft cluster: {@code acks1-leader-crash} loses
 * acknowledged records and {@code acks-all-survives} does not, on Kafka as in the model, and
 * {@code unclean-election} loses them through an out-of-sync replica elected leader.
 *
 * <p>{@code cargo xtask conformance} starts the cluster (three combined broker+controller nodes,
 * {@code replica.lag.time.max.ms} 30 s so that a paused follower stays in the ISR, {@code
 * broker.session.timeout.ms} 9 s) and owns its processes; it runs this program once per scenario
 * with each node's id, pid and port, and starts again the node a run killed before the next run.
 * Ticks are not milliseconds, so the timeline is not replayed tick by tick: the model's story is
 * told in its order, with the model's numbers (from {@code offsetlab run --json --events}: the
 * records sent before the followers stall, while they stall, and after the crash; which broker
 * leads and crashes, which ones stall; acks and {@code min.insync.replicas}):
 *
 * <ol>
 *   <li>topic {@code orders-SCENARIO}, one partition, replicas [leader, followers…] (so the leader
 *       is the model's), the model's {@code min.insync.replicas}; wait until the leader leads and
 *       every replica is in the ISR;
 *   <li>a producer with the model's acks, {@code enable.idempotence=false} (idempotence requires
 *       acks=all; the model's producer has none), 5 requests in flight, retries, a 10 s request
 *       timeout and a 60 s delivery timeout, sends the first records; each must be acknowledged,
 *       and the high watermark must reach their end (every follower has them);
 *   <li>the followers' JVMs are paused (SIGSTOP): they fetch nothing but stay in the ISR, and the
 *       pause is shorter than the broker session, so nobody is fenced for it; after {@link
 *       #STALL_SETTLE_MS} (the fetches they left waiting on the leader are answered empty, so none
 *       carries the next records to them) the next records are sent, and what is acknowledged
 *       within {@link #PAUSE_WAIT_MS} is noted;
 *   <li>the leader's JVM is killed (SIGKILL), then the followers continue (SIGCONT); once the
 *       leader's session runs out the controller elects a follower from the ISR (a clean election:
 *       unclean election is off); the producer's pending sends retry or fail;
 *   <li>the last records are sent to the new leader; then a consumer ({@code assign()}, from the
 *       beginning, read_uncommitted) reads the partition, and every record whose send was
 *       acknowledged but that is not in it is an acknowledged record lost.
 * </ol>
 *
 * <p>The unclean election (the model's election kind is {@code unclean}) is told differently where
 * Kafka needs it: the topic has the model's replication factor (2: the leader and the follower
 * that stalls; the third node holds no replica of it) and {@code unclean.leader.election.enable},
 * and eligible leader replicas (KIP-966) are switched off for the story as in the model's cluster
 * (feature {@code eligible.leader.replicas.version} downgraded to 0, upgraded back after). The
 * model's follower leaves the ISR by lagging longer than {@code replica.lag.time.max.ms}; that
 * setting is static and 30 s on this cluster, longer than the session, so the paused follower
 * stays paused until it is fenced and the controller takes it out of the ISR. The next records
 * are then acknowledged by the leader alone; the leader is killed and the follower continued, and
 * once it is unfenced and the leader fenced the controller elects it though it is not in the ISR.
 *
 * <p>Compared: whether acknowledged records were lost (Kafka's count against the model's {@code
 * acked_lost}: the verdict of the issue), how many records were acknowledged while the followers
 * stalled, and that the new leader is a follower that stalled, elected cleanly (from the ISR) or
 * uncleanly (from outside it) as in the model. Shown, not compared: the exact counts on both sides,
 * the records in the log at the end, refused writes.
 *
 * <p>The lost-acknowledgement and lost-request built-ins are {@link Delivery}'s, on the single broker.
 *
 * <p>Usage: {@code Replication --bootstrap H:P,H:P,H:P --offsetlab BIN --scenario NAME --node
 * ID:PID:PORT (one per node) --out FILE.json}. Exit 0 when it ran (a difference
 * is a result), 1 when the harness failed, 2 on bad arguments. Pids are signalled with {@code
 * kill}; a killed pid is watched through /proc (Linux).
 */
public final class Replication {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> SCENARIOS = List.of("acks1-leader-crash", "acks-all-survives", "unclean-election");
  /** Each story's topic is its own, so a run never meets the one before. */
  private static final String TOPIC_PREFIX = "orders-";
  /** After the followers stop, before the next records: longer than replica.fetch.wait.max.ms. */
  private static final long STALL_SETTLE_MS = 1_000;
  /** How long the stalled followers leave the producer waiting before the leader crashes. */
  private static final long PAUSE_WAIT_MS = 3_000;
  /** The brokers' session (server.properties): every pause must be shorter. */
  private static final long SESSION_TIMEOUT_MS = 9_000;
  private static final long SETTLE_TIMEOUT_MS = 30_000;
  private static final long ELECTION_TIMEOUT_MS = 60_000;
  private static final long SEND_TIMEOUT_MS = 30_000;
  private static final int REQUEST_TIMEOUT_MS = 10_000;
  private static final int DELIVERY_TIMEOUT_MS = 60_000;
  /** Reading stops when every acknowledged record was seen, or nothing new came for this long. */
  private static final long QUIET_MS = 3_000;
  private static final long READ_TIMEOUT_MS = 30_000;

  /** A follower paused for the unclean story is fenced (out of the ISR) within this. */
  private static final long FENCE_TIMEOUT_MS = 45_000;
  /** Kafka's feature for eligible leader replicas (KIP-966). */
  private static final String ELR_FEATURE = "eligible.leader.replicas.version";

  /** A cluster node: its id, its JVM's pid, its port. */
  record ClusterNode(int id, long pid, int port) {}

  private final String bootstrap;
  private final String offsetlab;
  private final Map<Integer, ClusterNode> nodes;
  private final Admin admin;
  /** Pids paused and not yet continued: continued whatever happens. */
  private final Set<Long> paused = java.util.Collections.synchronizedSet(new LinkedHashSet<>());

  private Replication(String bootstrap, String offsetlab, Map<Integer, ClusterNode> nodes) {
    this.bootstrap = bootstrap;
    this.offsetlab = offsetlab;
    this.nodes = nodes;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    this.admin = Admin.create(props);
  }

  public static void main(String[] args) {
    String usage = "--bootstrap H:P,… --offsetlab BIN --scenario NAME --node ID:PID:PORT … --out FILE.json";
    Map<String, List<String>> opts = DriverArgs.forDriver("Replication", usage, args);
    Map<String, String> last = DriverArgs.last(opts);
    String scenario = last.get("scenario");
    Map<Integer, ClusterNode> nodes = new TreeMap<>();
    try {
      if (scenario == null || !SCENARIOS.contains(scenario)) {
        throw new IllegalArgumentException("--scenario must be one of " + SCENARIOS);
      }
      for (String spec : opts.getOrDefault("node", List.of())) {
        String[] parts = spec.split(":");
        if (parts.length != 3) throw new IllegalArgumentException("--node wants ID:PID:PORT, not " + spec);
        ClusterNode node = new ClusterNode(Integer.parseInt(parts[0]), Long.parseLong(parts[1]), Integer.parseInt(parts[2]));
        nodes.put(node.id(), node);
      }
      if (nodes.size() < 3) throw new IllegalArgumentException("three --node ID:PID:PORT are needed, got " + nodes.size());
    } catch (IllegalArgumentException e) {
      System.err.println("Replication: " + e.getMessage());
      System.err.println("usage: Replication " + usage);
      System.exit(2);
    }
    Path out = Path.of(last.get("out"));
    ArrayNode entries = JSON.createArrayNode();
    int code = 0;
    Replication run = new Replication(last.get("bootstrap"), last.get("offsetlab"), nodes);
    // On SIGTERM (setpriv's when xtask dies) the finally below does not run: a paused node would
    // hold the SIGTERM it gets too, and outlive xtask.
    Runtime.getRuntime().addShutdownHook(new Thread(run::continueAll));
    try {
      long start = System.nanoTime();
      ObjectNode entry = run.play(scenario);
      System.out.printf("%-30s %-12s %5.1f s  %s%n", scenario, entry.path("result").asText(), (System.nanoTime() - start) / 1e9, entry.path("detail").asText());
      entries.add(entry);
    } catch (Exception e) {
      System.err.println("Replication: the harness failed in " + scenario + " (the model's seed, the scenario's own): " + e);
      e.printStackTrace();
      code = 1;
    } finally {
      run.continueAll();
      run.admin.close(Duration.ofSeconds(5));
    }
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(entries));
    } catch (IOException e) {
      System.err.println("Replication: cannot write " + out + ": " + e.getMessage());
      code = 1;
    }
    System.exit(code);
  }

  // ------------------------------------------------------------------ the model's story

  /** What the model's run says: its settings, its story's phases, its outcome. */
  record Model(
      long seed,
      String acks,
      int minInsync,
      int replicationFactor,
      int leader,
      List<Integer> stalled,
      int sendBefore,
      int sendDuring,
      int sendAfter,
      int ackedDuring,
      int acked,
      int ackedLost,
      int writesRefused,
      int producerDuplicates,
      int delivered,
      int newLeader,
      String electionKind) {}

  private Model model(String scenario) throws Exception {
    JsonNode run = Scenarios.offsetlab(offsetlab, List.of("run", "--scenario", scenario, "--json", "--events"), null, false);
    JsonNode config = run.path("config");
    JsonNode cluster = config.path("cluster");
    String acks = config.path("producer").path("delivery").path("acks").asText();
    int pauseTick = -1;
    int crashTick = -1;
    int leader = -1;
    List<Integer> stalled = new ArrayList<>();
    Map<Long, Integer> firstSent = new HashMap<>();
    int ackedDuring = 0;
    int acked = 0;
    int newLeader = -1;
    String kind = "none";
    for (JsonNode e : run.path("events")) {
      int tick = e.path("tick").asInt();
      switch (e.path("event").asText()) {
        case "setting-changed" -> {
          String value = e.path("value").asText();
          if (e.path("setting").asText().equals("follower_fetch_per_tick") && value.endsWith(":0") && crashTick < 0) {
            stalled.add(Integer.parseInt(value.substring(0, value.indexOf(':'))));
            if (pauseTick < 0) pauseTick = tick;
          }
        }
        case "broker-crashed" -> {
          if (crashTick < 0) {
            crashTick = tick;
            leader = e.path("broker").asInt();
          }
        }
        case "produced" -> firstSent.putIfAbsent(e.path("record_id").asLong(), tick);
        case "batch-acknowledged" -> {
          acked += e.path("records").asInt();
          if (pauseTick >= 0 && crashTick < 0) ackedDuring += e.path("records").asInt();
        }
        case "leader-elected" -> {
          if (newLeader < 0) {
            newLeader = e.path("leader").asInt();
            kind = e.path("kind").asText();
          }
        }
        default -> {}
      }
    }
    if (pauseTick < 0 || crashTick < 0 || stalled.isEmpty()) {
      throw new IOException(scenario + ": the model's run has no stalled followers or no crash: not a replication story");
    }
    int before = 0, during = 0, after = 0;
    for (int tick : firstSent.values()) {
      if (tick < pauseTick) before++;
      else if (tick <= crashTick) during++;
      else after++;
    }
    JsonNode metrics = run.path("metrics");
    return new Model(
        run.path("seed").asLong(),
        acks,
        cluster.path("min_insync_replicas").asInt(1),
        cluster.path("replication_factor").asInt(1),
        leader,
        stalled,
        before,
        during,
        after,
        ackedDuring,
        acked,
        metrics.path("acked_lost").asInt(),
        metrics.path("writes_refused").asInt(),
        metrics.path("producer_duplicates").asInt(),
        metrics.path("delivered").asInt(),
        newLeader,
        kind);
  }

  // ------------------------------------------------------------------ Kafka's story

  /** What happened on the cluster. */
  record Outcome(
      int acked,
      int ackedDuring,
      int lost,
      int inLog,
      int duplicatesInLog,
      Map<String, Integer> failures,
      int newLeader,
      List<Integer> isrBeforeCrash,
      List<Integer> isrAfter,
      long pauseMs,
      long electionMs,
      String elr) {}

  private ObjectNode play(String scenario) throws Exception {
    Model m = model(scenario);
    String where = scenario + " (seed " + m.seed() + ")";
    if (m.replicationFactor() > nodes.size() || m.replicationFactor() < 1 + m.stalled().size()) {
      throw new IOException(where + ": the model has replication factor " + m.replicationFactor() + " with " + m.stalled().size()
          + " stalled followers, the cluster " + nodes.size() + " nodes");
    }
    long began = System.nanoTime();
    Outcome k = onCluster(scenario, where, m);
    double secs = (System.nanoTime() - began) / 1e9;

    List<String> rows = new ArrayList<>();
    List<String> differences = new ArrayList<>();
    check(rows, differences, "acknowledged records lost (acked_lost >= 1)", m.ackedLost() >= 1, k.lost() >= 1);
    check(rows, differences, "records acknowledged while the followers stalled", m.ackedDuring(), k.ackedDuring());
    if (unclean(m)) {
      check(rows, differences, "the new leader is a follower that stalled, not in the ISR (unclean election)",
          m.stalled().contains(m.newLeader()), m.stalled().contains(k.newLeader()) && !k.isrBeforeCrash().contains(k.newLeader()));
    } else {
      check(rows, differences, "the new leader is a follower that stalled (clean election)",
          m.stalled().contains(m.newLeader()) && m.electionKind().equals("clean"), m.stalled().contains(k.newLeader()));
    }
    List<String> notes = new ArrayList<>();
    notes.add(String.format("%-62s offsetlab %d, kafka %d", "acknowledged records lost (exact; not compared)", m.ackedLost(), k.lost()));
    notes.add(String.format("%-62s offsetlab %d, kafka %d", "records acknowledged in all", m.acked(), k.acked()));
    notes.add(String.format("%-62s offsetlab %d delivered, kafka %d in the log (%d twice)", "records read (offsetlab's consumer reads all along)", m.delivered(), k.inLog(), k.duplicatesInLog()));
    notes.add(String.format("%-62s offsetlab %d, kafka %s", "writes refused (NOT_ENOUGH_REPLICAS) / failed sends", m.writesRefused(), k.failures()));
    notes.add(String.format("%-62s offsetlab %d (%s), kafka %d, ISR %s before the crash, %s then", "the new leader", m.newLeader(), m.electionKind(), k.newLeader(),
        k.isrBeforeCrash().isEmpty() ? "not read" : k.isrBeforeCrash(), k.isrAfter()));
    notes.add(String.format("%-62s kafka: paused %d ms (session %d ms), leader elected %d ms after the crash", "timing", k.pauseMs(), SESSION_TIMEOUT_MS, k.electionMs()));
    notes.add(String.format("%-62s %s", "eligible leader replicas (KIP-966) on kafka", k.elr()));

    ObjectNode entry = JSON.createObjectNode();
    entry.put("name", scenario);
    entry.put("kind", "scenario");
    entry.put("result", differences.isEmpty() ? "equal" : "different");
    entry.put("cases", rows.size());
    String story = String.format(
        "acks=%s, min.insync.replicas=%d, replication factor %d, %s election, 3-node cluster: %d acknowledged, %d lost on Kafka; offsetlab acked_lost %d (%d acknowledged)",
        m.acks(), m.minInsync(), m.replicationFactor(), m.electionKind(), k.acked(), k.lost(), m.ackedLost(), m.acked());
    entry.put("detail", String.format("%s, %.1f s: %s", story, secs,
        differences.isEmpty() ? rows.size() + " checks equal"
            : differences.size() + " of " + rows.size() + " checks differ; first: " + differences.get(0)));
    StringBuilder table = new StringBuilder();
    table.append(String.format("story: %d sent, followers %s paused (SIGSTOP)%s, %d sent, leader %d killed (SIGKILL), followers continued, %d sent%n",
        m.sendBefore(), m.stalled(), unclean(m) ? " until fenced and out of the ISR" : "", m.sendDuring(), m.leader(), m.sendAfter()));
    rows.forEach(r -> table.append(r).append('\n'));
    notes.forEach(n -> table.append(n).append('\n'));
    entry.put("table", table.toString());
    return entry;
  }

  /** The model's story ends in an unclean election: a replica outside the ISR leads. */
  private static boolean unclean(Model m) {
    return m.electionKind().equals("unclean");
  }

  private static void check(List<String> rows, List<String> differences, String what, Object ours, Object kafka) {
    boolean same = String.valueOf(ours).equals(String.valueOf(kafka));
    rows.add(String.format("%-62s offsetlab %s, kafka %s%s", what, ours, kafka, same ? "" : "  DIFFERENT"));
    if (!same) differences.add(what + ": offsetlab " + ours + ", kafka " + kafka);
  }

  private Outcome onCluster(String scenario, String where, Model m) throws Exception {
    ClusterNode leader = node(where, m.leader());
    List<ClusterNode> followers = new ArrayList<>();
    for (int id : m.stalled()) followers.add(node(where, id));
    String topic = TOPIC_PREFIX + scenario;

    boolean unclean = unclean(m);
    waitFor(where + ": all three brokers unfenced", SETTLE_TIMEOUT_MS, () -> admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() >= nodes.size());
    // The leader, the followers that stall, then other nodes up to the model's replication factor.
    List<Integer> replicas = new ArrayList<>();
    replicas.add(leader.id());
    followers.forEach(f -> replicas.add(f.id()));
    nodes.keySet().stream().filter(id -> !replicas.contains(id)).limit(m.replicationFactor() - replicas.size()).forEach(replicas::add);
    short elrBefore = featureLevel(ELR_FEATURE);
    String elr = "version " + elrBefore;
    if (unclean && elrBefore > 0) {
      // The model's unclean story runs with ELR off: so does Kafka's, for the same cluster settings.
      setFeatureLevel(ELR_FEATURE, (short) 0);
      elr = "version " + elrBefore + ", downgraded to " + featureLevel(ELR_FEATURE) + " for this story";
    }
    try {
      return story(where, m, leader, followers, topic, replicas, unclean, elr);
    } finally {
      if (featureLevel(ELR_FEATURE) != elrBefore) setFeatureLevel(ELR_FEATURE, elrBefore);
    }
  }

  private Outcome story(String where, Model m, ClusterNode leader, List<ClusterNode> followers, String topic,
      List<Integer> replicas, boolean unclean, String elr) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    NewTopic newTopic = new NewTopic(topic, Map.of(0, replicas))
        .configs(Map.of("min.insync.replicas", String.valueOf(m.minInsync()), "unclean.leader.election.enable", String.valueOf(unclean)));
    admin.createTopics(List.of(newTopic)).all().get(30, TimeUnit.SECONDS);
    waitFor(where + ": " + topic + " led by broker " + leader.id() + " with every replica in sync", SETTLE_TIMEOUT_MS, () -> {
      TopicPartitionInfo p = describe(topic);
      return p.leader() != null && p.leader().id() == leader.id() && p.isr().size() == replicas.size();
    });

    List<Future<RecordMetadata>> sends = new ArrayList<>();
    List<String> values = new ArrayList<>();
    KafkaProducer<String, String> producer = producer(m.acks());
    try {
      // Before the stall: acknowledged, and copied by every follower (the high watermark is past them).
      for (int i = 0; i < m.sendBefore(); i++) {
        String value = "r" + values.size();
        values.add(value);
        Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, value, value));
        sends.add(f);
        f.get(SEND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      }
      int before = m.sendBefore();
      waitFor(where + ": the high watermark at " + before + " (every follower copied the first records)", SETTLE_TIMEOUT_MS,
          () -> highWatermark(tp) >= before);

      // The followers stall: paused, still in the ISR (or, for the unclean story, until they are not).
      long pausedAt = System.nanoTime();
      for (ClusterNode f : followers) signal(where, "STOP", f.pid());
      // A fetch each follower sent before it stopped waits on the leader (replica.fetch.wait.max.ms,
      // 500 ms by default) and would carry the next records into its socket, to be appended when it
      // continues: let those fetches be answered empty first.
      Thread.sleep(STALL_SETTLE_MS);
      // The ISR the crash finds. Read only in the unclean story, which waits for the fence anyway: a
      // describe may go to a paused broker and wait out the request timeout, which the short
      // stall of the other stories has no room for (they keep the followers in the ISR by design).
      List<Integer> isrBeforeCrash = new ArrayList<>();
      if (unclean) {
        waitFor(where + ": the paused followers " + m.stalled() + " fenced and out of the ISR of " + tp, FENCE_TIMEOUT_MS, () -> {
          List<Integer> isr = describe(topic).isr().stream().map(Node::id).sorted().toList();
          isrBeforeCrash.clear();
          isrBeforeCrash.addAll(isr);
          return isr.contains(leader.id()) && m.stalled().stream().noneMatch(isr::contains);
        });
      }
      for (int i = 0; i < m.sendDuring(); i++) {
        String value = "r" + values.size();
        values.add(value);
        sends.add(producer.send(new ProducerRecord<>(topic, value, value)));
      }
      producerWait(sends.subList(before, sends.size()), PAUSE_WAIT_MS);
      int ackedDuring = 0;
      for (Future<RecordMetadata> f : sends.subList(before, sends.size())) if (acknowledged(f)) ackedDuring++;

      // The leader crashes; the followers go on.
      signal(where, "KILL", leader.pid());
      waitDead(where, leader.pid());
      long crashedAt = System.nanoTime();
      for (ClusterNode f : followers) signal(where, "CONT", f.pid());
      long pauseMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
      if (!unclean && pauseMs >= SESSION_TIMEOUT_MS) {
        throw new IOException(where + ": the followers were paused " + pauseMs + " ms, not shorter than the broker session (" + SESSION_TIMEOUT_MS + " ms): the story is not the model's");
      }
      int[] elected = {-1};
      waitFor(where + ": a new leader of " + tp + " after broker " + leader.id() + " crashed", ELECTION_TIMEOUT_MS, () -> {
        TopicPartitionInfo p = describe(topic);
        if (p.leader() != null && !p.leader().isEmpty() && p.leader().id() != leader.id()) {
          elected[0] = p.leader().id();
          return true;
        }
        return false;
      });
      long electionMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - crashedAt);
      List<Integer> isrAfter = describe(topic).isr().stream().map(Node::id).sorted().toList();

      // The sends still pending retry on the new leader or fail.
      producerWait(sends, DELIVERY_TIMEOUT_MS + 10_000L);
      for (int i = 0; i < m.sendAfter(); i++) {
        String value = "r" + values.size();
        values.add(value);
        Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, value, value));
        sends.add(f);
        try {
          f.get(SEND_TIMEOUT_MS + DELIVERY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
          // Counted below with the others.
        }
      }

      Set<String> ackedValues = new TreeSet<>();
      Map<String, Integer> failures = new TreeMap<>();
      for (int i = 0; i < sends.size(); i++) {
        Future<RecordMetadata> f = sends.get(i);
        if (!f.isDone()) throw new IOException(where + ": send " + values.get(i) + " still pending after the delivery timeout");
        if (acknowledged(f)) {
          ackedValues.add(values.get(i));
        } else {
          try {
            f.get();
          } catch (ExecutionException e) {
            failures.merge(e.getCause().getClass().getSimpleName(), 1, Integer::sum);
          }
        }
      }
      Map<String, Integer> read = readAll(where, tp, ackedValues);
      int lost = 0;
      for (String v : ackedValues) if (!read.containsKey(v)) lost++;
      int twice = (int) read.values().stream().filter(n -> n > 1).count();
      return new Outcome(ackedValues.size(), ackedDuring, lost, read.size(), twice, failures, elected[0], isrBeforeCrash, isrAfter, pauseMs, electionMs, elr);
    } finally {
      // Bounded: on a failure mid-story sends may still be pending.
      producer.close(Duration.ofSeconds(5));
    }
  }

  private ClusterNode node(String where, int id) throws IOException {
    ClusterNode node = nodes.get(id);
    if (node == null) throw new IOException(where + ": the model's broker " + id + " is not a node of the cluster " + nodes.keySet());
    return node;
  }

  private KafkaProducer<String, String> producer(String acks) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, acks);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    props.put(ProducerConfig.RETRIES_CONFIG, String.valueOf(Integer.MAX_VALUE));
    props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
    props.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "1000");
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(REQUEST_TIMEOUT_MS));
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(DELIVERY_TIMEOUT_MS));
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }

  /** Waits until every send in `sends` is done, or `timeoutMs` passed. */
  private static void producerWait(List<Future<RecordMetadata>> sends, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (System.nanoTime() < deadline && !sends.stream().allMatch(Future::isDone)) {
      Thread.sleep(20);
    }
  }

  private static boolean acknowledged(Future<RecordMetadata> f) {
    if (!f.isDone()) return false;
    try {
      f.get();
      return true;
    } catch (ExecutionException | InterruptedException e) {
      return false;
    }
  }

  /** The cluster's finalized level of a feature (0 when it is not finalized). */
  private short featureLevel(String feature) throws Exception {
    FinalizedVersionRange range = admin.describeFeatures().featureMetadata().get(10, TimeUnit.SECONDS).finalizedFeatures().get(feature);
    return range == null ? 0 : range.maxVersionLevel();
  }

  /** Sets a feature's level, up or down, and waits until the cluster reports it. */
  private void setFeatureLevel(String feature, short level) throws Exception {
    short now = featureLevel(feature);
    FeatureUpdate.UpgradeType type = level < now ? FeatureUpdate.UpgradeType.SAFE_DOWNGRADE : FeatureUpdate.UpgradeType.UPGRADE;
    admin.updateFeatures(Map.of(feature, new FeatureUpdate(level, type)), new UpdateFeaturesOptions()).all().get(10, TimeUnit.SECONDS);
    waitFor(feature + " at level " + level, SETTLE_TIMEOUT_MS, () -> featureLevel(feature) == level);
  }

  private TopicPartitionInfo describe(String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
    return d.partitions().get(0);
  }

  /** The partition's high watermark (what listOffsets LATEST answers a read_uncommitted reader). */
  private long highWatermark(TopicPartition tp) throws Exception {
    ListOffsetsResult.ListOffsetsResultInfo info = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(10, TimeUnit.SECONDS);
    return info.offset();
  }

  /**
   * Every value in the partition, with how often it is there: read from the beginning until each
   * acknowledged value was seen or nothing new came for {@link #QUIET_MS} at the end of the log.
   */
  private Map<String, Integer> readAll(String where, TopicPartition tp, Set<String> acked) throws IOException {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    Map<String, Integer> seen = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
      long lastNew = System.nanoTime();
      while (System.nanoTime() < deadline) {
        var records = consumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<String, String> r : records) seen.merge(r.value(), 1, Integer::sum);
        if (!records.isEmpty()) lastNew = System.nanoTime();
        if (seen.keySet().containsAll(acked)) return seen;
        if (System.nanoTime() - lastNew > TimeUnit.MILLISECONDS.toNanos(QUIET_MS)) return seen;
      }
    }
    throw new IOException(where + ": reading " + tp + " did not settle within " + READ_TIMEOUT_MS + " ms");
  }

  // ------------------------------------------------------------------ processes

  private void signal(String where, String signal, long pid) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).redirectErrorStream(true).start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(where + ": kill -" + signal + " " + pid + " failed: " + said);
    }
    if (signal.equals("STOP")) paused.add(pid);
    if (signal.equals("CONT")) paused.remove(pid);
  }

  /** Continues every pid this run paused (on every path, so the harness can stop them). */
  private synchronized void continueAll() {
    List<Long> pids;
    synchronized (paused) {
      pids = List.copyOf(paused);
    }
    for (long pid : pids) {
      try {
        signal("cleanup", "CONT", pid);
      } catch (Exception e) {
        System.err.println("Replication: could not continue pid " + pid + ": " + e.getMessage());
      }
    }
  }

  /** Waits until `pid` is gone or a zombie (its parent, xtask, reaps it later). */
  private static void waitDead(String where, long pid) throws IOException, InterruptedException {
    Path stat = Path.of("/proc", String.valueOf(pid), "stat");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        String text = Files.readString(stat);
        String state = text.substring(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
        if (state.equals("Z") || state.equals("X")) return;
      } catch (IOException e) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IOException(where + ": pid " + pid + " still runs 10 s after SIGKILL");
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  private static void waitFor(String what, long timeoutMs, Condition condition) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.holds()) return;
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        last = e;
      }
      Thread.sleep(100);
    }
    throw new IOException("timed out after " + timeoutMs + " ms waiting for " + what + (last == null ? "" : " (last: " + last + ")"));
  }
}
