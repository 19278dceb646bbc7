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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The exactly-once built-ins on the real broker, with the Java producer and consumer: {@code
 * eos-read-process-write} and {@code eos-zombie-fenced} (a downstream reader with {@code
 * isolation.level=read_committed} sees each input record's result exactly once) and {@code
 * eos-read-uncommitted} (the first story's run read with {@code read_uncommitted}: the aborted
 * results are seen, so some inputs have two).
 *
 * <p>Each story: topic {@code orders} (2 partitions) with {@link #RECORDS} keyed records ({@code
 * acct-0}..{@code acct-7}, values {@code order-0}..), topic {@code payouts} (2 partitions), group
 * {@code demo}, both topics and the group made afresh. The application is {@link EosInstance}, one
 * JVM per instance (classic protocol, range assignor, {@code max.poll.records} {@link
 * #MAX_POLL_RECORDS}, a consume-transform-produce loop, one transaction per poll, one result per
 * input to {@code payouts}). The instances join with their partitions paused and start together
 * once one generation gives each a partition.
 *
 * <ul>
 *   <li>{@code eos-read-process-write}: dynamic members {@code c1}, {@code c2} with transactional
 *       ids {@code demo-c1}, {@code demo-c2}, a {@link #SESSION_TIMEOUT_MS} ms session and {@code
 *       transaction.timeout.ms} {@link #TRANSACTION_TIMEOUT_MS}. c1 sends {@link #HOLD_AFTER}
 *       results in its first transaction, flushes them and holds; once c2 has committed its own
 *       partition to the end, c1's JVM is killed (SIGKILL). c2 gets c1's partition when c1's
 *       session runs out, resumes from the committed offsets (none: c1 committed nothing) and
 *       processes the rest; the transaction coordinator aborts c1's open transaction when its
 *       timeout passes (the broker looks every {@code
 *       transaction.abort.timed.out.transaction.cleanup.interval.ms}, 1 s in the harness's
 *       server.properties). Once the group has committed every input and {@code payouts} has no
 *       open transaction (its last stable offset is its high watermark), a {@code read_committed}
 *       reader reads {@code payouts} from the start until it has a result for every input and is at
 *       the end (bounded), and so does a {@code read_uncommitted} one for {@code
 *       eos-read-uncommitted}.
 *   <li>{@code eos-zombie-fenced}: static members ({@code group.instance.id} {@code inst-1}, {@code
 *       inst-2}; transactional ids {@code demo-inst-1}, {@code demo-inst-2}; a {@link
 *       #STATIC_SESSION_TIMEOUT_MS} ms session and a {@link #ZOMBIE_TRANSACTION_TIMEOUT_MS} ms
 *       transaction timeout, so neither the session nor the coordinator's timeout ends the stalled
 *       one's membership or transaction). inst-1 sends {@link #HOLD_AFTER} results, holds, and its
 *       JVM is stopped (SIGSTOP). A new JVM with the same instance id and transactional id starts:
 *       its {@code initTransactions} bumps the producer epoch and aborts the stalled transaction,
 *       it takes inst-1's partition and processes it to the end. The stalled JVM is continued
 *       (SIGCONT) and told to go on: its next send, {@code sendOffsetsToTransaction} or {@code
 *       commitTransaction} fails with {@code ProducerFencedException} or {@code
 *       InvalidProducerEpochException} (counted as fenced writes; every failure's class is shown)
 *       and it closes. A {@code read_committed} reader reads {@code payouts} as above.
 * </ul>
 *
 * <p>Measured from a reader's results: delivered (results read), distinct inputs, duplicates
 * (results beyond the first per input), aborted seen (results of transactions that did not commit:
 * their instance never said it committed them). Compared with {@code offsetlab run --scenario NAME
 * --json}'s metrics {@code downstream_duplicates}, {@code downstream_delivered}, {@code
 * aborted_seen}, {@code fenced_writes}: read_committed, duplicates, delivered and aborted seen
 * exactly; read_uncommitted, whether there are duplicates and aborted results (at least one), and
 * the inputs seen (delivered &minus; duplicates); the zombie's fenced writes as at least one on both
 * sides (the exact count is timing; both are shown); and, once no transaction is open, the
 * coordinator's {@code TransactionState} of each transactional id ({@code Admin.describeTransactions},
 * what {@code kafka-transactions describe} prints) against {@code run --json}'s {@code
 * transactions.producers[].coordinator_state}. A built-in (or its metrics) that the given
 * offsetlab does not have yet is reported out of scope with Kafka's figures; Kafka's side runs
 * either way.
 *
 * <p>Processes: every instance JVM is started from the main thread under {@code setpriv
 * --pdeathsig KILL} when setpriv is there (a stopped JVM is killed too when this one dies) and
 * exits itself when this JVM is gone; a shutdown hook continues any JVM this one stopped and kills
 * the instances, as the end of every story does.
 *
 * <p>Usage: {@code Transactions --bootstrap 127.0.0.1:PORT --offsetlab BIN [--seed S] [--subset]
 * [--scenario NAME]... --out FILE.json}. Both stories run in the subset too (together well under
 * a minute and a half). Exit 0 when it ran (a difference is a result), 1 when the harness failed,
 * 2 on bad arguments.
 */
public final class Transactions {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String INPUT = "orders";
  static final String OUTPUT = "payouts";
  static final String GROUP = "demo";
  static final int PARTITIONS = 2;
  static final int RECORDS = 12;
  static final int KEYS = 8;
  static final int MAX_POLL_RECORDS = 4;
  /** The results an instance sends in its first transaction before it is killed or stopped. */
  static final int HOLD_AFTER = 2;
  /** The dynamic members' session: c2 gets c1's partition this long after the kill. */
  static final int SESSION_TIMEOUT_MS = 3_000;
  static final int HEARTBEAT_INTERVAL_MS = 500;
  /** The static members' session: longer than the stall, so the replacement, not the expiry, takes inst-1's place. */
  static final int STATIC_SESSION_TIMEOUT_MS = 30_000;
  static final int STATIC_HEARTBEAT_INTERVAL_MS = 1_000;
  /** The killed instance's transaction is aborted by the coordinator this long after it began. */
  static final int TRANSACTION_TIMEOUT_MS = 5_000;
  /** The zombie story's: the replacement's initTransactions, not the timeout, aborts the stalled transaction. */
  static final int ZOMBIE_TRANSACTION_TIMEOUT_MS = 60_000;
  /** The broker's transaction.abort.timed.out.transaction.cleanup.interval.ms (server.properties). */
  static final int CLEANUP_INTERVAL_MS = 1_000;

  private static final long READY_TIMEOUT_MS = 60_000;
  private static final long ASSIGN_TIMEOUT_MS = 30_000;
  private static final long STEP_TIMEOUT_MS = 30_000;
  private static final long TAKEOVER_TIMEOUT_MS = 60_000;
  private static final long ABORT_TIMEOUT_MS = TRANSACTION_TIMEOUT_MS + CLEANUP_INTERVAL_MS + 30_000L;
  private static final long EXIT_TIMEOUT_MS = 30_000;
  private static final long READ_TIMEOUT_MS = 30_000;
  private static final long RESET_TIMEOUT_MS = 45_000;
  private static final long MODEL_TIMEOUT_MS = 60_000;
  private static final long LOOK_MS = 100;

  /** The model's metrics compared; a built-in without them is not in this offsetlab yet. */
  static final List<String> METRICS = List.of("downstream_duplicates", "downstream_delivered", "aborted_seen", "fenced_writes");
  static final String READ_PROCESS_WRITE = "eos-read-process-write";
  static final String READ_UNCOMMITTED = "eos-read-uncommitted";
  static final String ZOMBIE = "eos-zombie-fenced";

  private final String bootstrap;
  private final String offsetlab;
  private final Long seed;
  private final Path log;
  private final Admin admin;
  /** Every instance JVM started; killed at the end of each story and on every path. */
  private final List<Instance> started = Collections.synchronizedList(new ArrayList<>());
  /** Pids stopped and not yet continued: continued whatever happens. */
  private final Set<Long> stopped = Collections.synchronizedSet(new LinkedHashSet<>());
  private final boolean setpriv = onPath("setpriv");

  private Transactions(String bootstrap, String offsetlab, Long seed, Path log) {
    this.bootstrap = bootstrap;
    this.offsetlab = offsetlab;
    this.seed = seed;
    this.log = log;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
    this.admin = Admin.create(props);
  }

  public static void main(String[] args) {
    String usage = "--bootstrap HOST:PORT --offsetlab BIN [--seed S] [--subset] [--scenario NAME]... --out FILE.json";
    Map<String, List<String>> opts = DriverArgs.forDriver("Transactions", usage, args);
    Map<String, String> last = DriverArgs.last(opts);
    Long seed = null;
    List<String> only = opts.getOrDefault("scenario", List.of());
    try {
      if (last.containsKey("seed")) seed = Long.valueOf(last.get("seed"));
      for (String name : only) {
        if (!List.of(READ_PROCESS_WRITE, READ_UNCOMMITTED, ZOMBIE).contains(name)) {
          throw new IllegalArgumentException("--scenario must be one of " + READ_PROCESS_WRITE + ", " + READ_UNCOMMITTED + ", " + ZOMBIE);
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("Transactions: " + e.getMessage());
      System.err.println("usage: Transactions " + usage);
      System.exit(2);
    }
    Path out = Path.of(last.get("out"));
    Path log = out.toAbsolutePath().resolveSibling("transactions-instances.log");
    String seedText = seed == null ? "each built-in's own seed" : "seed " + seed;
    ArrayNode entries = JSON.createArrayNode();
    int code = 0;
    Transactions run = new Transactions(last.get("bootstrap"), last.get("offsetlab"), seed, log);
    // On SIGTERM (setpriv's when xtask dies) the finally below does not run.
    Runtime.getRuntime().addShutdownHook(new Thread(run::cleanUp, "transactions-cleanup"));
    String story = null;
    try {
      Files.createDirectories(log.getParent());
      Files.deleteIfExists(log);
      if (only.isEmpty() || only.contains(READ_PROCESS_WRITE) || only.contains(READ_UNCOMMITTED)) {
        story = READ_PROCESS_WRITE;
        long start = System.nanoTime();
        List<ObjectNode> found = run.readProcessWrite();
        for (ObjectNode entry : found) {
          if (!only.isEmpty() && !only.contains(entry.path("name").asText())) continue;
          print(entry, start);
          entries.add(entry);
        }
      }
      if (only.isEmpty() || only.contains(ZOMBIE)) {
        story = ZOMBIE;
        long start = System.nanoTime();
        ObjectNode entry = run.zombieFenced();
        print(entry, start);
        entries.add(entry);
      }
    } catch (Exception e) {
      System.err.println("Transactions: the harness failed in " + story + " (" + seedText + "): " + e);
      e.printStackTrace();
      code = 1;
    } finally {
      run.cleanUp();
      run.admin.close(Duration.ofSeconds(5));
    }
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(entries));
    } catch (IOException e) {
      System.err.println("Transactions: cannot write " + out + ": " + e.getMessage());
      code = 1;
    }
    System.exit(code);
  }

  private static void print(ObjectNode entry, long start) {
    System.out.printf("%-30s %-12s %5.1f s  %s%n", entry.path("name").asText(), entry.path("result").asText(),
        (System.nanoTime() - start) / 1e9, entry.path("detail").asText());
  }

  // ------------------------------------------------------------------ the model

  /** The model's run: its seed and metrics, or why it cannot be compared. */
  /**
   * A built-in's run: its metrics, and the transaction coordinator's {@code TransactionState} per transactional id at the
   * end ({@code run --json}'s {@code transactions.producers}).
   */
  record Model(long seed, Map<String, Long> metrics, Map<String, String> coordinatorStates, String missing) {
    long get(String metric) {
      return metrics.get(metric);
    }

    String state(String transactionalId) {
      return coordinatorStates.getOrDefault(transactionalId, "(not in the run)");
    }
  }

  private Model model(String scenario) throws Exception {
    List<String> command = new ArrayList<>(List.of(offsetlab, "run", "--scenario", scenario, "--json"));
    if (seed != null) command.addAll(List.of("--seed", seed.toString()));
    File stdout = File.createTempFile("offsetlab-run", ".json");
    File stderr = File.createTempFile("offsetlab-run", ".err");
    try {
      Process p = new ProcessBuilder(command).redirectOutput(stdout).redirectError(stderr).start();
      if (!p.waitFor(MODEL_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in " + MODEL_TIMEOUT_MS + " ms");
      }
      String err = Files.readString(stderr.toPath(), StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) {
        if (err.contains("no built-in scenario named")) {
          return new Model(seed == null ? -1 : seed, Map.of(), Map.of(), "the built-in is not in this offsetlab yet");
        }
        throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + err);
      }
      JsonNode run = JSON.readTree(stdout);
      JsonNode metrics = run.path("metrics");
      Map<String, Long> values = new LinkedHashMap<>();
      List<String> absent = new ArrayList<>();
      for (String m : METRICS) {
        if (metrics.path(m).isNumber()) values.put(m, metrics.path(m).asLong());
        else absent.add(m);
      }
      long runSeed = run.path("seed").asLong(seed == null ? -1 : seed);
      Map<String, String> states = new LinkedHashMap<>();
      for (JsonNode producer : run.path("transactions").path("producers")) {
        states.put(producer.path("transactional_id").asText(), producer.path("coordinator_state").asText());
      }
      if (!absent.isEmpty()) {
        return new Model(runSeed, values, states, "the built-in's metrics " + String.join(", ", absent)
            + " are not in this offsetlab yet");
      }
      return new Model(runSeed, values, states, null);
    } finally {
      stdout.delete();
      stderr.delete();
    }
  }

  // ------------------------------------------------------------------ eos-read-process-write

  private List<ObjectNode> readProcessWrite() throws Exception {
    long began = System.nanoTime();
    Model rc = model(READ_PROCESS_WRITE);
    Model ru = model(READ_UNCOMMITTED);
    Map<String, Integer> inputs = resetAndProduce();
    List<Instance> apps = spawn(2);
    Instance c1 = apps.get(0).named("c1");
    Instance c2 = apps.get(1).named("c2");
    List<String> timeline = new ArrayList<>();
    try {
      c1.send(start("c1", "c1", null, "demo-c1", SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS, TRANSACTION_TIMEOUT_MS, HOLD_AFTER, true));
      c2.send(start("c2", "c2", null, "demo-c2", SESSION_TIMEOUT_MS, HEARTBEAT_INTERVAL_MS, TRANSACTION_TIMEOUT_MS, 0, true));
      int generation = awaitOneEach(List.of(c1, c2));
      int p1 = c1.owned().first();
      int p2 = c2.owned().first();
      timeline.add(String.format("generation %d: c1 has P%d (%d inputs), c2 has P%d (%d inputs)", generation, p1,
          count(inputs, p1), p2, count(inputs, p2)));
      c1.send(op("go"));
      c2.send(op("go"));
      waitFor("c1 to hold after " + HOLD_AFTER + " results of its first transaction", STEP_TIMEOUT_MS, () -> c1.said("held"), apps);
      waitFor("c2 to commit P" + p2 + " to the end", STEP_TIMEOUT_MS, () -> committedAtEnd(List.of(p2)), apps);
      timeline.add(String.format("c1 sent %d results in its transaction 1 and flushed them; c2 committed P%d to the end in %d transaction(s)",
          HOLD_AFTER, p2, c2.all("committed").size()));
      long killedAt = System.nanoTime();
      c1.kill();
      waitFor("c2 to take P" + p1 + " over and the group to commit every input", TAKEOVER_TIMEOUT_MS,
          () -> committedAtEnd(List.of(0, 1)), apps);
      JsonNode takeover = c2.firstAfter("assigned", killedAt, p1);
      timeline.add(String.format("c1 killed (SIGKILL); c2 assigned P%d %s after the kill (session %d ms), in generation %s",
          p1, takeover == null ? "(not seen)" : ms(takeover.path("_at").asLong() - killedAt),
          SESSION_TIMEOUT_MS, takeover == null ? "?" : takeover.path("generation").asText()));
      c2.close();
      waitFor("payouts to have no open transaction (c1's aborted by the coordinator)", ABORT_TIMEOUT_MS,
          this::noOpenTransaction, apps);
      timeline.add(String.format("c1's transaction aborted (payouts' last stable offset at its high watermark) %s after the kill"
          + " (transaction.timeout.ms %d, the broker looks every %d ms)", ms(System.nanoTime() - killedAt), TRANSACTION_TIMEOUT_MS,
          CLEANUP_INTERVAL_MS));
      Map<String, String> states = transactionStates(List.of("demo-c1", "demo-c2"));
      timeline.add("kafka-transactions describe: " + states);
      Set<String> committed = committedTransactions(apps);
      timeline.add("transactions committed: " + String.join(", ", committed));
      Read readRc = read(IsolationLevel.READ_COMMITTED, inputs.keySet(), committed);
      Read readRu = read(IsolationLevel.READ_UNCOMMITTED, inputs.keySet(), committed);
      Set<String> onlyRu = new TreeSet<>(readRu.at());
      onlyRu.removeAll(readRc.at());
      double secs = (System.nanoTime() - began) / 1e9;
      String story = String.format("%d inputs on %d partitions, dynamic members c1 and c2, max.poll.records %d; c1 killed after %d results"
          + " of its first transaction", inputs.size(), PARTITIONS, MAX_POLL_RECORDS, HOLD_AFTER);
      List<String> contrast = List.of(String.format("%-66s %s", "results only the read_uncommitted reader (eos-read-uncommitted) read",
          onlyRu.size() + " " + onlyRu));

      Checks a = new Checks();
      if (rc.missing() == null) {
        a.check("downstream duplicates (read_committed)", rc.get("downstream_duplicates"), readRc.duplicates());
        a.check("downstream results delivered (read_committed; " + inputs.size() + " inputs)", rc.get("downstream_delivered"),
            readRc.delivered());
        a.check("aborted results seen by the downstream", rc.get("aborted_seen"), readRc.aborted());
        a.check("TransactionState of demo-c1 (killed mid-transaction)", rc.state("demo-c1"), states.get("demo-c1"));
        a.check("TransactionState of demo-c2", rc.state("demo-c2"), states.get("demo-c2"));
        a.note("fenced writes (not compared: nobody writes after the kill)", "offsetlab " + rc.get("fenced_writes") + ", kafka "
            + fencedWrites(apps));
      }
      ObjectNode first = entry(READ_PROCESS_WRITE, rc, a, story, secs, readRc, timeline, contrast, fencedWrites(apps), failures(apps));

      Checks b = new Checks();
      if (ru.missing() == null) {
        b.check("downstream duplicates (read_uncommitted) at least 1", ru.get("downstream_duplicates") >= 1, readRu.duplicates() >= 1);
        b.check("aborted results seen by the downstream at least 1", ru.get("aborted_seen") >= 1, readRu.aborted() >= 1);
        b.check("inputs whose result was seen (delivered - duplicates)", ru.get("downstream_delivered") - ru.get("downstream_duplicates"),
            (long) readRu.distinct());
        b.note("downstream duplicates, aborted results seen (exact; not compared)", "offsetlab " + ru.get("downstream_duplicates") + ", "
            + ru.get("aborted_seen") + "; kafka " + readRu.duplicates() + ", " + readRu.aborted());
        b.note("downstream results delivered (not compared)", "offsetlab " + ru.get("downstream_delivered") + ", kafka " + readRu.delivered());
      }
      ObjectNode second = entry(READ_UNCOMMITTED, ru, b, story + "; read with read_uncommitted", secs, readRu, timeline,
          List.of(), fencedWrites(apps), failures(apps));
      return List.of(first, second);
    } finally {
      endStory(apps);
    }
  }

  // ------------------------------------------------------------------ eos-zombie-fenced

  private ObjectNode zombieFenced() throws Exception {
    long began = System.nanoTime();
    Model model = model(ZOMBIE);
    Map<String, Integer> inputs = resetAndProduce();
    List<Instance> apps = spawn(3);
    Instance zombie = apps.get(0).named("inst-1");
    Instance other = apps.get(1).named("inst-2");
    Instance replacement = apps.get(2).named("inst-1-new");
    List<String> timeline = new ArrayList<>();
    try {
      zombie.send(start("inst-1", "inst-1", "inst-1", "demo-inst-1", STATIC_SESSION_TIMEOUT_MS, STATIC_HEARTBEAT_INTERVAL_MS,
          ZOMBIE_TRANSACTION_TIMEOUT_MS, HOLD_AFTER, true));
      other.send(start("inst-2", "inst-2", "inst-2", "demo-inst-2", STATIC_SESSION_TIMEOUT_MS, STATIC_HEARTBEAT_INTERVAL_MS,
          ZOMBIE_TRANSACTION_TIMEOUT_MS, 0, true));
      int generation = awaitOneEach(List.of(zombie, other));
      int p1 = zombie.owned().first();
      int p2 = other.owned().first();
      timeline.add(String.format("generation %d: inst-1 has P%d (%d inputs), inst-2 has P%d (%d inputs)", generation, p1,
          count(inputs, p1), p2, count(inputs, p2)));
      zombie.send(op("go"));
      other.send(op("go"));
      waitFor("inst-1 to hold after " + HOLD_AFTER + " results of its first transaction", STEP_TIMEOUT_MS, () -> zombie.said("held"), apps);
      waitFor("inst-2 to commit P" + p2 + " to the end", STEP_TIMEOUT_MS, () -> committedAtEnd(List.of(p2)), apps);
      signal("STOP", zombie.pid());
      long stoppedAt = System.nanoTime();
      timeline.add(String.format("inst-1 sent %d results in its transaction 1, flushed them and was stopped (SIGSTOP); inst-2 committed"
          + " P%d to the end", HOLD_AFTER, p2));
      replacement.send(start("inst-1-new", "inst-1", "inst-1", "demo-inst-1", STATIC_SESSION_TIMEOUT_MS, STATIC_HEARTBEAT_INTERVAL_MS,
          ZOMBIE_TRANSACTION_TIMEOUT_MS, 0, false));
      waitFor("the new inst-1's initTransactions", STEP_TIMEOUT_MS, () -> replacement.said("initialized"), apps);
      long initMs = TimeUnit.NANOSECONDS.toMillis(replacement.first("initialized").path("_at").asLong() - stoppedAt);
      boolean abortedAtInit = noOpenTransaction();
      timeline.add(String.format("a new JVM with inst-1 and demo-inst-1: initTransactions returned %d ms after the stop; payouts' open"
          + " transaction already aborted then: %s (transaction.timeout.ms %d: not the timeout)", initMs, abortedAtInit,
          ZOMBIE_TRANSACTION_TIMEOUT_MS));
      waitFor("the new inst-1 to process P" + p1 + " and the group to commit every input", TAKEOVER_TIMEOUT_MS,
          () -> committedAtEnd(List.of(0, 1)), apps);
      JsonNode took = replacement.first("assigned");
      timeline.add(String.format("the new inst-1 was assigned %s in generation %s and committed %d transaction(s)",
          took == null ? "(nothing seen)" : partitions(took), took == null ? "?" : took.path("generation").asText(),
          replacement.all("committed").size()));
      // Told to go on before it runs again, so it does at once.
      zombie.send(op("continue"));
      signal("CONT", zombie.pid());
      waitFor("the stalled inst-1 to fail and close", EXIT_TIMEOUT_MS, () -> zombie.said("closed") || !zombie.alive(), apps);
      List<String> zombieFailures = new ArrayList<>();
      for (JsonNode f : zombie.all("op-failed")) zombieFailures.add(f.path("op").asText() + ": " + f.path("class").asText());
      timeline.add("the stalled inst-1 continued (SIGCONT): " + (zombieFailures.isEmpty() ? "nothing failed" : String.join(", ", zombieFailures))
          + "; " + (zombie.said("stopping") ? "it stopped: " + zombie.first("stopping").path("why").asText() : "it did not say why it stopped"));
      replacement.close();
      other.close();
      waitFor("payouts to have no open transaction", ABORT_TIMEOUT_MS, this::noOpenTransaction, apps);
      Map<String, String> states = transactionStates(List.of("demo-inst-1", "demo-inst-2"));
      timeline.add("kafka-transactions describe: " + states);
      Set<String> committed = committedTransactions(apps);
      timeline.add("transactions committed: " + String.join(", ", committed));
      Read readRc = read(IsolationLevel.READ_COMMITTED, inputs.keySet(), committed);
      Read readRu = read(IsolationLevel.READ_UNCOMMITTED, inputs.keySet(), committed);
      double secs = (System.nanoTime() - began) / 1e9;
      int fenced = fencedWrites(apps);
      String story = String.format("%d inputs on %d partitions, static members inst-1 and inst-2; inst-1 stalled after %d results, a new"
          + " inst-1 fenced it", inputs.size(), PARTITIONS, HOLD_AFTER);
      List<String> contrast = List.of(String.format("%-66s %d results, %d duplicates, %d aborted seen", "a read_uncommitted reader (for contrast)",
          readRu.delivered(), readRu.duplicates(), readRu.aborted()));

      Checks c = new Checks();
      if (model.missing() == null) {
        c.check("downstream duplicates (read_committed)", model.get("downstream_duplicates"), readRc.duplicates());
        c.check("downstream results delivered (read_committed; " + inputs.size() + " inputs)", model.get("downstream_delivered"),
            readRc.delivered());
        c.check("aborted results seen by the downstream", model.get("aborted_seen"), readRc.aborted());
        c.check("the zombie's writes fenced: at least 1", model.get("fenced_writes") >= 1, fenced >= 1);
        c.check("TransactionState of demo-inst-1 (the replacement's, the zombie's refused)", model.state("demo-inst-1"),
            states.get("demo-inst-1"));
        c.check("TransactionState of demo-inst-2", model.state("demo-inst-2"), states.get("demo-inst-2"));
        c.note("fenced writes (exact; timing, not compared)", "offsetlab " + model.get("fenced_writes") + ", kafka " + fenced);
      }
      return entry(ZOMBIE, model, c, story, secs, readRc, timeline, contrast, fenced, failures(apps));
    } finally {
      endStory(apps);
    }
  }

  // ------------------------------------------------------------------ the entries

  /** Comparison rows and the differences among them, and notes not compared. */
  static final class Checks {
    final List<String> rows = new ArrayList<>();
    final List<String> differences = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    void check(String what, Object ours, Object kafka) {
      boolean same = String.valueOf(ours).equals(String.valueOf(kafka));
      rows.add(String.format("%-66s offsetlab %s, kafka %s%s", what, ours, kafka, same ? "" : "  DIFFERENT"));
      if (!same) differences.add(what + ": offsetlab " + ours + ", kafka " + kafka);
    }

    void note(String what, String text) {
      notes.add(String.format("%-66s %s", what, text));
    }
  }

  private ObjectNode entry(String name, Model model, Checks checks, String story, double secs, Read read, List<String> timeline,
      List<String> contrast, int fenced, List<String> failures) {
    String kafka = String.format("kafka %s: %d results delivered, %d inputs seen, %d duplicates, %d aborted seen, %d fenced writes%s",
        read.isolation().toString().toLowerCase(), read.delivered(), read.distinct(), read.duplicates(), read.aborted(), fenced,
        read.missing().isEmpty() ? "" : ", inputs without a result: " + read.missing());
    ObjectNode entry = JSON.createObjectNode();
    entry.put("name", name);
    entry.put("kind", "scenario");
    String seedText = model.seed() < 0 ? "the built-in's own seed" : "seed " + model.seed();
    if (model.missing() != null) {
      entry.put("result", "out-of-scope");
      entry.put("cases", 0);
      entry.put("detail", String.format("%s (%s); Kafka's side ran, not compared: %s, %.1f s", model.missing(), seedText, kafka, secs));
    } else {
      entry.put("result", checks.differences.isEmpty() ? "equal" : "different");
      entry.put("cases", checks.rows.size());
      entry.put("detail", String.format("%s, %s, %.1f s: %s", story, seedText, secs,
          checks.differences.isEmpty() ? checks.rows.size() + " checks equal"
              : checks.differences.size() + " of " + checks.rows.size() + " checks differ; first: " + checks.differences.get(0)));
    }
    StringBuilder table = new StringBuilder();
    table.append("story: ").append(story).append(" (").append(seedText).append(")\n");
    timeline.forEach(t -> table.append("  ").append(t).append('\n'));
    checks.rows.forEach(r -> table.append(r).append('\n'));
    checks.notes.forEach(n -> table.append(n).append('\n'));
    table.append(String.format("%-66s %s%n", "measured on Kafka", kafka));
    contrast.forEach(c -> table.append(c).append('\n'));
    if (!failures.isEmpty()) table.append(String.format("%-66s %s%n", "client failures on Kafka (operation: class)", String.join("; ", failures)));
    entry.put("table", table.toString());
    return entry;
  }

  // ------------------------------------------------------------------ the downstream reader

  /** One result read: which input, which transaction wrote it, where. */
  record Result(String input, String transaction, int partition, long offset) {}

  /** What a reader read, counted. */
  record Read(IsolationLevel isolation, List<Result> results, Set<String> inputs, Set<String> committed) {
    int delivered() {
      return results.size();
    }

    int distinct() {
      return (int) results.stream().map(Result::input).distinct().count();
    }

    int duplicates() {
      return delivered() - distinct();
    }

    /** Results of transactions that did not commit (their instance never said it committed them). */
    int aborted() {
      return (int) results.stream().filter(r -> !committed.contains(r.transaction())).count();
    }

    Set<String> missing() {
      Set<String> out = new TreeSet<>(inputs);
      results.forEach(r -> out.remove(r.input()));
      return out;
    }

    Set<String> at() {
      Set<String> out = new TreeSet<>();
      results.forEach(r -> out.add("P" + r.partition() + "@" + r.offset() + " " + r.input() + " " + r.transaction()));
      return out;
    }
  }

  /**
   * Reads {@code payouts} from the start with {@code isolation} until there is a result for every
   * input and the reader is at the end of both partitions (its end: the last stable offset for
   * read_committed), or {@link #READ_TIMEOUT_MS} passes (then it reads what it has).
   */
  private Read read(IsolationLevel isolation, Set<String> inputs, Set<String> committed) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "downstream-" + isolation.toString().toLowerCase());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<Result> results = new ArrayList<>();
    List<TopicPartition> parts = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) parts.add(new TopicPartition(OUTPUT, p));
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READ_TIMEOUT_MS);
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          String[] parts3 = r.value().split("\\|");
          String transaction = parts3.length == 3 ? parts3[1] + "#" + parts3[2] : "?";
          results.add(new Result(parts3[0], transaction, r.partition(), r.offset()));
        }
        Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(10));
        boolean atEnd = parts.stream().allMatch(tp -> consumer.position(tp, Duration.ofSeconds(10)) >= end.get(tp));
        Set<String> seen = new HashSet<>();
        results.forEach(r -> seen.add(r.input()));
        if (atEnd && seen.containsAll(inputs)) break;
      }
    }
    return new Read(isolation, results, inputs, committed);
  }

  /** The transactions the instances said they committed, as "TAG#N". */
  private static Set<String> committedTransactions(List<Instance> apps) {
    Set<String> out = new TreeSet<>();
    for (Instance app : apps) {
      String tag = app.startedAs == null ? null : app.startedAs.path("tag").asText();
      for (JsonNode c : app.all("committed")) out.add(tag + "#" + c.path("txn").asInt());
    }
    return out;
  }

  /** The writes the instances saw fenced: failed sends, offsets and commits with a producer fencing. */
  private static int fencedWrites(List<Instance> apps) {
    int n = 0;
    for (Instance app : apps) {
      for (JsonNode f : app.all("op-failed")) {
        if (f.path("fenced").asBoolean() && List.of("send", "send-offsets", "commit").contains(f.path("op").asText())) n++;
      }
    }
    return n;
  }

  /** Every client failure the instances said, as "instance op (txn N): Class (thrown as Class)". */
  private static List<String> failures(List<Instance> apps) {
    List<String> out = new ArrayList<>();
    for (Instance app : apps) {
      for (JsonNode f : app.all("op-failed")) {
        String thrown = f.path("thrown").asText();
        String shown = f.path("class").asText();
        out.add(String.format("%s %s (txn %d): %s%s", app.name, f.path("op").asText(), f.path("txn").asInt(), shown,
            thrown.equals(shown) ? "" : " (thrown as " + thrown + ")"));
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ the broker

  /** Deletes the group and both topics, makes the topics again and sends the inputs: input → partition. */
  private Map<String, Integer> resetAndProduce() throws Exception {
    long deadline = System.currentTimeMillis() + RESET_TIMEOUT_MS;
    while (true) {
      try {
        try {
          admin.deleteConsumerGroups(List.of(GROUP)).all().get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof GroupNotEmptyException) {
            // Static members (an earlier program's, or the last story's) stay until their session
            // ends; they are removed, dynamic ones have left or their session runs out.
            try {
              admin.removeMembersFromConsumerGroup(GROUP, new RemoveMembersFromConsumerGroupOptions()).all().get(20, TimeUnit.SECONDS);
            } catch (ExecutionException ignored) {
              // Tried again below.
            }
            throw e;
          }
          if (!(e.getCause() instanceof GroupIdNotFoundException)) throw e;
        }
        for (String topic : List.of(INPUT, OUTPUT)) {
          try {
            admin.deleteTopics(List.of(topic)).all().get(20, TimeUnit.SECONDS);
          } catch (ExecutionException e) {
            if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) throw e;
          }
        }
        admin.createTopics(List.of(new NewTopic(INPUT, PARTITIONS, (short) 1), new NewTopic(OUTPUT, PARTITIONS, (short) 1)))
            .all().get(20, TimeUnit.SECONDS);
        break;
      } catch (ExecutionException e) {
        boolean transient_ = e.getCause() instanceof GroupNotEmptyException || e.getCause() instanceof TopicExistsException;
        if (!transient_ || System.currentTimeMillis() > deadline) {
          throw new IOException("cannot clear the broker for " + GROUP + "/" + INPUT + "/" + OUTPUT + ": " + e.getCause());
        }
      }
      Thread.sleep(200);
    }
    Map<String, Integer> placed = new LinkedHashMap<>();
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < RECORDS; i++) {
        String value = "order-" + i;
        RecordMetadata md = producer.send(new ProducerRecord<>(INPUT, "acct-" + (i % KEYS), value)).get(30, TimeUnit.SECONDS);
        placed.put(value, md.partition());
      }
    }
    for (int p = 0; p < PARTITIONS; p++) {
      if (count(placed, p) < HOLD_AFTER) {
        throw new IOException("P" + p + " of " + INPUT + " has " + count(placed, p) + " inputs, fewer than the " + HOLD_AFTER + " a held transaction sends");
      }
    }
    return placed;
  }

  private static int count(Map<String, Integer> placed, int partition) {
    return (int) placed.values().stream().filter(p -> p == partition).count();
  }

  /** Whether the group has committed every input of these partitions of {@code orders}. */
  private boolean committedAtEnd(List<Integer> partitions) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
    Map<TopicPartition, OffsetSpec> ask = new LinkedHashMap<>();
    for (int p : partitions) ask.put(new TopicPartition(INPUT, p), OffsetSpec.latest());
    var ends = admin.listOffsets(ask).all().get(10, TimeUnit.SECONDS);
    for (int p : partitions) {
      TopicPartition tp = new TopicPartition(INPUT, p);
      OffsetAndMetadata o = committed.get(tp);
      if (o == null || o.offset() < ends.get(tp).offset()) return false;
    }
    return true;
  }

  /** Whether {@code payouts} has no open transaction: its last stable offset is its high watermark everywhere. */
  /** What {@code kafka-transactions describe} says of each id: the coordinator's {@code TransactionState}. */
  private Map<String, String> transactionStates(List<String> transactionalIds) throws Exception {
    Map<String, String> states = new TreeMap<>();
    admin.describeTransactions(transactionalIds).all().get(20, TimeUnit.SECONDS)
        .forEach((id, description) -> states.put(id, description.state().toString()));
    return states;
  }

  private boolean noOpenTransaction() throws Exception {
    Map<TopicPartition, OffsetSpec> ask = new LinkedHashMap<>();
    for (int p = 0; p < PARTITIONS; p++) ask.put(new TopicPartition(OUTPUT, p), OffsetSpec.latest());
    var stable = admin.listOffsets(ask, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(10, TimeUnit.SECONDS);
    var high = admin.listOffsets(ask, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get(10, TimeUnit.SECONDS);
    for (TopicPartition tp : ask.keySet()) {
      if (stable.get(tp).offset() != high.get(tp).offset()) return false;
    }
    return true;
  }

  // ------------------------------------------------------------------ the instances

  /** An instance's start; {@code tag} names it in its results (two JVMs share inst-1's transactional id). */
  private static ObjectNode start(String tag, String client, String instanceId, String transactionalId, int sessionMs,
      int heartbeatMs, int transactionTimeoutMs, int holdAfter, boolean paused) {
    ObjectNode start = op("start").put("group", GROUP).put("client_id", client).put("transactional_id", transactionalId).put("tag", tag)
        .put("session_timeout_ms", sessionMs).put("heartbeat_interval_ms", heartbeatMs).put("max_poll_records", MAX_POLL_RECORDS)
        .put("transaction_timeout_ms", transactionTimeoutMs).put("hold_after", holdAfter).put("paused", paused);
    if (instanceId != null) start.put("instance_id", instanceId);
    return start;
  }

  private static ObjectNode op(String name) {
    return JSON.createObjectNode().put("op", name);
  }

  /**
   * Waits until {@code apps} are in one generation, each with one partition (their last
   * assignment): that generation.
   */
  private int awaitOneEach(List<Instance> apps) throws Exception {
    int[] generation = {-1};
    waitFor("one generation giving each instance one partition", ASSIGN_TIMEOUT_MS, () -> {
      Set<Integer> generations = new HashSet<>();
      Set<Integer> all = new TreeSet<>();
      for (Instance app : apps) {
        JsonNode last = app.last("assigned");
        if (last == null || last.path("partitions").size() != 1) return false;
        generations.add(last.path("generation").asInt());
        all.addAll(app.owned());
      }
      if (generations.size() != 1 || all.size() != PARTITIONS) return false;
      generation[0] = generations.iterator().next();
      return true;
    }, apps);
    return generation[0];
  }

  /**
   * Starts {@code count} instance JVMs (warm: each waits for its start) and waits until each is
   * up. From the main thread: {@code setpriv --pdeathsig} signals when the thread that started
   * the child ends.
   */
  private List<Instance> spawn(int count) throws Exception {
    List<Instance> apps = new ArrayList<>();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int i = 0; i < count; i++) {
      List<String> command = new ArrayList<>();
      if (setpriv) command.addAll(List.of("setpriv", "--pdeathsig", "KILL", "--"));
      command.addAll(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1"));
      String log4j = System.getProperty("log4j2.configurationFile");
      if (log4j != null) command.add("-Dlog4j2.configurationFile=" + log4j);
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), EosInstance.class.getName(), "--bootstrap", bootstrap,
          "--input", INPUT, "--output", OUTPUT));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
      Instance app = new Instance(pb.start());
      started.add(app);
      apps.add(app);
    }
    waitFor("the instance JVMs to start", READY_TIMEOUT_MS, () -> apps.stream().allMatch(a -> a.ready() || !a.alive()), apps);
    for (Instance app : apps) {
      if (!app.alive()) throw new IOException("an instance JVM exited at start (" + app.process.exitValue() + "); see " + log);
    }
    return apps;
  }

  /** The end of a story, whatever happened: stopped JVMs continued, every instance killed. */
  private void endStory(List<Instance> apps) {
    continueAll();
    for (Instance app : apps) {
      if (app.alive() && app.said("closed")) app.awaitExit(5_000);
      app.kill();
    }
  }

  /** Continues what this run stopped and kills every instance (the shutdown hook's too). */
  private void cleanUp() {
    continueAll();
    List<Instance> all;
    synchronized (started) {
      all = List.copyOf(started);
    }
    for (Instance app : all) app.process.destroyForcibly();
  }

  private void signal(String signal, long pid) throws IOException, InterruptedException {
    // Noted first: a stop whose kill(1) returns late must still be continued.
    if (signal.equals("STOP")) stopped.add(pid);
    Process p = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid)).redirectErrorStream(true).start();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("kill -" + signal + " " + pid + " did not return in 10 s");
    }
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (p.exitValue() != 0) throw new IOException("kill -" + signal + " " + pid + " failed: " + said);
    if (signal.equals("CONT")) stopped.remove(pid);
  }

  private void continueAll() {
    List<Long> pids;
    synchronized (stopped) {
      pids = List.copyOf(stopped);
    }
    for (long pid : pids) {
      try {
        signal("CONT", pid);
      } catch (Exception e) {
        System.err.println("Transactions: could not continue pid " + pid + ": " + e.getMessage());
      }
    }
  }

  static boolean onPath(String program) {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, program))) return true;
    }
    return false;
  }

  /** An event's partitions as "P0, P1". */
  private static String partitions(JsonNode event) {
    List<String> out = new ArrayList<>();
    event.path("partitions").forEach(p -> out.add("P" + p.asInt()));
    return String.join(", ", out);
  }

  private static String ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
  }

  interface Condition {
    boolean holds() throws Exception;
  }

  /** Polls `condition` until it holds, or fails naming `what` (and what the instances said failed) after `timeoutMs`. */
  private static void waitFor(String what, long timeoutMs, Condition condition, List<Instance> apps) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    Exception last = null;
    while (System.nanoTime() < deadline) {
      try {
        if (condition.holds()) return;
      } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
        last = e;
      }
      Thread.sleep(LOOK_MS);
    }
    StringBuilder said = new StringBuilder();
    for (Instance app : apps) {
      for (JsonNode e : app.events()) {
        String event = e.path("event").asText();
        if (event.equals("failed") || event.equals("op-failed") || event.equals("stopping")) said.append("; ").append(app.name).append(": ").append(e);
      }
      if (!app.alive()) said.append("; ").append(app.name).append(" exited (").append(app.process.exitValue()).append(")");
    }
    throw new IOException("timed out after " + timeoutMs + " ms waiting for " + what + (last == null ? "" : " (last: " + last + ")") + said);
  }

  /** One {@link EosInstance} JVM: commands in, its events (stamped with when they came, {@code _at}) out. */
  static final class Instance {
    final Process process;
    private final Writer in;
    private final List<JsonNode> events = new ArrayList<>();
    String name = "(warm)";
    JsonNode startedAs;

    Instance(Process process) {
      this.process = process;
      this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line = out.readLine(); line != null; line = out.readLine()) {
            ObjectNode e = (ObjectNode) JSON.readTree(line);
            e.put("_at", System.nanoTime());
            synchronized (events) {
              events.add(e);
            }
          }
        } catch (IOException | ClassCastException e) {
          // The process died: its events end here.
        }
      }, "instance-reader");
      reader.setDaemon(true);
      reader.start();
    }

    Instance named(String name) {
      this.name = name;
      return this;
    }

    long pid() {
      return process.pid();
    }

    void send(ObjectNode command) throws IOException {
      if (command.path("op").asText().equals("start")) startedAs = command;
      in.write(JSON.writeValueAsString(command) + "\n");
      in.flush();
    }

    /** Asks it to close (between transactions) and waits for it to exit. */
    void close() throws Exception {
      send(op("close"));
      if (!awaitExit(EXIT_TIMEOUT_MS)) throw new IOException(name + " did not close within " + EXIT_TIMEOUT_MS + " ms");
    }

    boolean awaitExit(long ms) {
      try {
        return process.waitFor(ms, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    /** SIGKILL: no commit, no abort, no leave. */
    void kill() {
      process.destroyForcibly();
      awaitExit(10_000);
    }

    boolean alive() {
      return process.isAlive();
    }

    boolean ready() {
      return events().stream().anyMatch(e -> e.path("ready").asBoolean(false));
    }

    List<JsonNode> events() {
      synchronized (events) {
        return new ArrayList<>(events);
      }
    }

    boolean said(String event) {
      return first(event) != null;
    }

    JsonNode first(String event) {
      return events().stream().filter(e -> e.path("event").asText().equals(event)).findFirst().orElse(null);
    }

    JsonNode last(String event) {
      List<JsonNode> all = all(event);
      return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    List<JsonNode> all(String event) {
      return events().stream().filter(e -> e.path("event").asText().equals(event)).toList();
    }

    /** The first `event` after `nanos` whose partitions include `partition`. */
    JsonNode firstAfter(String event, long nanos, int partition) {
      for (JsonNode e : all(event)) {
        if (e.path("_at").asLong() < nanos) continue;
        for (JsonNode p : e.path("partitions")) if (p.asInt() == partition) return e;
      }
      return null;
    }

    /** What it owns by its listener: assigned adds, revoked and lost take away. */
    TreeSet<Integer> owned() {
      return ListenerEvents.owned(events());
    }
  }
}
