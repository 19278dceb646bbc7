package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One consumer of a {@link FreeRunning} story, in its own JVM, running its own poll loop as an
 * application does: nothing it does is steered by the model. A crash is this JVM killed (no
 * commit, no LeaveGroup); a stall is this JVM stopped with SIGSTOP, its heartbeats with it.
 *
 * <p>The loop: {@code poll()}; keep at most the current records per poll (the rest are sought
 * back, as an application that stops early does; {@code max.poll.records} is the largest value
 * the story uses, since Kafka reads it once); commit before handling ({@code before}); handle
 * each record (a sleep of {@code handle_ms}) and, committing each record, commit the offset after
 * it, abandoning the rest of the batch when that commit throws {@link CommitFailedException};
 * commit after handling ({@code after}); with {@code auto}, Kafka's auto-commit does it.
 *
 * <p>Calling contract: says {@code {"ready": true}} once warm, then reads one line {@code {"op":
 * "prepare", group, client_id, protocol ("classic"|"consumer"), assignor?, session_timeout_ms?,
 * heartbeat_interval_ms? (classic), max_poll_interval_ms, max_poll_records, records_per_poll,
 * auto_offset_reset, commit ("after"|"before"|"each-record"|"auto"), auto_commit_interval_ms?,
 * handle_ms, metadata_max_age_ms}}: it makes its {@code KafkaConsumer}, finds the topic and the
 * group's coordinator, says {@code prepared}, and waits for one more line ({@code {"op":
 * "go"}}: the story's moment it starts), says {@code go}, subscribes and polls. Between polls it
 * reads {@code {"op": "records_per_poll", "records": N}} and {@code {"op": "close"}} (finish the
 * batch, {@code close()}: its commit and LeaveGroup). It writes one JSON line per thing that
 * happened: {@code assigned|revoked|lost {partitions, generation, member_id}} from its rebalance
 * listener; {@code reset {partition, position}} for an assigned partition without a committed
 * offset (where {@code auto.offset.reset} put it); {@code polled {records, last}} for each poll
 * that gave the application records (each partition's last offset in its batch); {@code handled
 * {partition, offset, value}}; {@code committed {offsets}} for every commit that succeeded, the
 * application's and the auto-commits alike (Kafka's interceptor {@link Commits} says them);
 * {@code commit-failed {error}} ({@link CommitFailedException}), {@code commit-refused {error}}
 * ({@link RebalanceInProgressException}), {@code commit-error {error}} (anything else); {@code
 * closed}; {@code failed {error}} when the client throws elsewhere.
 */
public final class FreeConsumer {
  private final ObjectMapper json = new ObjectMapper();
  private final PrintStream out;
  private KafkaConsumer<String, String> consumer;

  private FreeConsumer(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    // Kafka's client logs go to stderr (this process's own log file): stdout is the protocol.
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8));
    Map<String, String> opts = DriverArgs.parse(args);
    FreeConsumer member = new FreeConsumer(out);
    GroupMember.warmUp(opts.get("bootstrap"));
    member.emit(member.json.createObjectNode().put("ready", true));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    ProcessHandle driver = ProcessHandle.current().parent().orElseThrow();
    String line = in.readLine();
    if (line == null) {
      return;
    }
    try {
      member.run(opts.get("bootstrap"), opts.get("topic"), member.json.readTree(line), in, driver);
    } catch (RuntimeException e) {
      member.emit(member.json.createObjectNode().put("event", "failed").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      throw e;
    }
  }

  private void run(String bootstrap, String topic, JsonNode start, BufferedReader in, ProcessHandle driver)
      throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, start.path("group").asText());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, start.path("client_id").asText());
    String protocol = start.path("protocol").asText("classic");
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    if (protocol.equals("classic")) {
      // The consumer protocol refuses these: its coordinator sets the session and heartbeats
      // (the group's configuration), and its assignor is the broker's.
      props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, start.path("assignor").asText());
      props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, start.path("session_timeout_ms").asText());
      props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, start.path("heartbeat_interval_ms").asText());
    }
    props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, start.path("max_poll_interval_ms").asText());
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, start.path("max_poll_records").asText());
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, start.path("auto_offset_reset").asText());
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, start.path("metadata_max_age_ms").asText());
    String mode = start.path("commit").asText();
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, Boolean.toString(mode.equals("auto")));
    if (mode.equals("auto")) {
      props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, start.path("auto_commit_interval_ms").asText());
    }
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, Commits.class.getName());
    Commits.member = this;
    long handleMs = start.path("handle_ms").asLong();
    int perPoll = start.path("records_per_poll").asInt();
    Duration pollTimeout = Duration.ofMillis(start.path("poll_ms").asLong(50));
    consumer = new KafkaConsumer<>(props);
    // Made ready ahead, as a process that has started: the topic's metadata and the group's
    // coordinator found (an OffsetFetch outside the group). It joins when told to go.
    consumer.partitionsFor(topic);
    consumer.committed(Set.of(new TopicPartition(topic, 0)), Duration.ofSeconds(10));
    emit(json.createObjectNode().put("event", "prepared"));
    String go = in.readLine();
    if (go == null) {
      return;
    }
    emit(json.createObjectNode().put("event", "go"));
    consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        said("revoked", partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        // Said once the partitions have their positions: the driver's clock waits for it.
        resets(partitions);
        said("assigned", partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        said("lost", partitions);
      }
    });
    boolean closing = false;
    while (true) {
      while (in.ready()) {
        String line = in.readLine();
        JsonNode command = line == null ? null : json.readTree(line);
        String op = command == null ? "close" : command.path("op").asText();
        switch (op) {
          case "records_per_poll" -> perPoll = command.path("records").asInt();
          case "close" -> closing = true;
          default -> {}
        }
      }
      if (closing) {
        // close() commits with auto-commit on, and sends LeaveGroup.
        consumer.close();
        emit(json.createObjectNode().put("event", "closed"));
        return;
      }
      // The driver is gone (killed with the run): so is this consumer.
      if (!driver.isAlive()) {
        System.exit(3);
      }
      ConsumerRecords<String, String> records = consumer.poll(pollTimeout);
      if (records.isEmpty()) {
        continue;
      }
      List<ConsumerRecord<String, String>> batch = take(records, perPoll);
      polled(batch);
      if (mode.equals("before")) {
        commit(null);
      }
      for (ConsumerRecord<String, String> r : batch) {
        Thread.sleep(handleMs);
        emit(json.createObjectNode().put("event", "handled").put("partition", r.partition()).put("offset", r.offset()).put("value", r.value()));
        if (mode.equals("each-record")) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (!commit(Map.of(tp, new OffsetAndMetadata(r.offset() + 1)))) {
            // The member is out of its group: the rest of the batch is another member's now.
            break;
          }
        }
      }
      if (mode.equals("after")) {
        commit(null);
      }
    }
  }

  /**
   * Kafka's word on every commit that succeeded: the application's ({@code commitSync}) and the
   * client's own (auto-commit: on its timer, at a JoinGroup in {@code onJoinPrepare}, at {@code
   * close()}), which the application never sees otherwise. Said as {@code committed {offsets}};
   * an auto-commit of nothing (a member without positions) is not a commit.
   */
  public static final class Commits implements ConsumerInterceptor<String, String> {
    /** The consumer of this JVM (there is one). */
    static volatile FreeConsumer member;

    @Override
    public ConsumerRecords<String, String> onConsume(ConsumerRecords<String, String> records) {
      return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
      FreeConsumer to = member;
      if (to == null || offsets.isEmpty()) {
        return;
      }
      ObjectNode line = to.json.createObjectNode().put("event", "committed");
      ObjectNode at = line.putObject("offsets");
      Map<Integer, Long> sorted = new TreeMap<>();
      offsets.forEach((tp, o) -> sorted.put(tp.partition(), o.offset()));
      sorted.forEach((p, o) -> at.put(Integer.toString(p), o));
      to.emit(line);
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
  }

  /**
   * The first `limit` records of the poll, in the order it returned them; each partition with
   * records left over is sought back to the first of them, so the next poll starts there.
   */
  private List<ConsumerRecord<String, String>> take(ConsumerRecords<String, String> records, int limit) {
    List<ConsumerRecord<String, String>> batch = new ArrayList<>();
    Map<TopicPartition, Long> firstLeft = new HashMap<>();
    for (ConsumerRecord<String, String> r : records) {
      if (batch.size() < limit) {
        batch.add(r);
      } else {
        firstLeft.putIfAbsent(new TopicPartition(r.topic(), r.partition()), r.offset());
      }
    }
    firstLeft.forEach((tp, offset) -> consumer.seek(tp, offset));
    return batch;
  }

  /**
   * {@code commitSync()} of the positions ({@code offsets} null) or of `offsets`, said; false
   * when Kafka threw {@link CommitFailedException}: the member is no longer in its group.
   */
  private boolean commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    try {
      if (offsets == null) {
        consumer.commitSync();
      } else {
        consumer.commitSync(offsets);
      }
      // Said by Commits, Kafka's interceptor, as every commit that succeeded.
      return true;
    } catch (CommitFailedException e) {
      emit(json.createObjectNode().put("event", "commit-failed").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      return false;
    } catch (RebalanceInProgressException e) {
      emit(json.createObjectNode().put("event", "commit-refused").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      return true;
    } catch (RuntimeException e) {
      emit(json.createObjectNode().put("event", "commit-error").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      return true;
    }
  }

  /**
   * For each newly assigned partition without a committed offset: where {@code
   * auto.offset.reset} puts it ({@code position()} makes the client reset it now rather than in
   * the next poll's fetch).
   */
  private void resets(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    try {
      Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new HashSet<>(partitions), Duration.ofSeconds(10));
      List<TopicPartition> sorted = new ArrayList<>(partitions);
      sorted.sort(Comparator.comparingInt(TopicPartition::partition));
      for (TopicPartition tp : sorted) {
        if (committed.get(tp) == null) {
          long position = consumer.position(tp, Duration.ofSeconds(10));
          emit(json.createObjectNode().put("event", "reset").put("partition", tp.partition()).put("position", position));
        }
      }
    } catch (RuntimeException e) {
      emit(json.createObjectNode().put("event", "reset-unknown").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  /** The batch a poll gave the application: each partition's last offset in it. */
  private void polled(List<ConsumerRecord<String, String>> batch) {
    ObjectNode line = json.createObjectNode().put("event", "polled").put("records", batch.size());
    ObjectNode last = line.putObject("last");
    Map<Integer, Long> sorted = new TreeMap<>();
    batch.forEach(r -> sorted.merge(r.partition(), r.offset(), Math::max));
    sorted.forEach((p, o) -> last.put(Integer.toString(p), o));
    emit(line);
  }

  private void said(String event, Collection<TopicPartition> partitions) {
    ObjectNode line = json.createObjectNode().put("event", event);
    ArrayNode list = line.putArray("partitions");
    new TreeSet<>(partitions.stream().map(TopicPartition::partition).toList()).forEach(list::add);
    line.put("generation", consumer.groupMetadata().generationId());
    line.put("member_id", consumer.groupMetadata().memberId());
    emit(line);
  }

  private void emit(ObjectNode line) {
    line.put("at", System.currentTimeMillis());
    try {
      out.println(json.writeValueAsString(line));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
