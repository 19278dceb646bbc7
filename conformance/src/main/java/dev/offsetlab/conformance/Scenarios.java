package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Plays offsetlab's scenarios against a real Kafka broker and says, scenario by scenario,
 * whether Kafka did what the model did.
 *
 * <p>How: {@code offsetlab run --json --events} gives the run's config and every event in the
 * order the model emitted it. The driver replays that trace on Kafka: each produced record is
 * sent with its key through the default partitioner (a keyless one to the partition the model
 * chose: Kafka's keyless placement depends on batching in time); each consumer is a real
 * {@code KafkaConsumer} in its own JVM ({@link ConsumerProcess}); a crash kills that JVM; a stop
 * is {@code close()}; a rebalance is waited for until every member is in the generation the model
 * reached; a fetch asks Kafka for the records of one partition from the position Kafka holds; a
 * commit is {@code commitSync()} (of the positions, or of explicit offsets when the model commits
 * each record); a reset is the real {@code kafka-consumer-groups --reset-offsets --execute}.
 * Ticks are not milliseconds, so what is compared is what does not depend on time: where each
 * record landed, each generation's assignment, where each fetch started, what each commit wrote,
 * the counters an application computes from what Kafka handed it, and the real
 * {@code --describe} against the model's, with member ids and hosts normalised.
 *
 * <p>Usage: {@code Scenarios --bootstrap 127.0.0.1:PORT --offsetlab BIN [--seed S] [--subset]
 * [--scenario NAME]... [--files DIR] --out FILE.json}. Exit 0 when it ran (a difference is a
 * result), 1 when the harness failed, 2 on bad arguments.
 */
public final class Scenarios implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "orders";
  /** A rebalance Kafka has not finished in this time is reported, not waited for longer. */
  private static final long SYNC_TIMEOUT_MS = 30_000;
  private static final long FETCH_TIMEOUT_MS = 10_000;
  /** The session timeout of every consumer: a crash is noticed after this. */
  private static final int SESSION_TIMEOUT_MS = 1_000;
  /** How long a member that revoked partitions polls to rejoin. */
  private static final long REJOIN_MS = 200;
  /** Heartbeats (every 100 ms) tell the members of a rebalance within this. */
  private static final long HEARD_MS = 400;
  /** How long new members get to send their JoinGroups before the existing ones rejoin. */
  private static final long NEWCOMERS_PAUSE_MS = 1_500;
  /** Differences listed per scenario; the rest are counted. */
  private static final int DIFFERENCES_SHOWN = 12;

  /** Every scenario compared, in report order; the CI subset is marked. */
  private static final List<Case> CASES =
      List.of(
          Case.of("default", true),
          Case.of("keys-keep-order", false),
          Case.of("no-keys-reorder", false),
          Case.of("two-groups", false),
          Case.of("crash-commit-after", true),
          Case.of("crash-commit-before", true),
          Case.of("idempotent-absorbs-duplicates", false),
          Case.of("spare-consumers", true),
          Case.of("rolling-update", false),
          Case.of("scale-out-eager", false),
          Case.of("scale-out-cooperative", false),
          Case.of("commit-each-record", true),
          Case.of("commit-each-batch", false),
          Case.of("commit-on-timer", false),
          Case.of("busy-group", false),
          Case.of("payout-ledger", false),
          Case.of("payout-double-payout", false),
          Case.of("hot-account", false),
          Case.of("partition-growth", true),
          Case.file("restart-from", "restart-from.json", true),
          Case.refusal("reset-refused-while-active", "reset-while-active.json", true),
          Case.outOfScope(
              "key-erasure-bridge", "booblik's bridge to its own topic: not a Kafka mechanism"),
          Case.outOfScope(
              "partition-for-null",
              "booblik's partitionFor(null) peek advancing its round-robin counter: not in Kafka's client"),
          Case.outOfScope(
              "consumer-checkpoint", "booblik's consumer-side offset store: Kafka keeps positions in the group"),
          Case.outOfScope("torn-checkpoint", "booblik's in-place checkpoint file torn by a crash"),
          Case.outOfScope("atomic-checkpoint", "booblik's atomic checkpoint file (temp, fsync, rename)"));

  record Case(String name, String file, boolean subset, String outOfScope, boolean refusal) {
    static Case of(String name, boolean subset) {
      return new Case(name, null, subset, null, false);
    }

    static Case file(String name, String file, boolean subset) {
      return new Case(name, file, subset, null, false);
    }

    static Case refusal(String name, String file, boolean subset) {
      return new Case(name, file, subset, null, true);
    }

    static Case outOfScope(String name, String why) {
      return new Case(name, null, true, why, false);
    }
  }

  private final String bootstrap;
  private final String offsetlab;
  private final Long seed;
  private final Path files;
  private final Path log;
  private final Admin admin;

  private Scenarios(String bootstrap, String offsetlab, Long seed, Path files, Path log) {
    this.bootstrap = bootstrap;
    this.offsetlab = offsetlab;
    this.seed = seed;
    this.files = files;
    this.log = log;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(props);
  }

  public static void main(String[] args) {
    Map<String, List<String>> opts = DriverArgs.forDriver("Scenarios",
        "--bootstrap HOST:PORT --offsetlab BIN [--seed S] [--subset] [--scenario NAME]... [--files DIR] --out FILE.json",
        args);
    Long seed = opts.containsKey("seed") ? Long.valueOf(last(opts, "seed")) : null;
    Path out = Path.of(last(opts, "out"));
    Path files = Path.of(opts.containsKey("files") ? last(opts, "files") : "conformance/scenarios");
    Path log = out.resolveSibling("consumers.log");
    boolean subset = opts.containsKey("subset");
    List<String> only = opts.getOrDefault("scenario", List.of());
    ArrayNode entries = JSON.createArrayNode();
    int code = 0;
    try (Scenarios driver = new Scenarios(last(opts, "bootstrap"), last(opts, "offsetlab"), seed, files, log)) {
      Files.createDirectories(log.toAbsolutePath().getParent());
      Files.deleteIfExists(log);
      for (Case c : CASES) {
        if ((subset && !c.subset) || (!only.isEmpty() && !only.contains(c.name))) {
          continue;
        }
        long start = System.nanoTime();
        ObjectNode entry = driver.compare(c);
        // A member Kafka dropped from the group mid-replay (it is at generation -1, its member id
        // gone) is the harness losing a race with the broker's timers, not the model: the
        // scenario is played again, at most RETRIES times, and the report says so.
        for (int attempt = 1; attempt <= RETRIES && dropped(entry); attempt++) {
          String first = entry.path("detail").asText();
          entry = driver.compare(c);
          entry.put(
              "detail",
              entry.path("detail").asText() + " (attempt " + (attempt + 1) + "; attempt " + attempt
                  + " lost a member to the broker's timers: " + (first.length() > 160 ? first.substring(0, 160) + "…" : first) + ")");
        }
        System.out.printf(
            "%-30s %-12s %5.1f s  %s%n",
            c.name, entry.path("result").asText(), (System.nanoTime() - start) / 1e9, entry.path("detail").asText());
        entries.add(entry);
      }
    } catch (Exception e) {
      System.err.println("Scenarios: the harness failed (seed " + seed + "): " + e);
      e.printStackTrace();
      code = 1;
    }
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(entries));
    } catch (IOException e) {
      System.err.println("Scenarios: cannot write " + out + ": " + e.getMessage());
      code = 1;
    }
    System.exit(code);
  }

  /** Replays of a scenario in which Kafka dropped a member, after the first. */
  private static final int RETRIES = 2;

  private static boolean dropped(ObjectNode entry) {
    return entry.path("result").asText().equals("different") && entry.path("table").asText().contains("(generation -1 ");
  }

  private static String last(Map<String, List<String>> opts, String name) {
    List<String> values = opts.get(name);
    return values.get(values.size() - 1);
  }

  @Override
  public void close() {
    admin.close();
  }

  // ------------------------------------------------------------------ one scenario

  private ObjectNode compare(Case c) throws Exception {
    ObjectNode entry = JSON.createObjectNode();
    entry.put("name", c.name);
    entry.put("kind", "scenario");
    if (c.outOfScope != null) {
      entry.put("result", "out-of-scope");
      entry.put("cases", 0);
      entry.put("detail", c.outOfScope);
      return entry;
    }
    String scenario = c.file == null ? c.name : files.resolve(c.file).toString();
    Replay replay;
    String refusal = null;
    if (c.refusal) {
      // The model refuses the reset: the run fails, naming why. Replay what came before it.
      JsonNode plain = offsetlab(List.of("run", "--scenario", scenario, "--json"), true);
      refusal = plain.path("error").asText();
      int at = refusal.indexOf("Error: ");
      if (at < 0) {
        throw new IOException(c.name + ": the model did not refuse the reset: " + refusal);
      }
      refusal = refusal.substring(at).strip();
      Matcher tick = Pattern.compile("\\(tick (\\d+)\\)").matcher(plain.path("error").asText());
      if (!tick.find()) {
        throw new IOException(c.name + ": no tick in the model's refusal: " + plain.path("error").asText());
      }
      replay = new Replay(offsetlab(List.of("run", "--scenario", scenario, "--json", "--events", "--ticks", tick.group(1)), false));
    } else {
      replay = new Replay(offsetlab(List.of("run", "--scenario", scenario, "--json", "--events"), false));
    }
    try {
      replay.play();
      if (refusal != null) {
        String kafka = cli(List.of("--reset-offsets", "--group", replay.groupName(0), "--topic", TOPIC, "--to-earliest", "--execute"));
        String line = kafka.lines().filter(l -> l.startsWith("Error: ")).findFirst().orElse(kafka.strip());
        replay.check("the refusal of a reset while the group is active", refusal, line);
      }
      replay.finish();
    } finally {
      replay.cleanUp();
    }
    entry.put("result", replay.differences.isEmpty() ? "equal" : "different");
    entry.put("cases", replay.checks);
    entry.put(
        "detail",
        replay.differences.isEmpty()
            ? replay.checks + " checks equal (" + replay.summary() + ")" + (replay.tie == null ? "" : "; " + replay.tie)
                + (replay.rejoinedEarlier.isEmpty() ? "" : "; not compared, timing: " + replay.rejoinedEarlier.size()
                    + " commit(s) Kafka refused because its member had rejoined a rebalance in progress before the model's, which rejoins at its next poll")
                + (replay.syncedEarlier.isEmpty() ? "" : "; not compared, timing: " + replay.syncedEarlier.size()
                    + " commit(s) the model refused before its member's poll read the SyncGroup answer, which the driver's sync had read on Kafka")
            : replay.differences.size() + " of " + replay.checks + " checks differ; first: " + replay.differences.get(0));
    entry.put("table", replay.table());
    return entry;
  }

  private JsonNode offsetlab(List<String> args, boolean mayFail) throws Exception {
    return offsetlab(offsetlab, args, seed, mayFail);
  }

  /**
   * `BIN ARGS [--seed S]` as JSON; with `mayFail`, a failure is `{"error": its message}`. Shared
   * with {@link ShareGroups}.
   */
  static JsonNode offsetlab(String bin, List<String> args, Long seed, boolean mayFail) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(bin);
    command.addAll(args);
    if (seed != null) {
      command.add("--seed");
      command.add(seed.toString());
    }
    Process p = new ProcessBuilder(command).redirectErrorStream(false).start();
    byte[] stdout = p.getInputStream().readAllBytes();
    byte[] stderr = p.getErrorStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " did not finish in 60 s");
    }
    if (p.exitValue() != 0) {
      String message = new String(stderr, StandardCharsets.UTF_8).strip();
      if (mayFail) {
        return JSON.createObjectNode().put("error", message);
      }
      throw new IOException(String.join(" ", command) + " failed: " + message);
    }
    if (mayFail) {
      return JSON.createObjectNode().put("error", "");
    }
    return JSON.readTree(stdout);
  }

  /** The real `kafka-consumer-groups` (ConsumerGroupCommand), in its own JVM: its stdout and stderr. */
  private String cli(List<String> args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand");
    command.add("--bootstrap-server");
    command.add(bootstrap);
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("kafka-consumer-groups " + String.join(" ", args) + " did not finish in 60 s");
    }
    // Kafka's tools log through SLF4J; without a binding it says so on stderr first.
    return new String(out, StandardCharsets.UTF_8)
        .lines()
        .filter(l -> !l.startsWith("SLF4J"))
        .reduce("", (a, b) -> a + b + "\n");
  }

  // ------------------------------------------------------------------ the replay

  /** One scenario's trace played on Kafka, and what was compared. */
  private final class Replay {
    final JsonNode run;
    final JsonNode config;
    final List<String> differences = new ArrayList<>();
    int checks;
    final Map<String, Integer> counts = new TreeMap<>();
    /** Live consumer processes by client id (`c1`). */
    final Map<String, Child> live = new LinkedHashMap<>();
    /** Crashed in the model, its session not yet expired: still heartbeating, never polled. */
    final Map<String, Child> dying = new LinkedHashMap<>();
    /** Consumers that have joined a generation at least once (a sync has returned). */
    final Set<Child> joined = new java.util.HashSet<>();
    final List<Child> warm = new ArrayList<>();
    /** The records each consumer was handed by Kafka: "P:offset" → record. */
    final Map<String, Map<String, JsonNode>> handed = new HashMap<>();
    /** Generations side by side: "demo gen 1" → model / Kafka text. */
    final Map<String, String[]> generations = new LinkedHashMap<>();
    /** What the application saw, per group: record ids handled, and the last handled per key. */
    final Map<Integer, Sink> sinks = new HashMap<>();
    KafkaProducer<String, String> producer;
    /** The model's current settings per group, as setting-changed events move them. */
    final Map<Integer, ObjectNode> settings = new HashMap<>();

    Replay(JsonNode run) {
      this.run = run;
      this.config = run.path("config");
      for (int g = 0; g < config.path("groups").size(); g++) {
        settings.put(g, (ObjectNode) config.path("groups").get(g).deepCopy());
      }
    }

    String groupName(int g) {
      return config.path("groups").get(g).path("name").asText();
    }

    /** The group (index) of consumer `cN`: consumers are numbered across groups in config order. */
    int groupOf(String consumer) {
      int n = Integer.parseInt(consumer.substring(1));
      int g = 0;
      for (JsonNode group : config.path("groups")) {
        n -= group.path("consumers").asInt();
        if (n <= 0) {
          return g;
        }
        g++;
      }
      // Added consumers are numbered after the configured ones, in the first group unless
      // an add-consumer says otherwise; the model's started event is what counts.
      return addedTo.getOrDefault(consumer, 0);
    }

    final Map<String, Integer> addedTo = new HashMap<>();

    void check(String what, Object model, Object kafka) {
      checks++;
      counts.merge(what.replaceAll("[0-9]+", "N"), 1, Integer::sum);
      if (!String.valueOf(model).equals(String.valueOf(kafka))) {
        differences.add(what + ": model " + model + ", Kafka " + kafka);
      }
    }

    void play() throws Exception {
      resetBroker();
      admin
          .createTopics(List.of(new NewTopic(TOPIC, config.path("partitions").asInt(), (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
      props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "250");
      props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producer = new KafkaProducer<>(props);
      int starts = 0;
      for (JsonNode e : run.path("events")) {
        if (e.path("event").asText().equals("started")) {
          starts++;
        }
      }
      warm.addAll(Child.spawn(starts, bootstrap, TOPIC, log));
      for (JsonNode e : run.path("events")) {
        if (tie != null) {
          break;
        }
        event(e);
      }
      producer.flush();
    }

    void event(JsonNode e) throws Exception {
      String consumer = e.path("consumer").asText();
      switch (e.path("event").asText()) {
        case "produced" -> produced(e);
        case "started" -> started(consumer);
        case "rebalance-completed" -> rebalanced(e);
        case "fetched" -> fetched(consumer, e);
        case "handled" -> handled(consumer, e);
        case "committed" -> committed(consumer, e);
        case "commit-refused" -> refused(consumer, e);
        case "crashed", "killed-before-commit" -> {
          // The process is dead to the application from here: it gets no more commands. Its JVM
          // dies when the model's coordinator notices (session-expired): Kafka's session timer,
          // which runs in milliseconds, then starts at the point the model's, in ticks, ran out.
          Child child = live.remove(consumer);
          if (child != null) {
            dying.put(consumer, child);
          }
        }
        case "session-expired" -> {
          Child child = dying.remove(consumer);
          if (child != null) {
            child.kill();
          }
        }
        case "left" -> {
          Child child = live.remove(consumer);
          if (child != null) {
            JsonNode reply = child.call(JSON.createObjectNode().put("op", "close"));
            check(consumer + " leaves the group", "closed", reply.path("closed").asBoolean() ? "closed" : reply);
            child.kill();
          }
        }
        case "partitions-added" -> {
          int to = e.path("to").asInt();
          addedPartitions = to - config.path("partitions").asInt();
          admin.createPartitions(Map.of(TOPIC, NewPartitions.increaseTo(to))).all().get(30, TimeUnit.SECONDS);
          // The model's producer sees the new partitions at once; a real one at its next metadata
          // refresh (metadata.max.age.ms): wait for it, so keys are placed on the grown topic.
          long deadline = System.currentTimeMillis() + 30_000;
          while (producer.partitionsFor(TOPIC).size() < to) {
            if (System.currentTimeMillis() > deadline) {
              throw new IOException("the producer did not see " + to + " partitions in 30 s");
            }
            Thread.sleep(100);
          }
        }
        case "offsets-reset" -> reset(e);
        case "setting-changed" -> setting(e);
        case "rebalance-started" -> {
          int g = e.path("group").asInt();
          rebalancing.put(g, true);
          reasons.put(g, e.path("reason").asText());
          if (e.path("reason").asText().equals("partitions-revoked")) {
            // Cooperative: the members that revoked partitions rejoin now, as the model's do.
            for (String member : revoking.getOrDefault(g, Set.of())) {
              Child child = live.get(member);
              if (child != null) {
                child.call(JSON.createObjectNode().put("op", "join").put("join_ms", REJOIN_MS));
              }
            }
          }
          revoking.remove(g);
        }
        default -> {
          // rebalance-started, session-expired, stopping, paused, resumed, … : Kafka does these itself,
          // or they are the application's; their effects are what the events above compare.
        }
      }
    }

    void setting(JsonNode e) {
      if (e.path("group").isNull() || e.path("group").isMissingNode()) {
        return;
      }
      ObjectNode group = settings.get(e.path("group").asInt());
      String value = e.path("value").asText();
      switch (e.path("setting").asText()) {
        case "records_per_poll", "records-per-poll" -> group.put("records_per_poll", Integer.parseInt(value));
        case "assignor" -> group.put("assignor", value);
        case "commit" -> group.put("commit_label", value);
        default -> {}
      }
    }

    void produced(JsonNode e) throws Exception {
      int partition = e.path("partition").asInt();
      boolean keyed = e.path("keyed").asBoolean();
      String key = "user-" + e.path("subject").asInt();
      String value = Long.toString(e.path("record_id").asLong());
      // A keyless record goes where the model put it: Kafka's own keyless placement depends on
      // how batches fill in time. A keyed one goes through the default partitioner.
      ProducerRecord<String, String> record =
          keyed ? new ProducerRecord<>(TOPIC, key, value) : new ProducerRecord<>(TOPIC, partition, key, value);
      RecordMetadata meta = producer.send(record).get(30, TimeUnit.SECONDS);
      String what = "record " + value + (keyed ? " (key " + key + ")" : " (no key)");
      check(what + " lands at", "P" + partition + "@" + e.path("offset").asLong(), "P" + meta.partition() + "@" + meta.offset());
    }

    void started(String consumer) throws Exception {
      if (warm.isEmpty()) {
        warm.addAll(Child.spawn(1, bootstrap, TOPIC, log));
      }
      Child child = warm.remove(0);
      child.consumer = consumer;
      int g = groupOf(consumer);
      ObjectNode group = settings.get(g);
      ObjectNode start = JSON.createObjectNode().put("op", "start");
      start.put("group", groupName(g));
      start.put("client_id", consumer);
      start.put("assignor", assignorClass(group.path("assignor").asText()));
      start.put("max_poll_records", Math.max(1, group.path("records_per_poll").asInt(1)));
      start.put("session_timeout_ms", SESSION_TIMEOUT_MS);
      JsonNode reply = child.call(start);
      if (reply.has("error")) {
        throw new IOException(consumer + " could not start: " + reply.path("error").asText());
      }
      // Into a group that has a generation, the model's consumer joins as it starts, and the
      // members rejoin at their next poll: the same on Kafka, once their heartbeats have heard
      // of the rebalance. A group's first members join together when it is first synced (the
      // broker's initial rebalance delay gathers them), as the model's do at tick 0.
      boolean running = live.entrySet().stream().anyMatch(m -> groupOf(m.getKey()) == g && joined.contains(m.getValue()));
      live.put(consumer, child);
      if (running) {
        JsonNode joinedReply = child.call(JSON.createObjectNode().put("op", "join"));
        if (joinedReply.has("error")) {
          throw new IOException(consumer + " could not join: " + joinedReply.path("error").asText());
        }
        joined.add(child);
        Thread.sleep(HEARD_MS);
      }
    }

    /**
     * Set when Kafka broke a tie between equally good sticky assignments differently: which way
     * depends on the members' ids, random in Kafka and seeded in the model, so the model's trace
     * cannot be replayed past it. Says where, and what was checked instead.
     */
    String tie;
    /** Per group, why its rebalance in progress began (cooperative's second round: partitions-revoked). */
    final Map<Integer, String> reasons = new HashMap<>();
    /** Per group, each member's (client id's) last generation and what it owned in it. */
    final Map<Integer, Map<String, JsonNode[]>> lastOwned = new HashMap<>();

    /** Per group, the members the last generation took partitions from without a new owner yet. */
    final Map<Integer, Set<String>> revoking = new HashMap<>();

    void rebalanced(JsonNode e) throws Exception {
      int g = e.path("group").asInt();
      rebalancing.put(g, false);
      Set<String> revokers = new java.util.TreeSet<>();
      for (JsonNode move : e.path("moved")) {
        if (move.path("to").isNull() && !move.path("from").isNull()) {
          revokers.add(move.path("from").asText());
        }
      }
      // Only a cooperative member revokes after its generation and rejoins (the eager ones gave
      // everything up before it).
      if (settings.get(g).path("assignor").asText().equals("cooperative-sticky")) {
        revoking.put(g, revokers);
      }
      int generation = e.path("generation").asInt();
      String group = groupName(g);
      Map<String, String> model = new TreeMap<>();
      for (JsonNode pair : e.path("assignment")) {
        model.put(pair.get(0).asText(), pair.get(1).toString());
      }
      // Every live member of the group polls until it is in this generation.
      List<Map.Entry<String, Child>> members = new ArrayList<>();
      for (Map.Entry<String, Child> m : live.entrySet()) {
        if (groupOf(m.getKey()) == g) {
          members.add(m);
        }
      }
      ObjectNode sync = JSON.createObjectNode().put("op", "sync").put("generation", generation).put("timeout_ms", SYNC_TIMEOUT_MS);
      // New members first: a new member joins in two round trips (the coordinator first hands it
      // a member id), and the coordinator completes the join as soon as every existing member has
      // rejoined, so members polled together would leave late newcomers to the next generation.
      // In the model they all join the one rebalance; the pause lets their JoinGroups be pending.
      boolean fresh = false;
      for (Map.Entry<String, Child> m : members) {
        if (!joined.contains(m.getValue())) {
          m.getValue().send(sync);
          fresh = true;
        }
      }
      if (fresh && members.stream().anyMatch(m -> joined.contains(m.getValue()))) {
        Thread.sleep(NEWCOMERS_PAUSE_MS);
      }
      for (Map.Entry<String, Child> m : members) {
        if (joined.contains(m.getValue())) {
          m.getValue().send(sync);
        }
      }
      members.forEach(m -> joined.add(m.getValue()));
      Map<String, String> kafka = new TreeMap<>();
      Map<String, JsonNode> replies = new TreeMap<>();
      for (Map.Entry<String, Child> m : members) {
        JsonNode reply = m.getValue().read();
        replies.put(m.getKey(), reply);
        JsonNode owned = reply.path("generations").path(Integer.toString(generation));
        if (!owned.isMissingNode()) {
          kafka.put(m.getKey(), owned.toString());
        } else {
          // Not in this generation: say where it is, for the report.
          kafka.put(m.getKey(), "(generation " + reply.path("generation").asInt() + " " + reply.path("generations").toString().replace("\"", "") + ")");
        }
      }
      String modelText = model.toString();
      String kafkaText = kafka.toString();
      generations.put(group + " generation " + generation, new String[] {modelText, kafkaText});
      String assignor = settings.get(g).path("assignor").asText();
      Map<String, JsonNode[]> previous = lastOwned.computeIfAbsent(g, k -> new HashMap<>());
      if (!modelText.equals(kafkaText) && assignor.contains("sticky") && kafka.size() == model.size()) {
        String ours = stickyWithKafkasIds(assignor, generation, replies, previous, reasons.getOrDefault(g, ""));
        if (ours.equals(kafkaText)) {
          checks++;
          counts.merge(group + " generation N assignment", 1, Integer::sum);
          tie =
              group + " generation " + generation + ": Kafka broke a tie between equally sticky assignments by its"
                  + " random member ids; offsetlab's " + assignor + " assignor, given Kafka's member ids"
                  + (leaderOrderKnown ? " in its leader's order" : "") + " and owned"
                  + " partitions, makes the same choice " + kafkaText + "; the model's trace, which follows its own"
                  + " seeded ids, is compared up to here";
          return;
        }
        kafkaText = kafkaText + " (offsetlab's assignor with Kafka's member ids: " + ours + ")";
      }
      check(group + " generation " + generation + " assignment", modelText, kafkaText);
      for (Map.Entry<String, JsonNode> r : replies.entrySet()) {
        JsonNode owned = r.getValue().path("generations").path(Integer.toString(generation));
        if (!owned.isMissingNode()) {
          previous.put(r.getKey(), new JsonNode[] {JSON.getNodeFactory().numberNode(generation), owned});
        }
      }
    }

    /** `offsetlab assign --batch` on what Kafka's leader had: its member ids and what each owned. */
    String stickyWithKafkasIds(
        String assignor, int generation, Map<String, JsonNode> replies, Map<String, JsonNode[]> previous, String reason)
        throws Exception {
      ObjectNode c = JSON.createObjectNode();
      c.put("id", "generation-" + generation);
      c.put("strategy", assignor);
      c.putObject("topics").put(TOPIC, config.path("partitions").asInt() + addedPartitions);
      ArrayNode list = c.putArray("members");
      Map<String, String> clientOf = new HashMap<>();
      // In the order the leader's assignor had them: Kafka's sticky assignor breaks ties by a
      // HashMap's order, which for member ids in one bucket is the order they were put in.
      List<String> order = new ArrayList<>();
      for (JsonNode r : replies.values()) {
        r.path("member_orders").path(Integer.toString(generation)).forEach(id -> order.add(id.asText()));
      }
      leaderOrderKnown = !order.isEmpty();
      List<Map.Entry<String, JsonNode>> members = new ArrayList<>(replies.entrySet());
      members.sort(
          java.util.Comparator.comparingInt(
              r -> {
                int at = order.indexOf(r.getValue().path("member_id").asText());
                return at < 0 ? Integer.MAX_VALUE : at;
              }));
      for (Map.Entry<String, JsonNode> r : members) {
        String memberId = r.getValue().path("member_id").asText();
        clientOf.put(memberId, r.getKey());
        ObjectNode m = list.addObject();
        m.put("id", memberId);
        m.putArray("topics").add(TOPIC);
        JsonNode[] owned = previous.get(r.getKey());
        if (owned != null) {
          m.putObject("owned").set(TOPIC, owned[1]);
          m.put("generation", owned[0].asInt());
        }
      }
      // Cooperative-sticky's first round withholds what changes owner; the round a revocation
      // starts hands it over.
      c.put("first_round", assignor.equals("cooperative-sticky") && !reason.equals("partitions-revoked"));
      Process p = new ProcessBuilder(offsetlab, "assign", "--batch", "-").start();
      p.getOutputStream().write((JSON.writeValueAsString(c) + "\n").getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        return "offsetlab assign failed: " + err.strip() + new String(out, StandardCharsets.UTF_8).strip();
      }
      JsonNode answer = JSON.readTree(out).path("assignment");
      Map<String, String> ours = new TreeMap<>();
      answer.fields().forEachRemaining(f -> ours.put(clientOf.get(f.getKey()), f.getValue().path(TOPIC).toString()));
      return ours.toString();
    }

    int addedPartitions;

    /** The last {@link #stickyWithKafkasIds} had the members in the order Kafka's leader saw them. */
    boolean leaderOrderKnown;

    void fetched(String consumer, JsonNode e) throws Exception {
      Child child = live.get(consumer);
      int partition = e.path("partition").asInt();
      long from = e.path("from").asLong();
      long to = e.path("to").asLong();
      String what = consumer + " fetches P" + partition;
      if (child == null) {
        check(what, "from " + from, "no such consumer process");
        return;
      }
      JsonNode reply =
          child.call(
              JSON.createObjectNode()
                  .put("op", "fetch")
                  .put("partition", partition)
                  .put("count", to - from)
                  .put("timeout_ms", FETCH_TIMEOUT_MS));
      JsonNode records = reply.path("records");
      Map<String, JsonNode> mine = handed.computeIfAbsent(consumer, k -> new HashMap<>());
      for (JsonNode r : records) {
        mine.put(partition + ":" + r.path("offset").asLong(), r);
      }
      String got =
          records.isEmpty()
              ? (reply.has("error") ? reply.path("error").asText() : "nothing")
              : records.get(0).path("offset").asLong() + ".." + (records.get(records.size() - 1).path("offset").asLong() + 1);
      check(what, from + ".." + to, got);
    }

    void handled(String consumer, JsonNode e) {
      int partition = e.path("partition").asInt();
      long offset = e.path("offset").asLong();
      JsonNode record = handed.getOrDefault(consumer, Map.of()).get(partition + ":" + offset);
      int g = groupOf(consumer);
      Sink sink = sinks.computeIfAbsent(g, k -> new Sink());
      if (record == null) {
        check(consumer + " handles P" + partition + "@" + offset, "record " + e.path("record_id").asLong(), "not handed to " + consumer);
        return;
      }
      long id = Long.parseLong(record.path("value").asText());
      sink.handle(record.path("key").asText(), id);
    }

    void committed(String consumer, JsonNode e) throws Exception {
      Child child = live.get(consumer);
      String what = consumer + " commits";
      if (child == null) {
        check(what, e.path("offsets").toString(), "no such consumer process");
        return;
      }
      JsonNode reply = child.call(commitCommand(consumer, e));
      int g = groupOf(consumer);
      if (reply.path("error").asText("").startsWith("RebalanceInProgressException")
          && (rebalancing.getOrDefault(g, false) || !revoking.getOrDefault(g, Set.of()).isEmpty())) {
        // The model's group is rebalancing too, and its member rejoins at its next poll; Kafka's
        // had already rejoined (its poll, or its SyncGroup, fell after the rebalance began in
        // real time). Whether a commit falls before or after a member's rejoin is timing: said
        // in the report, not compared. The refusal rule itself is compared on every commit the
        // model refuses. The same while a member that revoked partitions in the last generation
        // has not yet rejoined in the model: it does at its second poll after the generation (one
        // reads the JoinGroup's answer, one the SyncGroup's), Kafka's at the driver's sync.
        rejoinedEarlier.add(what + " " + e.path("offsets"));
        return;
      }
      check(what, e.path("offsets").toString(), reply.has("error") ? reply.path("error").asText() : reply.path("offsets").toString());
    }

    /**
     * The commit the consumer's application makes for the model's commit event `e`:
     * {@code commitSync()} of its positions, or, committing each record, the offset after the
     * record it handled.
     */
    ObjectNode commitCommand(String consumer, JsonNode e) {
      ObjectNode commit = JSON.createObjectNode().put("op", "commit");
      ObjectNode group = settings.get(groupOf(consumer));
      String mode = group.path("commit_label").asText(group.path("commit").path("mode").asText());
      if (mode.equals("each-record")) {
        commit.set("offsets", e.path("offsets"));
      }
      return commit;
    }

    /** Commits Kafka refused because its member rejoined a rebalance before the model's did. */
    final List<String> rejoinedEarlier = new ArrayList<>();
    /** Commits the model refused before its member read the SyncGroup's answer, Kafka's had. */
    final List<String> syncedEarlier = new ArrayList<>();
    /** Per group: a rebalance has started in the model and not yet completed. */
    final Map<Integer, Boolean> rebalancing = new HashMap<>();

    /** The model refused the commit (the member is rejoining): Kafka's client must refuse it too. */
    void refused(String consumer, JsonNode e) throws Exception {
      Child child = live.get(consumer);
      String what = consumer + " commits while rejoining";
      if (child == null) {
        check(what, "refused", "no such consumer process");
        return;
      }
      JsonNode reply = child.call(commitCommand(consumer, e));
      String error = reply.path("error").asText("");
      if (error.isEmpty() && !rebalancing.getOrDefault(groupOf(consumer), false)) {
        // The model's generation is complete and its member refused because it has not yet read
        // the SyncGroup's answer (it does at its second poll after the generation, as Kafka's
        // client does, a step a poll); Kafka's member read it in the driver's sync, which polls
        // every member into the generation at once. Timing of the replay: said, not compared.
        syncedEarlier.add(what + " " + e.path("offsets"));
        return;
      }
      check(what, "refused (RebalanceInProgressException)", error.startsWith("RebalanceInProgressException") ? "refused (RebalanceInProgressException)" : error.isEmpty() ? "committed " + reply.path("offsets") : error);
    }

    void reset(JsonNode e) throws Exception {
      int g = e.path("group").asInt();
      JsonNode spec = e.path("reset");
      List<String> args = new ArrayList<>(List.of("--reset-offsets", "--group", groupName(g)));
      String topic = TOPIC;
      // The model writes a reset as {"to": "earliest" | "latest" | "offset" | "shift-by", …}.
      String kind = spec.path("to").asText();
      JsonNode body = spec;
      switch (kind) {
        case "earliest" -> args.add("--to-earliest");
        case "latest" -> args.add("--to-latest");
        case "offset" -> {
          if (body.has("partition")) {
            topic = TOPIC + ":" + body.path("partition").asInt();
          }
          args.add("--to-offset");
          args.add(Long.toString(body.path("offset").asLong()));
        }
        case "shift-by" -> {
          args.add("--shift-by");
          args.add(Long.toString(body.path("by").asLong()));
        }
        default -> throw new IOException("unknown reset " + spec);
      }
      args.add("--topic");
      args.add(topic);
      args.add("--execute");
      // The group must be empty in Kafka as in the model: members that left are gone at once.
      String out = cli(args);
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(groupName(g)).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      TreeMap<Integer, Long> kafka = new TreeMap<>();
      offsets.forEach((tp, o) -> kafka.put(tp.partition(), o.offset()));
      TreeMap<Integer, Long> model = new TreeMap<>();
      for (JsonNode pair : e.path("offsets")) {
        model.put(pair.get(0).asInt(), pair.get(1).asLong());
      }
      check(groupName(g) + " reset " + kind, model, kafka.isEmpty() ? out.strip() : kafka);
    }

    /** The end: counters and --describe, the model's against Kafka's. */
    void finish() throws Exception {
      if (tie != null) {
        // The counters and the table at the end follow the model's tie, not Kafka's.
        return;
      }
      JsonNode groups = run.path("groups");
      for (int g = 0; g < groups.size(); g++) {
        JsonNode metrics = groups.get(g).path("metrics");
        Sink sink = sinks.getOrDefault(g, new Sink());
        String name = groupName(g);
        check(name + " delivered", metrics.path("delivered").asLong(), sink.delivered);
        check(name + " duplicates", metrics.path("duplicates").asLong(), sink.duplicates);
        check(name + " out of key order", metrics.path("out_of_key_order").asLong(), sink.outOfOrder);
        check(name + " never processed", metrics.path("never_processed").asLong(), neverProcessed(name, sink));
        String model = normalise(groups.get(g).path("describe").asText());
        String kafka = normalise(cli(List.of("--describe", "--group", name)));
        describes.put(name, new String[] {model, kafka});
        // Kafka lists the rows member by member, in its coordinator's order of (random) member
        // ids; the model lists them by partition. Rows are compared byte for byte, in order of
        // partition.
        check(name + " --describe", byPartition(model), byPartition(kafka));
      }
    }

    final Map<String, String[]> describes = new LinkedHashMap<>();

    /** Records below the group's committed offset on each partition that it never handled. */
    long neverProcessed(String group, Sink sink) throws Exception {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      long never = 0;
      for (JsonNode e : run.path("events")) {
        if (e.path("event").asText().equals("produced")) {
          OffsetAndMetadata c = committed.get(new TopicPartition(TOPIC, e.path("partition").asInt()));
          if (c != null && e.path("offset").asLong() < c.offset() && !sink.seen.contains(e.path("record_id").asLong())) {
            never++;
          }
        }
      }
      return never;
    }

    String summary() {
      StringBuilder out = new StringBuilder();
      counts.forEach((k, v) -> {
        if (out.length() > 0) {
          out.append(", ");
        }
        out.append(v).append(" × ").append(k);
      });
      String text = out.toString();
      return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }

    String table() {
      StringBuilder out = new StringBuilder();
      out.append(String.format("%-28s %-40s %s%n", "", "model", "Kafka " + "4.4.0"));
      generations.forEach((k, v) -> out.append(String.format("%-28s %-40s %s%n", k, v[0], v[1])));
      out.append(String.format("%-28s %s%n", "checks", checks + " (" + differences.size() + " different)"));
      if (tie != null) {
        out.append("  stopped at ").append(tie).append('\n');
      }
      for (String r : rejoinedEarlier) {
        out.append("  timing, not compared: ").append(r).append(" (refused: Kafka's member had already rejoined)\n");
      }
      for (String r : syncedEarlier) {
        out.append("  timing, not compared: ").append(r).append(" (written: Kafka's member had already read its SyncGroup answer)\n");
      }
      for (int i = 0; i < Math.min(DIFFERENCES_SHOWN, differences.size()); i++) {
        out.append("  ≠ ").append(differences.get(i)).append('\n');
      }
      if (differences.size() > DIFFERENCES_SHOWN) {
        out.append("  … and ").append(differences.size() - DIFFERENCES_SHOWN).append(" more\n");
      }
      describes.forEach((group, v) -> {
        out.append("model --describe (").append(group).append("):\n").append(v[0]).append('\n');
        if (!v[0].equals(v[1])) {
          out.append("Kafka --describe (").append(group).append("):\n").append(v[1]).append('\n');
        }
      });
      return out.toString();
    }

    void cleanUp() {
      if (producer != null) {
        producer.close();
      }
      for (Child child : live.values()) {
        child.kill();
      }
      for (Child child : warm) {
        child.kill();
      }
      for (Child child : dying.values()) {
        child.kill();
      }
      dying.clear();
      live.clear();
      warm.clear();
    }
  }

  /** What an application computes from the records Kafka handed it. */
  private static final class Sink {
    long delivered;
    long duplicates;
    long outOfOrder;
    final Set<Long> seen = new java.util.HashSet<>();
    /** Per key, the highest record id handled: a lower one after it is out of key order. */
    final Map<String, Long> lastOfKey = new HashMap<>();

    void handle(String key, long id) {
      delivered++;
      if (!seen.add(id)) {
        duplicates++;
        return;
      }
      Long last = lastOfKey.get(key);
      if (last != null && id < last) {
        outOfOrder++;
      } else {
        lastOfKey.put(key, id);
      }
    }
  }

  /** The header, then the rows in order of topic and partition (numerically). */
  static String byPartition(String describe) {
    List<String> lines = new ArrayList<>(describe.lines().toList());
    if (lines.size() < 2 || !lines.get(0).startsWith("GROUP")) {
      return describe;
    }
    String header = lines.remove(0);
    lines.sort(
        java.util.Comparator.comparing((String l) -> column(l, 1))
            .thenComparingLong(l -> {
              try {
                return Long.parseLong(column(l, 2));
              } catch (NumberFormatException e) {
                return Long.MAX_VALUE;
              }
            })
            .thenComparing(l -> l));
    return header + "\n" + String.join("\n", lines);
  }

  private static String column(String line, int i) {
    String[] parts = line.trim().split("\\s+");
    return i < parts.length ? parts[i] : "";
  }

  /** Member ids and hosts vary from run to run: the same length of placeholder on both sides. */
  static String normalise(String describe) {
    Matcher m = Pattern.compile("\\b(c\\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").matcher(describe);
    String text = m.replaceAll(r -> r.group(1) + "-" + "x".repeat(36));
    Matcher host = Pattern.compile("/(\\d+\\.\\d+\\.\\d+\\.\\d+)").matcher(text);
    text = host.replaceAll(r -> "/" + "h".repeat(r.group(1).length()));
    // Blank lines around the table are the tool's, not the table's.
    return text.strip();
  }

  /** Deletes what the previous scenario left: its groups (once empty) and the topic. */
  private void resetBroker() throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (true) {
      List<String> groups = new ArrayList<>();
      admin.listGroups().all().get(30, TimeUnit.SECONDS).forEach(l -> groups.add(l.groupId()));
      Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      if (groups.isEmpty() && !topics.contains(TOPIC)) {
        return;
      }
      try {
        if (!groups.isEmpty()) {
          admin.deleteConsumerGroups(groups).all().get(30, TimeUnit.SECONDS);
        }
        if (topics.contains(TOPIC)) {
          admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
        }
      } catch (Exception e) {
        // A group with a crashed member is not empty until its session times out: try again.
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("cannot clear the broker between scenarios: " + e.getMessage());
        }
      }
      Thread.sleep(200);
    }
  }

  static String assignorClass(String name) {
    return switch (name) {
      case "range" -> "org.apache.kafka.clients.consumer.RangeAssignor";
      case "roundrobin" -> "org.apache.kafka.clients.consumer.RoundRobinAssignor";
      case "sticky" -> "org.apache.kafka.clients.consumer.StickyAssignor";
      case "cooperative-sticky" -> "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
      default -> throw new IllegalArgumentException("no Kafka assignor named " + name);
    };
  }
}
