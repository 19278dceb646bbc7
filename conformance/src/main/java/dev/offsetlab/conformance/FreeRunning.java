package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Free-running stories: a built-in's timeline told on a real broker in real time, each consumer
 * a {@link FreeConsumer} running its own poll loop in its own JVM, and the outcome compared with
 * the model's by the classes and bounds the story claims, never by a millisecond.
 *
 * <p>Where {@link Scenarios} replays the model's trace (so a timer the model lacks is never
 * exercised), here nothing is steered by the model's trace: one tick is {@link #TICK_MS} ms on
 * Kafka's clocks; the group's settings in ticks become Kafka's in ms (session timeout, heartbeat
 * interval, {@code max.poll.interval.ms}, {@code auto.commit.interval.ms}, {@code
 * metadata.max.age.ms}), the others are taken as they are ({@code auto.offset.reset}, {@code
 * max.poll.records}, the commit mode, the assignor, the protocol); a record's handling is a sleep
 * of a tick divided by {@code handle_per_tick}. The scenario's timeline is played at its mapped
 * times: the records (the model's producer's sends: key, record id, tick), a consumer added or
 * started (a warm JVM told to start), stopped ({@code close()} after its batch), crashed (its JVM
 * killed: no commit, no LeaveGroup), stalled (its JVM stopped with SIGSTOP for the mapped time,
 * heartbeats included, as the model freezes the process), the records per poll changed (the
 * application takes at most that many from a poll), and partitions added to the topic ({@code
 * Admin.createPartitions}; the producer's sends wait until its metadata has them, as the model's
 * producer sees them at once; the consumers see them at their own refresh). The clock: the records
 * of tick 0 are written, the consumers of tick 0 started (on the consumer protocol one at a time,
 * each once the one before is a member, so the coordinator's join order is the model's), and tick 1
 * is the moment each of them has had its first assignment from Kafka, its partitions' positions
 * known (the model completes its first rebalance at tick 1): JVM start-up and the first join are
 * not story time. A story whose group starts empty starts its clock at once. The broker's initial
 * rebalance delay is a fifth of a tick (the model gathers every join of a tick in one rebalance;
 * Kafka's InitialDelayedJoin waits its delay twice when members join during it, which gathers the
 * joins of one moment). {@code offsets-expired} stretches the ticks its group is empty so that its
 * retention lasts the broker's least, one minute.
 *
 * <p>Each story runs {@link #RUNS} times, on a topic and group of its own each time, and each run
 * is compared with the model by {@link #STORIES}: the one table of what each story claims,
 * counter by counter, exactly, as zero or not, within bounds, or as the same members.
 *
 * <p>Usage: {@code FreeRunning --bootstrap HOST:PORT --offsetlab BIN --broker-log FILE
 * --initial-rebalance-delay-ms MS --offsets-retention-ms MS [--subset] [--story NAME]... [--runs
 * N] [--scenarios DIR] --out FILE.json}: the subset's stories with {@code --subset}, only the
 * named ones with {@code --story} (in the subset or not), every one otherwise. The broker must be
 * the one `cargo xtask conformance` starts for this program (its group coordinator logging at
 * INFO into {@code --broker-log}, the two settings given, and low minimum session and heartbeat
 * times). Exit 0 when it ran (a difference is a result), 1 when the harness failed, 2 on bad
 * arguments (a story it does not have among them).
 */
public final class FreeRunning {
  /** One tick of the model on Kafka's clocks, in milliseconds: the one mapping. */
  static final long TICK_MS = 150;
  /** Each story's runs. */
  static final int RUNS = 3;

  private static final ObjectMapper JSON = new ObjectMapper();
  /** How long Kafka's group may take to form at tick 1, and a JVM to come up. */
  private static final long SETTLE_TIMEOUT_MS = 30_000;
  /**
   * {@code metadata.max.age.ms} of the producer, and of the consumers of a group without {@code
   * metadata_max_age_ticks}: the model's clients see new partitions at once, Kafka's at their next
   * refresh; a tick is the closest.
   */
  private static final long METADATA_MAX_AGE_MS = TICK_MS;

  // ------------------------------------------------------------------ the table of claims

  /** How a counter is compared. */
  enum How {
    /** The same number. */
    EXACT,
    /** Both zero, or both not. */
    ZERO_OR_NOT,
    /** Both within [lo, hi]. */
    WITHIN,
    /** The same set of consumers (`c1`…). */
    SAME_MEMBERS
  }

  /** One counter of a story, and how Kafka's value must agree with the model's. */
  record Claim(String counter, How how, long lo, long hi) {
    static Claim exact(String counter) {
      return new Claim(counter, How.EXACT, 0, 0);
    }

    static Claim zeroOrNot(String counter) {
      return new Claim(counter, How.ZERO_OR_NOT, 0, 0);
    }

    static Claim within(String counter, long lo, long hi) {
      return new Claim(counter, How.WITHIN, lo, hi);
    }

    static Claim sameMembers(String counter) {
      return new Claim(counter, How.SAME_MEMBERS, 0, 0);
    }

    String described() {
      return switch (how) {
        case EXACT -> "exact";
        case ZERO_OR_NOT -> "zero or not";
        case WITHIN -> "within [" + lo + ", " + hi + "]";
        case SAME_MEMBERS -> "same members";
      };
    }

    boolean agrees(Object model, Object kafka) {
      return switch (how) {
        case EXACT, SAME_MEMBERS -> String.valueOf(model).equals(String.valueOf(kafka));
        case ZERO_OR_NOT -> (((Long) model) == 0) == (((Long) kafka) == 0);
        case WITHIN -> inside((Long) model) && inside((Long) kafka);
      };
    }

    private boolean inside(long v) {
      return lo <= v && v <= hi;
    }
  }

  /**
   * A story: a built-in, whether the subset runs it, the ticks (if any) whose length is
   * stretched so that the group's offsets retention lasts the broker's minimum, whether its runs
   * go at once, and its claims.
   */
  record Story(String name, boolean subset, int slowFrom, int slowTo, boolean together, List<Claim> claims) {
    static Story of(String name, boolean subset, Claim... claims) {
      return new Story(name, subset, 0, 0, false, List.of(claims));
    }
  }

  /**
   * The stories and what each claims. The counters are the model's (`offsetlab run --json`, its
   * group's `metrics`) or, on Kafka's side, what the application and the logs saw: {@code
   * duplicates} (deliveries of a record the group handled before), {@code delivered}, {@code
   * never_processed} (records below the group's committed offset at the end that nobody handled),
   * {@code skipped_by_reset} (records below where {@code auto.offset.reset} put a partition without
   * a committed offset that nobody handled), {@code commit_failed} ({@link
   * org.apache.kafka.clients.consumer.CommitFailedException}s), {@code commits} (commits that
   * succeeded, auto-commits included; the model's {@code commit_requests}), {@code
   * members_left_poll_timeout} (the client's "consumer poll timeout has expired"), {@code
   * generation} (the last generation a member was assigned in, by time; the group epoch on the
   * consumer protocol), {@code offsets_expired} (1 when the group had no committed offset left when
   * its consumers started again), {@code commits_during_rebalance} (each commit, by consumer and
   * partitions, from the first consumer started after tick 0 to the group's last assignment; on
   * Kafka a ConsumerInterceptor's), {@code polls_commit_to_revoke} (the polls with records of the
   * member that committed first in that span, past that commit and before it gave up partitions:
   * the model's fetches by tick up to its partitions-revoked rebalance), and the members that left
   * on their poll timeout ({@code left_on_poll_timeout}) or whose session expired ({@code
   * session_expired}: the coordinator's log). Bounds: the story's mechanism below, at most twice
   * the model's value above (ticks are not milliseconds: Kafka's rejoins and rebalances take their
   * own time, so counts of generations, leaves and replays differ by run).
   */
  static final List<Story> STORIES =
      List.of(
          Story.of(
              "slow-handler-poll-timeout",
              true,
              Claim.zeroOrNot("commit_failed"),
              Claim.zeroOrNot("members_left_poll_timeout"),
              Claim.zeroOrNot("duplicates"),
              Claim.zeroOrNot("never_processed"),
              Claim.exact("skipped_by_reset"),
              Claim.sameMembers("left_on_poll_timeout"),
              Claim.sameMembers("session_expired"),
              // A member left and joined again: the first generation, one without it, one with.
              Claim.within("generation", 3, 18)),
          Story.of(
              "rebalance-storm",
              false,
              Claim.exact("commits"),
              Claim.within("commit_failed", 3, 24),
              Claim.within("members_left_poll_timeout", 3, 24),
              Claim.within("duplicates", 100, 424),
              Claim.zeroOrNot("never_processed"),
              Claim.sameMembers("left_on_poll_timeout"),
              Claim.sameMembers("session_expired"),
              Claim.within("generation", 6, 18)),
          Story.of(
              "zombie-commit-refused",
              false,
              Claim.exact("commit_failed"),
              Claim.exact("duplicates"),
              Claim.zeroOrNot("never_processed"),
              Claim.exact("members_left_poll_timeout"),
              Claim.sameMembers("session_expired"),
              // c1 expired and joined again.
              Claim.within("generation", 3, 6)),
          Story.of(
              "kip848-stalled-member-fenced",
              false,
              Claim.zeroOrNot("commit_failed"),
              Claim.zeroOrNot("duplicates"),
              Claim.zeroOrNot("never_processed"),
              Claim.exact("members_left_poll_timeout"),
              Claim.sameMembers("session_expired"),
              // Two joins (epoch 3), c1 fenced, c1 joined again.
              Claim.within("generation", 5, 10)),
          Story.of(
              "new-group-latest-skips",
              true,
              Claim.exact("skipped_by_reset"),
              Claim.exact("delivered"),
              Claim.zeroOrNot("duplicates"),
              Claim.exact("never_processed"),
              Claim.zeroOrNot("commit_failed"),
              Claim.sameMembers("session_expired"),
              Claim.within("generation", 1, 2)),
          // Full mode only: the broker's offsets.retention.minutes is at least 1, so the 25 ticks
          // the group is empty (17 to 42, its retention 20) last 75 s here.
          new Story(
              "offsets-expired",
              false,
              17,
              42,
              true,
              List.of(
                  Claim.exact("offsets_expired"),
                  Claim.exact("skipped_by_reset"),
                  Claim.exact("delivered"),
                  Claim.zeroOrNot("duplicates"),
                  Claim.exact("never_processed"),
                  Claim.zeroOrNot("commit_failed"),
                  // Started and emptied; once its offsets expired the coordinator deleted the
                  // group, so the restarted consumers make a new one: generation 1 (2 when they
                  // join in two generations).
                  Claim.within("generation", 1, 2))),
          Story.of(
              "crash-commit-after",
              false,
              // What c1 handled since its last commit: at most its batch of 5.
              Claim.within("duplicates", 1, 5),
              Claim.zeroOrNot("never_processed"),
              Claim.sameMembers("session_expired"),
              Claim.exact("members_left_poll_timeout"),
              Claim.within("generation", 2, 4)),
          Story.of(
              "crash-commit-before",
              false,
              // What c1 committed and had not handled: at most its batch of 5.
              Claim.within("never_processed", 1, 5),
              Claim.exact("duplicates"),
              Claim.sameMembers("session_expired"),
              Claim.exact("members_left_poll_timeout"),
              Claim.within("generation", 2, 4)),
          Story.of(
              "commit-on-timer",
              false,
              // What c1 handled since its last auto-commit: at most 10 ticks' worth and a batch.
              Claim.within("duplicates", 1, 18),
              Claim.zeroOrNot("never_processed"),
              Claim.sameMembers("session_expired"),
              Claim.exact("members_left_poll_timeout"),
              Claim.within("generation", 2, 4)),
          Story.of(
              "scale-out-cooperative",
              false,
              // What c3 handled since its last commit (at most its batch of 6), and what the
              // members handled on a partition they give up while their commits were refused
              // (RebalanceInProgressException, from their JoinGroup to the SyncGroup's answer).
              Claim.within("duplicates", 0, 24),
              Claim.zeroOrNot("never_processed"),
              Claim.zeroOrNot("commit_failed"),
              Claim.sameMembers("session_expired"),
              Claim.exact("members_left_poll_timeout"),
              // The crash, the joins, the cooperative second round.
              Claim.within("generation", 3, 6)),
          Story.of(
              "partitions-added-latest-skips",
              false,
              // P3's records written before the rebalance that gives it out, which starts at the
              // leader's metadata refresh (metadata.max.age.ms, 30 ticks after the full update
              // of its first poll, at most 4 ticks before tick 1 when the group forms within 600
              // ms: tick 27 at the earliest) and ends once both members rejoined, each at its
              // poll after its batch (4 records of a tick each): by tick 42 at the latest. P3's
              // records of ticks 13 to 26: 9; of ticks 13 to 41: 16 (the next is at tick 45).
              Claim.within("skipped_by_reset", 9, 16),
              Claim.within("never_processed", 9, 16),
              Claim.zeroOrNot("duplicates"),
              Claim.zeroOrNot("commit_failed"),
              Claim.sameMembers("session_expired"),
              Claim.exact("members_left_poll_timeout"),
              // The first generation, and the one the leader's rejoin makes.
              Claim.within("generation", 2, 4)),
          Story.of(
              "auto-commit-on-rebalance",
              false,
              // c1's auto-commit at its JoinGroup when c2 joins (all four partitions), then at
              // its rejoin after revoking two (the two it keeps); its timer is 50 ticks.
              Claim.exact("commits_during_rebalance"),
              // The batches c1 handled past that commit before revoking: Kafka's poll() takes
              // one step of the rebalance each (the commit's answer, then the JoinGroup's, then
              // the SyncGroup's): 3, or 2 when the JoinGroup's answer comes back within the poll
              // that sent it (c2 had joined already, and the loopback broker answers at once).
              Claim.within("polls_commit_to_revoke", 2, 3),
              // What c1 handled of the two partitions it gives up in those batches: three polls
              // of at most 8 records on Kafka.
              Claim.within("duplicates", 1, 24),
              // The two at the JoinGroups, and each member's timer from its last join: one or two
              // each before tick 140.
              Claim.within("commits", 4, 6),
              Claim.exact("never_processed"),
              Claim.zeroOrNot("commit_failed"),
              Claim.sameMembers("session_expired"),
              Claim.exact("members_left_poll_timeout"),
              // c2's join and c1's rejoin after its revocation.
              Claim.within("generation", 3, 6)),
          Story.of(
              "poison-dead-lettered",
              false,
              // The application's policy is this harness's code (FreeConsumer: two retries in
              // place, then DeadLetterPublishingRecoverer's record); Kafka's part is the real
              // topics, the commit past the record, and where each record lands: the poison
              // record on orders.DLT's same partition, keyed as the original, its headers naming
              // its source, and nothing left behind.
              Claim.exact("dead_lettered"),
              Claim.exact("dead_letters"),
              Claim.exact("never_processed"),
              Claim.zeroOrNot("duplicates"),
              Claim.exact("members_left_poll_timeout")),
          Story.of(
              "retry-topic-reorders",
              false,
              // Spring Kafka's non-blocking retries (the harness's code): the record that fails
              // once goes to orders-retry-1 and comes back 4 ticks later, after the next record of
              // its key was handled from the topic: out of key order, nothing lost or doubled.
              Claim.exact("sent_to_retry"),
              Claim.exact("out_of_key_order"),
              Claim.exact("dead_lettered"),
              Claim.exact("never_processed"),
              Claim.zeroOrNot("duplicates")));

  // ------------------------------------------------------------------ the program

  private final String bootstrap;
  private final String offsetlab;
  private final Path brokerLog;
  private final Path scenarios;
  private final Path logs;
  private final long initialDelayMs;
  private final long retentionMs;
  private final Admin admin;
  private final boolean setpriv = Transactions.onPath("setpriv");
  /** Every consumer JVM started, killed at the end whatever happened. */
  private final List<Jvm> started = Collections.synchronizedList(new ArrayList<>());

  private FreeRunning(Map<String, String> opts, Path logs) {
    this.bootstrap = opts.get("bootstrap");
    this.offsetlab = opts.get("offsetlab");
    this.brokerLog = Path.of(opts.get("broker-log"));
    this.scenarios = Path.of(opts.getOrDefault("scenarios", "crates/engine/scenarios"));
    this.logs = logs;
    this.initialDelayMs = Long.parseLong(opts.get("initial-rebalance-delay-ms"));
    this.retentionMs = Long.parseLong(opts.get("offsets-retention-ms"));
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(props);
  }

  public static void main(String[] args) {
    Map<String, List<String>> all = DriverArgs.forDriver("FreeRunning",
        "--bootstrap HOST:PORT --offsetlab BIN --broker-log FILE --initial-rebalance-delay-ms MS --offsets-retention-ms MS"
            + " [--subset] [--story NAME]... [--runs N] [--scenarios DIR] --out FILE.json",
        args);
    Map<String, String> opts = DriverArgs.last(all);
    for (String required : List.of("broker-log", "initial-rebalance-delay-ms", "offsets-retention-ms")) {
      if (!opts.containsKey(required)) {
        System.err.println("FreeRunning: missing --" + required);
        System.exit(2);
      }
    }
    Path out = Path.of(opts.get("out"));
    Path logs = out.toAbsolutePath().resolveSibling("free-running");
    boolean subset = opts.containsKey("subset");
    List<String> only = all.getOrDefault("story", List.of());
    List<String> names = STORIES.stream().map(Story::name).toList();
    for (String name : only) {
      if (!names.contains(name)) {
        System.err.println("FreeRunning: no story `" + name + "`; the stories: " + String.join(", ", names));
        System.exit(2);
      }
    }
    int runs = Integer.parseInt(opts.getOrDefault("runs", Integer.toString(RUNS)));
    ArrayNode entries = JSON.createArrayNode();
    int code = 0;
    FreeRunning driver = new FreeRunning(opts, logs);
    Runtime.getRuntime().addShutdownHook(new Thread(driver::killAll));
    try {
      Files.createDirectories(logs);
      for (Story story : STORIES) {
        // Stories named with --story run whether or not the subset has them.
        if (only.isEmpty() ? subset && !story.subset : !only.contains(story.name)) {
          continue;
        }
        long start = System.nanoTime();
        ObjectNode entry = driver.compare(story, runs);
        System.out.printf("%-30s %-12s %5.1f s  %s%n", story.name, entry.path("result").asText(), (System.nanoTime() - start) / 1e9,
            entry.path("detail").asText());
        entries.add(entry);
      }
    } catch (Exception e) {
      System.err.println("FreeRunning: the harness failed: " + e);
      e.printStackTrace();
      code = 1;
    } finally {
      driver.killAll();
      driver.admin.close();
    }
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(entries));
    } catch (IOException e) {
      System.err.println("FreeRunning: cannot write " + out + ": " + e.getMessage());
      code = 1;
    }
    System.exit(code);
  }

  /** Every JVM this program started, continued and killed. */
  private void killAll() {
    List<Jvm> all;
    synchronized (started) {
      all = List.copyOf(started);
    }
    for (Jvm jvm : all) {
      jvm.kill();
    }
  }

  /** One story: the model's run, then RUNS runs on Kafka, each compared claim by claim. */
  private ObjectNode compare(Story story, int runs) throws Exception {
    JsonNode model = Scenarios.offsetlab(offsetlab, List.of("run", story.name, "--json", "--events"), null, false);
    JsonNode scenario = JSON.readTree(scenarios.resolve(story.name + ".json").toFile());
    ObjectNode entry = JSON.createObjectNode();
    entry.put("name", story.name + " (free-running)");
    entry.put("kind", "scenario");
    JsonNode group = model.path("config").path("groups").get(0);
    // The model completes a rebalance a tick after it starts at the earliest, gathering every
    // join of that tick. Kafka's InitialDelayedJoin waits its delay, then once more since members
    // joined meanwhile: a fifth of a tick makes the joins of one moment one generation.
    long ticks = group.path("initial_rebalance_delay_ticks").asLong();
    long delayMs = ticks == 0 ? TICK_MS / 5 : ticks * TICK_MS;
    if (delayMs != initialDelayMs) {
      entry.put("result", "out-of-scope");
      entry.put("cases", 0);
      entry.put("detail", "its initial rebalance delay is " + delayMs + " ms; the free-running broker's is " + initialDelayMs + " ms");
      return entry;
    }
    Map<String, Object> modelValues = modelCounters(model);
    List<Run> all = new ArrayList<>();
    for (int r = 1; r <= runs; r++) {
      all.add(new Run(story, model, scenario, r));
    }
    // Every run's consumer JVMs start together, before any run is told. From this thread: the
    // kernel signals a JVM started through `setpriv --pdeathsig` when the thread that started it
    // ends.
    for (Run run : all) {
      run.setUpCatching();
    }
    for (Run run : all) {
      run.prepareCatching();
    }
    if (story.together) {
      // The runs at once, each on its own topic and group: the story is long (its empty
      // stretch), and nothing in it is shorter than a second.
      together(all, Run::tellCatching);
    } else {
      for (Run run : all) {
        run.tellCatching();
      }
    }
    for (Run run : all) {
      if (run.failure != null) {
        throw new IOException(story.name + " run " + run.number + " failed: " + run.failure, run.failure);
      }
    }
    List<Run> done = all;
    // Claim by claim, run by run.
    List<String> differences = new ArrayList<>();
    StringBuilder table = new StringBuilder();
    table.append(String.format("%-28s %-18s %-14s", "counter", "compared", "model"));
    for (Run run : done) {
      table.append(String.format(" %-14s", "Kafka run " + run.number));
    }
    table.append('\n');
    int cases = 0;
    for (Claim claim : story.claims) {
      Object m = modelValues.get(claim.counter);
      if (m == null) {
        throw new IOException(story.name + ": the model has no counter " + claim.counter);
      }
      table.append(String.format("%-28s %-18s %-14s", claim.counter, claim.described(), m));
      for (Run run : done) {
        Object k = run.counters.get(claim.counter);
        boolean agrees = k != null && claim.agrees(m, k);
        cases++;
        if (!agrees) {
          differences.add("run " + run.number + " " + claim.counter + " (" + claim.described() + "): model " + m + ", Kafka " + k);
        }
        table.append(String.format(" %-14s", k + (agrees ? "" : " ≠")));
      }
      table.append('\n');
    }
    if (story.claims.stream().noneMatch(c -> c.counter.equals("delivered"))) {
      table.append(String.format("%-28s %-18s %-14s", "delivered", "(shown)", modelValues.get("delivered")));
      for (Run run : done) {
        table.append(String.format(" %-14s", run.counters.get("delivered")));
      }
      table.append('\n');
    }
    for (Run run : done) {
      table.append("run ").append(run.number).append(": ").append(run.notes()).append('\n');
    }
    entry.put("result", differences.isEmpty() ? "equal" : "different");
    entry.put("cases", cases);
    String how = runs + " runs at " + TICK_MS + " ms a tick" + (story.slowTo > story.slowFrom ? " (ticks " + story.slowFrom + "–" + story.slowTo
        + " at " + slowTickMs(story, model) + " ms)" : "");
    entry.put(
        "detail",
        differences.isEmpty()
            ? how + ": " + story.claims.size() + " claims × " + runs + " runs agree (" + summary(story, modelValues, done) + ")"
            : how + ": " + differences.size() + " of " + cases + " differ; first: " + differences.get(0));
    for (String difference : differences) {
      table.append("  ≠ ").append(difference).append('\n');
    }
    entry.put("table", table.toString());
    return entry;
  }

  private static String summary(Story story, Map<String, Object> model, List<Run> runs) {
    StringBuilder out = new StringBuilder();
    for (Claim claim : story.claims) {
      if (out.length() > 0) {
        out.append("; ");
      }
      out.append(claim.counter).append(' ').append(model.get(claim.counter)).append(" vs");
      for (Run run : runs) {
        out.append(' ').append(run.counters.get(claim.counter));
      }
    }
    return out.toString();
  }

  /** `step` for each run, each in a thread of its own, all at once. */
  private static void together(List<Run> runs, java.util.function.Consumer<Run> step) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (Run run : runs) {
      Thread t = new Thread(() -> step.accept(run), run.story.name + "-run-" + run.number);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  /** A tick's length inside the story's stretch: its group's offsets retention is the broker's. */
  private long slowTickMs(Story story, JsonNode model) {
    long retentionTicks = model.path("config").path("groups").get(0).path("offsets_retention_ticks").asLong(0);
    if (story.slowTo <= story.slowFrom || retentionTicks == 0) {
      return TICK_MS;
    }
    return retentionMs / retentionTicks;
  }

  /** The model's counters: its group's metrics, and the members that left and why. */
  private static Map<String, Object> modelCounters(JsonNode model) {
    Map<String, Object> out = new TreeMap<>();
    JsonNode metrics = model.path("groups").get(0).path("metrics");
    metrics.fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue().asLong()));
    out.put("commits", metrics.path("commit_requests").asLong());
    Set<String> pollTimeout = new TreeSet<>();
    Set<String> expired = new TreeSet<>();
    long offsetsExpired = 0;
    for (JsonNode e : model.path("events")) {
      switch (e.path("event").asText()) {
        case "member-left" -> {
          if (e.path("reason").asText().contains("poll timeout")) {
            pollTimeout.add(e.path("consumer").asText());
          }
        }
        case "session-expired" -> expired.add(e.path("consumer").asText());
        case "offsets-expired" -> offsetsExpired = 1;
        default -> {}
      }
    }
    List<String> letters = new ArrayList<>();
    for (JsonNode d : model.path("dead_letters")) {
      JsonNode l = d.path("letter");
      letters.add("P" + d.path("partition").asInt() + "@" + d.path("offset").asLong() + " user-" + l.path("subject").asInt()
          + " from P" + l.path("source_partition").asInt() + "@" + l.path("source_offset").asLong());
    }
    Collections.sort(letters);
    out.put("dead_letters", letters.isEmpty() ? "none" : String.join(", ", letters));
    out.put("left_on_poll_timeout", pollTimeout);
    out.put("session_expired", expired);
    out.put("offsets_expired", offsetsExpired);
    // The commits from the first consumer started after tick 0 to the group's last assignment.
    long joinedAt = Long.MAX_VALUE;
    long lastAssignment = -1;
    for (JsonNode e : model.path("events")) {
      switch (e.path("event").asText()) {
        case "started" -> {
          if (e.path("tick").asLong() > 0) {
            joinedAt = Math.min(joinedAt, e.path("tick").asLong());
          }
        }
        case "rebalance-completed" -> lastAssignment = e.path("tick").asLong();
        default -> {}
      }
    }
    List<String> during = new ArrayList<>();
    for (JsonNode e : model.path("events")) {
      long tick = e.path("tick").asLong();
      if (e.path("event").asText().equals("committed") && joinedAt <= tick && tick <= lastAssignment) {
        List<Integer> partitions = new ArrayList<>();
        e.path("offsets").forEach(o -> partitions.add(o.get(0).asInt()));
        during.add(e.path("consumer").asText() + " " + new TreeSet<>(partitions));
      }
    }
    out.put("commits_during_rebalance", during.isEmpty() ? "none" : String.join(", ", during));
    // The polls with records of the member that committed first after the join, from that commit
    // to the rebalance its revocation starts (a cooperative member's partitions-revoked).
    JsonNode commit = null;
    long revokedAt = -1;
    for (JsonNode e : model.path("events")) {
      long tick = e.path("tick").asLong();
      if (commit == null && e.path("event").asText().equals("committed") && tick >= joinedAt) {
        commit = e;
      } else if (commit != null && revokedAt < 0 && e.path("event").asText().equals("rebalance-started")
          && e.path("reason").asText().equals("partitions-revoked")) {
        revokedAt = tick;
      }
    }
    Set<Long> polls = new TreeSet<>();
    if (commit != null && revokedAt >= 0) {
      Map<Integer, Long> committed = new HashMap<>();
      commit.path("offsets").forEach(o -> committed.put(o.get(0).asInt(), o.get(1).asLong()));
      for (JsonNode e : model.path("events")) {
        long tick = e.path("tick").asLong();
        if (e.path("event").asText().equals("fetched") && e.path("consumer").asText().equals(commit.path("consumer").asText())
            && commit.path("tick").asLong() <= tick && tick < revokedAt
            && e.path("from").asLong() >= committed.getOrDefault(e.path("partition").asInt(), Long.MAX_VALUE)) {
          polls.add(tick);
        }
      }
    }
    out.put("polls_commit_to_revoke", (long) polls.size());
    return out;
  }

  // ------------------------------------------------------------------ one run

  /** One run of a story on Kafka: its own topic and group. */
  private final class Run {
    final Story story;
    final JsonNode model;
    final JsonNode config;
    final JsonNode group;
    final JsonNode scenario;
    final int number;
    final String topic;
    final String groupName;
    final long slowTick;
    final Map<String, Object> counters = new TreeMap<>();
    Exception failure;
    /** Consumer name → its JVMs, in start order (a restart is a new JVM). */
    final Map<String, List<Jvm>> consumers = new LinkedHashMap<>();
    final List<Jvm> warm = new ArrayList<>();
    final Set<Jvm> stopped = new HashSet<>();
    /** Produced records: "partition:offset" → record id. */
    final Map<String, String> produced = new HashMap<>();
    /** Produced records' keys: record id → its user (the key's subject). */
    final Map<String, Integer> subjects = new HashMap<>();
    int recordsPerPoll;
    /** The topic's partitions now. */
    int partitions;
    /** When the first consumer started after tick 0 (ms since the epoch), 0 if none did. */
    long joinedAtMs;
    /** Records Kafka's partitioner put elsewhere than the model's. */
    long misplaced;
    int maxPollRecords;
    long originMs;
    long formedMs;
    long endedLateMs;
    final List<String> notes = new ArrayList<>();
    KafkaProducer<String, String> producer;
    Boolean offsetsGoneAtRestart;

    Run(Story story, JsonNode model, JsonNode scenario, int number) {
      this.story = story;
      this.model = model;
      this.config = model.path("config");
      this.group = config.path("groups").get(0);
      this.scenario = scenario;
      this.number = number;
      this.topic = "fr-" + story.name + "-" + number;
      this.groupName = "fr-" + story.name + "-" + number;
      this.slowTick = slowTickMs(story, model);
    }

    /** {@link #setUp}; a failure is kept, and the run's JVMs killed. */
    void setUpCatching() {
      try {
        setUp();
      } catch (Exception e) {
        failure = e;
        cleanUp();
      }
    }

    /** {@link #prepareAll} once set up; a failure is kept, and the run's JVMs killed. */
    void prepareCatching() {
      if (failure != null) {
        return;
      }
      try {
        prepareAll();
      } catch (Exception e) {
        failure = e;
        cleanUp();
      }
    }

    /** Every consumer of the run, in the order they start. */
    final List<String> names = new ArrayList<>();

    /** {@link #tell} once set up; the run's JVMs killed after, whatever happened. */
    void tellCatching() {
      if (failure != null) {
        return;
      }
      try {
        tell();
      } catch (Exception e) {
        failure = e;
      } finally {
        cleanUp();
      }
    }

    /** The timeline's inputs by tick, the model's sends by tick, and the story's last tick. */
    final TreeMap<Integer, List<JsonNode>> inputs = new TreeMap<>();
    final TreeMap<Integer, List<JsonNode>> sends = new TreeMap<>();
    int ticks;

    /** When tick `t` falls, in ms after the origin. */
    long at(int t) {
      int slow = Math.max(0, Math.min(t, story.slowTo) - story.slowFrom);
      return t * TICK_MS + slow * (slowTick - TICK_MS);
    }

    /** The tick (fractional) that `wallMs` falls in: {@link #at} inverted. */
    double tickOf(long wallMs) {
      double ms = wallMs - originMs;
      double slowStart = at(story.slowFrom);
      double slowEnd = at(story.slowTo);
      if (story.slowTo <= story.slowFrom || ms <= slowStart) {
        return ms / TICK_MS;
      }
      if (ms <= slowEnd) {
        return story.slowFrom + (ms - slowStart) / slowTick;
      }
      return story.slowTo + (ms - slowEnd) / TICK_MS;
    }

    /** The topic, the group's settings, the timeline, and every consumer JVM of the run started. */
    void setUp() throws Exception {
      partitions = config.path("partitions").asInt();
      List<NewTopic> topics = new ArrayList<>(List.of(new NewTopic(topic, partitions, (short) 1)));
      // The application's dead-letter and retry topics: as many partitions as the topic, since a
      // failed record goes to its own partition number (DeadLetterPublishingRecoverer's default).
      String policy = group.path("error_policy").path("policy").asText("skip");
      if (!policy.equals("skip")) {
        topics.add(new NewTopic(dltTopic(), partitions, (short) 1));
        for (String retry : retryTopics()) {
          topics.add(new NewTopic(retry, partitions, (short) 1));
        }
      }
      admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
      String protocol = group.path("protocol").asText("classic");
      if (protocol.equals("consumer")) {
        // The consumer protocol's session and heartbeats are the group's, set on the broker.
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, groupName);
        admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry("consumer.session.timeout.ms", Long.toString(ticks("session_timeout_ticks"))), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry("consumer.heartbeat.interval.ms", Long.toString(ticks("heartbeat_interval_ticks"))), AlterConfigOp.OpType.SET))))
            .all().get(30, TimeUnit.SECONDS);
      }
      // The timeline: what the scenario says, at its ticks.
      int processes = group.path("consumers").asInt();
      recordsPerPoll = Math.max(1, group.path("records_per_poll").asInt(1));
      maxPollRecords = recordsPerPoll;
      for (JsonNode item : scenario.path("timeline")) {
        JsonNode input = item.path("input");
        String what = input.path("do").asText();
        switch (what) {
          case "send", "keep-sending", "send-poison", "send-failing" -> {
            continue; // the records are the model's producer's sends, below (a failing one marked)
          }
          case "add-consumer", "start" -> processes++;
          case "records-per-poll" -> maxPollRecords = Math.max(maxPollRecords, input.path("records").asInt());
          case "crash", "stall", "stop", "add-partitions" -> {}
          default -> throw new IOException(story.name + ": no free-running form for the input `" + what + "`");
        }
        inputs.computeIfAbsent(item.path("tick").asInt(), k -> new ArrayList<>()).add(input);
      }
      ticks = model.path("tick").asInt();
      for (JsonNode e : model.path("events")) {
        if (e.path("event").asText().equals("produced") && e.path("tick").asInt() < ticks) {
          sends.computeIfAbsent(e.path("tick").asInt(), k -> new ArrayList<>()).add(e);
        }
      }
      // Every consumer process of the story, in the order they start, made ready ahead.
      for (int i = 1; i <= group.path("consumers").asInt(); i++) {
        names.add("c" + i);
      }
      int added = group.path("consumers").asInt();
      for (List<JsonNode> tick : inputs.values()) {
        for (JsonNode input : tick) {
          switch (input.path("do").asText()) {
            case "add-consumer" -> names.add("c" + ++added);
            case "start" -> names.add(input.path("consumer").asText());
            default -> {}
          }
        }
      }
      if (names.size() != processes) {
        throw new IOException(story.name + ": " + names.size() + " consumer starts planned, " + processes + " counted");
      }
      warm.addAll(launch(processes));
    }

    /** Once its JVMs are up, each is told which consumer it is and made ready to start. */
    void prepareAll() throws Exception {
      waitFor("the consumer JVMs to start", SETTLE_TIMEOUT_MS, () -> warm.stream().allMatch(j -> j.ready() || !j.alive()));
      for (Jvm jvm : warm) {
        if (!jvm.alive()) {
          throw new IOException("a consumer JVM exited at start; see " + jvm.log);
        }
      }
      for (int i = 0; i < warm.size(); i++) {
        prepare(warm.get(i), names.get(i));
      }
      waitFor("the consumers to be prepared", SETTLE_TIMEOUT_MS, () -> warm.stream().allMatch(j -> j.said("prepared") || !j.alive()));
      for (Jvm jvm : warm) {
        if (!jvm.alive()) {
          throw new IOException("a consumer JVM exited before it was ready; see " + jvm.log);
        }
      }
    }

    /** The story in real time, then Kafka's counters. */
    void tell() throws Exception {
      String protocol = group.path("protocol").asText("classic");
      Properties props = new Properties();
      props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ProducerConfig.ACKS_CONFIG, "all");
      props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
      props.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, Long.toString(METADATA_MAX_AGE_MS));
      props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producer = new KafkaProducer<>(props);

      // Tick 0: its records, then its consumers; tick 1 once Kafka's group has formed.
      send(sends.getOrDefault(0, List.of()));
      int initial = group.path("consumers").asInt();
      long begin = System.currentTimeMillis();
      for (int i = 1; i <= initial; i++) {
        start("c" + i);
        if (protocol.equals("consumer")) {
          // One at a time, each once the one before is a member: the coordinator's join order is
          // then the model's (the first member takes every partition; a later one waits for
          // them). A classic group's initial delay gathers them in one generation instead.
          Jvm jvm = last("c" + i);
          waitFor("c" + i + "'s first assignment", SETTLE_TIMEOUT_MS, () -> jvm.said("assigned"));
        }
      }
      int nextConsumer = initial + 1;
      if (initial > 0) {
        waitFor("the group's first generation", SETTLE_TIMEOUT_MS, this::formed);
        formedMs = System.currentTimeMillis() - begin;
        originMs = System.currentTimeMillis() - TICK_MS;
      } else {
        originMs = begin;
      }
      for (JsonNode input : inputs.getOrDefault(0, List.of())) {
        nextConsumer = input(input, 0, nextConsumer, inputs);
      }
      TreeSet<Integer> due = new TreeSet<>();
      due.addAll(sends.keySet());
      due.addAll(inputs.keySet());
      due.add(ticks);
      for (Integer t = due.higher(0); t != null; t = due.higher(t)) {
        sleepUntil(originMs + at(t));
        if (t >= ticks) {
          break;
        }
        send(sends.getOrDefault(t, List.of()));
        for (JsonNode input : new ArrayList<>(inputs.getOrDefault(t, List.of()))) {
          nextConsumer = input(input, t, nextConsumer, inputs);
        }
        // A stall adds its end to the inputs.
        due.addAll(inputs.keySet());
      }
      endedLateMs = System.currentTimeMillis() - (originMs + at(ticks));
      finish();
    }

    /** The application's dead-letter topic: Spring Kafka's `<topic>.DLT`, as the model's `orders.DLT`. */
    String dltTopic() {
      return topic + ".DLT";
    }

    /** The application's retry topics, `<topic>-retry-1`…, as the model's `orders-retry-N`. */
    List<String> retryTopics() {
      JsonNode policy = group.path("error_policy");
      List<String> names = new ArrayList<>();
      if (policy.path("policy").asText().equals("retry-topics")) {
        for (int level = 1; level <= policy.path("levels").asInt(); level++) {
          names.add(topic + "-retry-" + level);
        }
      }
      return names;
    }

    /** A setting in ticks, in ms. */
    long ticks(String field) {
      return group.path(field).asLong() * TICK_MS;
    }

    /** Plays one input of tick `t`: the next consumer's number after it. */
    int input(JsonNode input, int t, int next, TreeMap<Integer, List<JsonNode>> inputs) throws Exception {
      String consumer = input.path("consumer").asText();
      String what = input.path("do").asText();
      if (t > 0 && joinedAtMs == 0 && (what.equals("add-consumer") || what.equals("start"))) {
        joinedAtMs = System.currentTimeMillis();
      }
      switch (what) {
        case "add-consumer" -> {
          start("c" + next);
          return next + 1;
        }
        case "start" -> {
          if (config.path("groups").get(0).has("offsets_retention_ticks")) {
            Map<TopicPartition, OffsetAndMetadata> left =
                admin.listConsumerGroupOffsets(groupName).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            boolean gone = left.values().stream().allMatch(o -> o == null);
            offsetsGoneAtRestart = offsetsGoneAtRestart == null ? gone : offsetsGoneAtRestart || gone;
          }
          start(consumer);
        }
        case "stop" -> last(consumer).send(JSON.createObjectNode().put("op", "close"));
        case "crash" -> last(consumer).kill();
        case "stall" -> {
          Jvm jvm = last(consumer);
          signal(jvm, "STOP");
          int until = t + input.path("ticks").asInt();
          inputs.computeIfAbsent(until, k -> new ArrayList<>()).add(JSON.createObjectNode().put("do", "wake").put("consumer", consumer));
        }
        case "wake" -> signal(last(consumer), "CONT");
        case "add-partitions" -> {
          int to = partitions + input.path("count").asInt();
          admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(to))).all().get(30, TimeUnit.SECONDS);
          partitions = to;
          // The model's producer sees them at once: the sends after this go by the new count (the
          // producer's metadata is a tick old at most). The consumers see them at their refresh.
          waitFor("the producer to see " + to + " partitions", SETTLE_TIMEOUT_MS, () -> producer.partitionsFor(topic).size() == to);
        }
        case "records-per-poll" -> {
          recordsPerPoll = input.path("records").asInt();
          for (List<Jvm> jvms : consumers.values()) {
            Jvm jvm = jvms.get(jvms.size() - 1);
            if (jvm.alive()) {
              jvm.send(JSON.createObjectNode().put("op", "records_per_poll").put("records", recordsPerPoll));
            }
          }
        }
        default -> throw new IOException("no free-running form for " + input);
      }
      return next;
    }

    Jvm last(String consumer) throws IOException {
      List<Jvm> jvms = consumers.get(consumer);
      if (jvms == null) {
        throw new IOException(story.name + ": no consumer " + consumer);
      }
      return jvms.get(jvms.size() - 1);
    }

    /** The next prepared JVM, consumer `name`, starts: it joins the group. */
    void start(String name) throws Exception {
      if (warm.isEmpty() || !warm.get(0).name.equals(name)) {
        throw new IOException(story.name + ": " + name + " starts, but the next prepared consumer is " + (warm.isEmpty() ? "none" : warm.get(0).name));
      }
      Jvm jvm = warm.remove(0);
      consumers.computeIfAbsent(name, k -> new ArrayList<>()).add(jvm);
      jvm.goAt = System.currentTimeMillis();
      jvm.send(JSON.createObjectNode().put("op", "go"));
    }

    /** A warm JVM becomes consumer `name` of the group, made ready to start. */
    void prepare(Jvm jvm, String name) throws Exception {
      jvm.name = name;
      ObjectNode start = JSON.createObjectNode().put("op", "prepare");
      start.put("group", groupName);
      start.put("client_id", name);
      start.put("protocol", group.path("protocol").asText("classic"));
      start.put("assignor", Scenarios.assignorClass(group.path("assignor").asText()));
      start.put("session_timeout_ms", ticks("session_timeout_ticks"));
      start.put("heartbeat_interval_ms", ticks("heartbeat_interval_ticks"));
      start.put("max_poll_interval_ms", ticks("max_poll_interval_ticks"));
      start.put("max_poll_records", maxPollRecords);
      start.put("records_per_poll", recordsPerPoll);
      JsonNode reset = group.path("auto_offset_reset");
      if (!reset.isTextual()) {
        throw new IOException(story.name + ": no free-running form for auto_offset_reset " + reset);
      }
      start.put("auto_offset_reset", reset.asText());
      String mode = group.path("commit").path("mode").asText();
      start.put("commit", mode);
      if (mode.equals("auto")) {
        start.put("auto_commit_interval_ms", group.path("commit").path("interval_ticks").asLong() * TICK_MS);
      } else if (!List.of("after", "before", "each-record").contains(mode)) {
        throw new IOException(story.name + ": no free-running form for the commit mode " + mode);
      }
      start.put("handle_ms", TICK_MS / Math.max(1, group.path("handle_per_tick").asInt(1)));
      if (group.has("error_policy")) {
        start.set("error_policy", group.path("error_policy"));
        start.put("dlt_topic", dltTopic());
        ArrayNode retries = start.putArray("retry_topics");
        retryTopics().forEach(retries::add);
      }
      start.put("poll_ms", TICK_MS / 2);
      // A classic group's leader notices added partitions at its client's refresh.
      start.put("metadata_max_age_ms", group.has("metadata_max_age_ticks") ? ticks("metadata_max_age_ticks") : METADATA_MAX_AGE_MS);
      jvm.send(start);
    }

    /**
     * Every consumer started so far is a member: it has had its first assignment (a classic
     * generation, or a consumer-protocol epoch, whose partitions may still be on their way).
     */
    boolean formed() {
      return consumers.values().stream().allMatch(jvms -> jvms.get(jvms.size() - 1).said("assigned"));
    }

    void send(List<JsonNode> records) throws Exception {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      for (JsonNode e : records) {
        String key = "user-" + e.path("subject").asInt();
        String value = Long.toString(e.path("record_id").asLong());
        // A keyless record goes where the model put it (Kafka's keyless placement depends on
        // batching in time); a keyed one through the default partitioner.
        ProducerRecord<String, String> record = e.path("keyed").asBoolean()
            ? new ProducerRecord<>(topic, key, value)
            : new ProducerRecord<>(topic, e.path("partition").asInt(), key, value);
        // A record the model's handler fails on: always (poison), or its first N attempts.
        if (e.path("poison").asBoolean()) {
          record.headers().add("offsetlab-fails", "always".getBytes(StandardCharsets.UTF_8));
        } else if (e.path("fails_first").asInt() > 0) {
          record.headers().add("offsetlab-fails", e.path("fails_first").asText().getBytes(StandardCharsets.UTF_8));
        }
        subjects.put(value, e.path("subject").asInt());
        sent.add(producer.send(record));
      }
      producer.flush();
      for (int i = 0; i < sent.size(); i++) {
        RecordMetadata meta = sent.get(i).get(30, TimeUnit.SECONDS);
        produced.put(meta.partition() + ":" + meta.offset(), records.get(i).path("record_id").asText());
        if (meta.partition() != records.get(i).path("partition").asInt()) {
          misplaced++;
        }
      }
    }

    /** At the story's last tick: Kafka's counters, before anything is killed. */
    void finish() throws Exception {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(groupName).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      Integer groupEpoch = null;
      if (group.path("protocol").asText("classic").equals("consumer")) {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(groupName)).all().get(30, TimeUnit.SECONDS).get(groupName);
        groupEpoch = d.groupEpoch().orElse(null);
      }
      String broker = Files.readString(brokerLog, StandardCharsets.UTF_8);
      long delivered = 0;
      Set<String> seen = new HashSet<>();
      Set<String> handled = new HashSet<>();
      Set<String> parked = new HashSet<>();
      long commitFailed = 0;
      long commits = 0;
      long generation = 0;
      long lastAssignedAt = 0;
      long pollTimeouts = 0;
      Set<String> pollTimeoutMembers = new TreeSet<>();
      Map<String, String> memberIds = new HashMap<>();
      Map<Integer, Long> resets = new HashMap<>();
      List<String> resetNotes = new ArrayList<>();
      TreeMap<Long, List<String>> commitsAt = new TreeMap<>();
      List<String> errors = new ArrayList<>();
      for (Map.Entry<String, List<Jvm>> c : consumers.entrySet()) {
        for (Jvm jvm : c.getValue()) {
          for (JsonNode e : jvm.events()) {
            switch (e.path("event").asText()) {
              case "handled" -> {
                delivered++;
                seen.add(e.path("value").asText());
                handled.add(e.path("partition").asInt() + ":" + e.path("offset").asLong());
              }
              // Moved past but not lost: the application parked it on the dead-letter or a retry
              // topic (the model's never processed leaves these out too).
              case "dead-lettered", "sent-to-retry" -> parked.add(e.path("partition").asInt() + ":" + e.path("offset").asLong());
              case "commit-failed" -> commitFailed++;
              case "committed" -> {
                commits++;
                List<Integer> partitions = new ArrayList<>();
                e.path("offsets").fieldNames().forEachRemaining(p -> partitions.add(Integer.parseInt(p)));
                commitsAt.computeIfAbsent(e.path("at").asLong(), k -> new ArrayList<>()).add(c.getKey() + " " + new TreeSet<>(partitions));
              }
              case "assigned", "revoked" -> {
                // The generation of the last assignment: a group Kafka deleted and made again
                // counts from 1 again.
                if (e.path("event").asText().equals("assigned") && e.path("at").asLong() >= lastAssignedAt) {
                  lastAssignedAt = e.path("at").asLong();
                  generation = e.path("generation").asLong();
                }
                memberIds.put(e.path("member_id").asText(), c.getKey());
              }
              case "reset" -> {
                resets.merge(e.path("partition").asInt(), e.path("position").asLong(), Math::max);
                if (e.path("position").asLong() > 0) {
                  resetNotes.add(String.format(Locale.ROOT, "%s P%d to %d at tick %.1f", c.getKey(), e.path("partition").asInt(),
                      e.path("position").asLong(), tickOf(e.path("at").asLong())));
                }
              }
              case "commit-refused", "commit-error", "reset-unknown", "failed" -> errors.add(c.getKey() + " " + e.path("event").asText() + ": " + e.path("error").asText());
              default -> {}
            }
          }
          long lines = jvm.pollTimeouts();
          pollTimeouts += lines;
          if (lines > 0) {
            pollTimeoutMembers.add(c.getKey());
          }
        }
      }
      if (groupEpoch != null) {
        generation = groupEpoch;
      }
      // Records below where a reset put a partition that the group never handled.
      long skipped = 0;
      long never = 0;
      for (Map.Entry<String, String> r : produced.entrySet()) {
        String[] at = r.getKey().split(":");
        int partition = Integer.parseInt(at[0]);
        long offset = Long.parseLong(at[1]);
        if (handled.contains(r.getKey()) || parked.contains(r.getKey())) {
          continue;
        }
        Long reset = resets.get(partition);
        if (reset != null && offset < reset) {
          skipped++;
        }
        OffsetAndMetadata c = committed.get(new TopicPartition(topic, partition));
        if (c != null && offset < c.offset()) {
          never++;
        }
      }
      Set<String> expired = new TreeSet<>();
      List<String> removed = new ArrayList<>();
      Pattern classicExpired = Pattern.compile("Member (\\S+) in group " + Pattern.quote(groupName) + " has failed, removing it from the group");
      Pattern consumerExpired = Pattern.compile("\\[GroupId " + Pattern.quote(groupName) + "\\] Member (\\S+) fenced from the group because the member session expired");
      Pattern rebalanceTimeout = Pattern.compile("(?i)group " + Pattern.quote(groupName) + "\\b.*rebalance timeout|rebalance timeout.*group " + Pattern.quote(groupName) + "\\b");
      for (String line : broker.split("\n")) {
        Matcher m = classicExpired.matcher(line);
        Matcher n = consumerExpired.matcher(line);
        if (m.find()) {
          expired.add(nameOf(m.group(1), memberIds));
        } else if (n.find()) {
          expired.add(nameOf(n.group(1), memberIds));
        } else if (rebalanceTimeout.matcher(line).find()) {
          removed.add(line.replaceFirst("^.*?\\] ", ""));
        }
      }
      failureCounters();
      counters.put("delivered", delivered);
      counters.put("duplicates", delivered - seen.size());
      counters.put("never_processed", never);
      counters.put("skipped_by_reset", skipped);
      counters.put("commit_failed", commitFailed);
      counters.put("commits", commits);
      counters.put("members_left_poll_timeout", pollTimeouts);
      counters.put("generation", generation);
      counters.put("left_on_poll_timeout", pollTimeoutMembers);
      counters.put("session_expired", expired);
      counters.put("offsets_expired", offsetsGoneAtRestart == null ? 0L : (offsetsGoneAtRestart ? 1L : 0L));
      // The commits from the first consumer started after tick 0 to the group's last assignment.
      List<String> during = new ArrayList<>();
      if (joinedAtMs > 0 && joinedAtMs <= lastAssignedAt) {
        commitsAt.subMap(joinedAtMs, true, lastAssignedAt, true).values().forEach(during::addAll);
      }
      counters.put("commits_during_rebalance", during.isEmpty() ? "none" : String.join(", ", during));
      counters.put("polls_commit_to_revoke", pollsCommitToRevoke());
      if (!resetNotes.isEmpty()) {
        notes.add("resets past records: " + String.join(", ", resetNotes));
      }
      if (misplaced > 0) {
        notes.add(misplaced + " record(s) went to another partition than the model's");
      }
      if (formedMs > 0) {
        notes.add("the group formed " + formedMs + " ms after its consumers started");
      }
      notes.add("the last tick fell " + endedLateMs + " ms late");
      List<String> joins = new ArrayList<>();
      StringBuilder dump = new StringBuilder();
      for (Map.Entry<String, List<Jvm>> c : consumers.entrySet()) {
        for (Jvm jvm : c.getValue()) {
          joins.add(c.getKey() + " " + jvm.joinMs());
          for (JsonNode e : jvm.events()) {
            ObjectNode line = ((ObjectNode) e).deepCopy();
            line.put("consumer", c.getKey());
            line.put("ms", e.path("at").asLong() - originMs);
            dump.append(JSON.writeValueAsString(line)).append('\n');
          }
        }
      }
      notes.add("ms from start to first assignment: " + String.join(", ", joins));
      Files.writeString(logs.resolve(groupName + ".events.jsonl"), dump.toString());
      if (!removed.isEmpty()) {
        notes.add(removed.size() + " removal(s) at the rebalance timeout (" + removed.get(0) + ")");
      }
      if (!errors.isEmpty()) {
        notes.add(errors.size() + " other commit or client error(s), first: " + errors.get(0));
      }
    }

    String notes() {
      return String.join("; ", notes);
    }

    /**
     * A failing handler's counters (issue 40): {@code dead_lettered} and {@code dead_letters}
     * (the dead-letter topic read back: each record's partition, offset, key and the source
     * partition and offset its headers name), {@code sent_to_retry} and {@code out_of_key_order}
     * (a record handled for the first time after a later record of its key, by time).
     */
    void failureCounters() throws Exception {
      long sentToRetry = 0;
      List<JsonNode> handledLines = new ArrayList<>();
      for (List<Jvm> jvms : consumers.values()) {
        for (Jvm jvm : jvms) {
          for (JsonNode e : jvm.events()) {
            switch (e.path("event").asText()) {
              case "sent-to-retry" -> sentToRetry++;
              case "handled" -> handledLines.add(e);
              default -> {}
            }
          }
        }
      }
      handledLines.sort(java.util.Comparator.comparingLong(e -> e.path("at").asLong()));
      Map<Integer, Long> latest = new HashMap<>();
      Set<String> first = new HashSet<>();
      long outOfOrder = 0;
      for (JsonNode e : handledLines) {
        String id = e.path("value").asText();
        Integer subject = subjects.get(id);
        if (subject == null || !first.add(id)) {
          continue;
        }
        long n = Long.parseLong(id);
        if (latest.getOrDefault(subject, -1L) > n) {
          outOfOrder++;
        }
        latest.merge(subject, n, Math::max);
      }
      counters.put("sent_to_retry", sentToRetry);
      counters.put("out_of_key_order", outOfOrder);
      List<String> letters = new ArrayList<>();
      if (!group.path("error_policy").path("policy").asText("skip").equals("skip")) {
        letters = readDeadLetters();
      }
      counters.put("dead_lettered", (long) letters.size());
      counters.put("dead_letters", letters.isEmpty() ? "none" : String.join(", ", letters));
    }

    /** The dead-letter topic from its start: "P2@0 user-3 from P2@2" each, sorted. */
    List<String> readDeadLetters() {
      Properties props = new Properties();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      List<String> letters = new ArrayList<>();
      try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(props)) {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
          all.add(new TopicPartition(dltTopic(), p));
        }
        reader.assign(all);
        reader.seekToBeginning(all);
        Map<TopicPartition, Long> ends = reader.endOffsets(all);
        long deadline = System.currentTimeMillis() + SETTLE_TIMEOUT_MS;
        while (all.stream().anyMatch(tp -> reader.position(tp) < ends.get(tp)) && System.currentTimeMillis() < deadline) {
          for (ConsumerRecord<String, String> r : reader.poll(java.time.Duration.ofMillis(200))) {
            letters.add("P" + r.partition() + "@" + r.offset() + " " + r.key() + " from P"
                + FreeConsumer.originalPartition(r) + "@" + FreeConsumer.originalOffset(r));
          }
        }
      }
      Collections.sort(letters);
      return letters;
    }

    /**
     * The polls that gave records to the member that committed first after the first consumer
     * started after tick 0, from that commit to its first revocation of partitions: the batches
     * it handled past its commit (by offset: a commit is said when it completes, after the poll
     * that sent it has returned its records) before giving partitions up. 0 when none of this
     * happened.
     */
    long pollsCommitToRevoke() {
      if (joinedAtMs == 0) {
        return 0;
      }
      JsonNode commit = null;
      Jvm member = null;
      for (List<Jvm> jvms : consumers.values()) {
        for (Jvm jvm : jvms) {
          for (JsonNode e : jvm.events()) {
            if (e.path("event").asText().equals("committed") && e.path("at").asLong() >= joinedAtMs
                && (commit == null || e.path("at").asLong() < commit.path("at").asLong())) {
              commit = e;
              member = jvm;
            }
          }
        }
      }
      if (commit == null) {
        return 0;
      }
      long commitAt = commit.path("at").asLong();
      List<JsonNode> events = member.events();
      long revokedAt = events.stream()
          .filter(e -> e.path("event").asText().equals("revoked") && !e.path("partitions").isEmpty() && e.path("at").asLong() >= commitAt)
          .mapToLong(e -> e.path("at").asLong()).findFirst().orElse(-1);
      if (revokedAt < 0) {
        return 0;
      }
      JsonNode committed = commit.path("offsets");
      return events.stream()
          .filter(e -> e.path("event").asText().equals("polled") && e.path("at").asLong() < revokedAt)
          .filter(e -> {
            Iterator<Map.Entry<String, JsonNode>> last = e.path("last").fields();
            while (last.hasNext()) {
              Map.Entry<String, JsonNode> p = last.next();
              if (committed.has(p.getKey()) && p.getValue().asLong() >= committed.path(p.getKey()).asLong()) {
                return true;
              }
            }
            return false;
          })
          .count();
    }

    /** Starts `count` consumer JVMs, not waiting for them. */
    List<Jvm> launch(int count) throws Exception {
      List<Jvm> jvms = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        Path log = logs.resolve(groupName + "-jvm" + (i + 1) + ".log");
        Files.deleteIfExists(log);
        Jvm jvm = Jvm.start(setpriv, bootstrap, topic, log);
        started.add(jvm);
        jvms.add(jvm);
      }
      return jvms;
    }

    void signal(Jvm jvm, String signal) throws Exception {
      if (signal.equals("STOP")) {
        stopped.add(jvm);
      }
      Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(jvm.process.pid())).redirectErrorStream(true).start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("kill -" + signal + " " + jvm.process.pid() + " failed");
      }
      if (signal.equals("CONT")) {
        stopped.remove(jvm);
      }
    }

    /** Every JVM of the run killed (a stopped one continued first), the topic deleted. */
    void cleanUp() {
      for (Jvm jvm : new ArrayList<>(stopped)) {
        try {
          signal(jvm, "CONT");
        } catch (Exception e) {
          // Killed below all the same.
        }
      }
      for (List<Jvm> jvms : consumers.values()) {
        jvms.forEach(Jvm::kill);
      }
      warm.forEach(Jvm::kill);
      if (producer != null) {
        producer.close();
      }
      try {
        admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        // The broker is stopped after the program: a topic left over is harmless.
      }
    }
  }

  /** The consumer a member id belongs to: as its JVM said, or by the classic id's client id. */
  private static String nameOf(String memberId, Map<String, String> memberIds) {
    String name = memberIds.get(memberId);
    if (name != null) {
      return name;
    }
    int dash = memberId.indexOf('-');
    return dash > 0 ? memberId.substring(0, dash) : memberId;
  }

  private static void sleepUntil(long wallMs) throws InterruptedException {
    long left = wallMs - System.currentTimeMillis();
    if (left > 0) {
      Thread.sleep(left);
    }
  }

  private static void waitFor(String what, long timeoutMs, BooleanSupplier done) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!done.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("timed out after " + timeoutMs + " ms waiting for " + what);
      }
      Thread.sleep(5);
    }
  }

  // ------------------------------------------------------------------ a consumer JVM

  /** The driver's end of one {@link FreeConsumer} JVM: its events kept in order by a reader thread. */
  static final class Jvm {
    final Process process;
    final Path log;
    private final Writer in;
    private final List<JsonNode> events = Collections.synchronizedList(new ArrayList<>());
    String name = "(warm)";
    /** When it was told to go (ms since the epoch). */
    long goAt;

    private Jvm(Process process, Path log) {
      this.process = process;
      this.log = log;
      this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line = out.readLine(); line != null; line = out.readLine()) {
            events.add(JSON.readTree(line));
          }
        } catch (IOException e) {
          // The process died: its events end here.
        }
      }, "free-consumer-reader");
      reader.setDaemon(true);
      reader.start();
    }

    /** A warm JVM (it waits for its start), its stderr (the client's log) in `log`. */
    static Jvm start(boolean setpriv, String bootstrap, String topic, Path log) throws IOException {
      List<String> command = new ArrayList<>();
      if (setpriv) {
        command.addAll(List.of("setpriv", "--pdeathsig", "KILL", "--"));
      }
      command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m", "-XX:TieredStopAtLevel=1"));
      String log4j = System.getProperty("log4j2.configurationFile");
      if (log4j != null) {
        command.add("-Dlog4j2.configurationFile=" + log4j);
      }
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), FreeConsumer.class.getName(), "--bootstrap", bootstrap, "--topic", topic));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
      return new Jvm(pb.start(), log);
    }

    void send(ObjectNode command) throws IOException {
      in.write(JSON.writeValueAsString(command) + "\n");
      in.flush();
    }

    boolean ready() {
      return events().stream().anyMatch(e -> e.path("ready").asBoolean(false));
    }

    boolean said(String event) {
      return events().stream().anyMatch(e -> e.path("event").asText().equals(event));
    }

    /** From its go to its first assignment, in ms; -1 if it has none. */
    long joinMs() {
      return events().stream().filter(e -> e.path("event").asText().equals("assigned")).mapToLong(e -> e.path("at").asLong() - goAt).findFirst().orElse(-1);
    }

    boolean alive() {
      return process.isAlive();
    }

    List<JsonNode> events() {
      synchronized (events) {
        return new ArrayList<>(events);
      }
    }

    /** The lines of its client's log in which the client says its poll timer ran out. */
    long pollTimeouts() throws IOException {
      if (!Files.exists(log)) {
        return 0;
      }
      return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(l -> l.toLowerCase(Locale.ROOT).contains("consumer poll timeout has expired"))
          .count();
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
  }
}
