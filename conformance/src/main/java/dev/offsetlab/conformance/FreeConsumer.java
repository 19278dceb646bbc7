package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
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
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

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
 *
 * <p>A failing handler (issue 40): a record whose header {@code offsetlab-fails} is {@code
 * always} (poison) or N (fails its first N attempts) makes the handler throw. What happens then
 * is the application's error policy ({@code error_policy} of the prepare line: the model's group
 * setting), and this class is that application's code, as Spring Kafka's error handling would
 * run it: {@code skip} moves on; {@code retry-then-dead-letter} retries in place after {@code
 * backoff_ticks}, {@code retries} times, then publishes the record to {@code dlt_topic} on its
 * own partition, keyed as the original, with {@code DeadLetterPublishingRecoverer}'s headers, and
 * moves on (the commit after the batch passes it); {@code retry-topics} publishes it to the first
 * of {@code retry_topics} and moves on, and a second consumer in this JVM (group {@code
 * <group>-retry}, a thread of its own) reads the retry topics, waits until each record is due
 * ({@code delay_ticks}, doubled per level), handles it again, and passes a failure to the next
 * level, past the last to {@code dlt_topic}. Lines: {@code handler-failed {partition, offset,
 * value, attempt}}, {@code dead-lettered}, {@code sent-to-retry {…, level}}, {@code skipped}, and
 * {@code handled {…, from}} for a record handled from a retry topic, with its original partition
 * and offset. Attempts are counted per record in this JVM, and travel with a record to a retry
 * topic (header {@code offsetlab-attempts}).
 */
public final class FreeConsumer {
  private final ObjectMapper json = new ObjectMapper();
  private final PrintStream out;
  private KafkaConsumer<String, String> consumer;

  /** The application's error policy: {@code error_policy} of the prepare line. */
  private JsonNode policy;
  /** Where the application publishes failed records (dead letters, retries). */
  private KafkaProducer<String, String> letters;
  private String dltTopic;
  private List<String> retryTopics = List.of();
  private String groupId;
  private String bootstrap;
  private String topic;
  /** Failed attempts per record (its value, the record id). */
  private final Map<String, Integer> attempts = new HashMap<>();
  private long handleMs;

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
    handleMs = start.path("handle_ms").asLong();
    groupId = start.path("group").asText();
    this.bootstrap = bootstrap;
    this.topic = topic;
    policy = start.path("error_policy");
    if (!policy.path("policy").asText("skip").equals("skip")) {
      dltTopic = start.path("dlt_topic").asText();
      List<String> retries = new ArrayList<>();
      start.path("retry_topics").forEach(t -> retries.add(t.asText()));
      retryTopics = retries;
      Properties producerProps = new Properties();
      producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
      producerProps.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      producerProps.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      letters = new KafkaProducer<>(producerProps);
      letters.partitionsFor(dltTopic);
    }
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
    if (!retryTopics.isEmpty()) {
      Thread retrying = new Thread(this::retryLoop, "retry-topics");
      retrying.setDaemon(true);
      retrying.start();
    }
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
        handle(r);
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

  /** Handles `r` from the topic, as the error policy says when the handler fails. */
  private void handle(ConsumerRecord<String, String> r) throws Exception {
    String name = policy.path("policy").asText("skip");
    while (true) {
      Thread.sleep(handleMs);
      int attempt = fails(r.headers().lastHeader("offsetlab-fails"), r.value());
      if (attempt == 0) {
        emit(record("handled", r.partition(), r.offset(), r.value()));
        return;
      }
      emit(record("handler-failed", r.partition(), r.offset(), r.value()).put("attempt", attempt));
      switch (name) {
        case "retry-forever" -> Thread.sleep(Math.max(1, policy.path("backoff_ticks").asLong()) * handleMs);
        case "retry-then-dead-letter" -> {
          if (attempt <= policy.path("retries").asInt()) {
            Thread.sleep(Math.max(1, policy.path("backoff_ticks").asLong()) * handleMs);
          } else {
            publish(dltTopic, r, r.partition(), r.offset(), attempt, 0);
            emit(record("dead-lettered", r.partition(), r.offset(), r.value()));
            return;
          }
        }
        case "retry-topics" -> {
          publish(retryTopics.get(0), r, r.partition(), r.offset(), attempt, delayMs(1));
          emit(record("sent-to-retry", r.partition(), r.offset(), r.value()).put("level", 1));
          return;
        }
        default -> {
          emit(record("skipped", r.partition(), r.offset(), r.value()));
          return;
        }
      }
    }
  }

  /**
   * Retry topic `level`'s delay (1-based): `delay_ticks` ticks, doubled per level (a tick is
   * `handle_ms` in these stories: one record a tick).
   */
  private long delayMs(int level) {
    return (policy.path("delay_ticks").asLong() * handleMs) << (level - 1);
  }

  /** The attempts a record (by its value) failed so far, as a letter's header carried them. */
  private synchronized void remember(String value, int failed) {
    attempts.merge(value, failed, Math::max);
  }

  /** A letter's {@code kafka_dlt-original-partition} header: Spring's 4-byte big-endian int. */
  static int originalPartition(ConsumerRecord<?, ?> letter) {
    return ByteBuffer.wrap(letter.headers().lastHeader("kafka_dlt-original-partition").value()).getInt();
  }

  /** A letter's {@code kafka_dlt-original-offset} header: Spring's 8-byte big-endian long. */
  static long originalOffset(ConsumerRecord<?, ?> letter) {
    return ByteBuffer.wrap(letter.headers().lastHeader("kafka_dlt-original-offset").value()).getLong();
  }

  /**
   * The attempt that failed (counted), or 0: the handler succeeds. A record fails by its header
   * {@code offsetlab-fails}: {@code always}, or its first N attempts.
   */
  private synchronized int fails(Header header, String value) {
    if (header == null) {
      return 0;
    }
    String how = new String(header.value(), StandardCharsets.UTF_8);
    int failed = attempts.getOrDefault(value, 0);
    if (!how.equals("always") && failed >= Integer.parseInt(how)) {
      return 0;
    }
    attempts.put(value, failed + 1);
    return failed + 1;
  }

  /**
   * Publishes failed record `r` (from the topic or a retry topic) to `to` on its partition, keyed
   * as the original, with Spring Kafka's DeadLetterPublishingRecoverer headers for the source
   * (the partition a 4-byte and the offset an 8-byte big-endian number, as it writes them), the
   * failing mark carried on, and, for a retry topic, when it is due (ms since the epoch).
   */
  private void publish(String to, ConsumerRecord<String, String> r, int sourcePartition, long sourceOffset, int attempt,
      long delayMs) throws Exception {
    RecordHeaders headers = new RecordHeaders();
    headers.add("kafka_dlt-original-topic", topic.getBytes(StandardCharsets.UTF_8));
    headers.add("kafka_dlt-original-partition", ByteBuffer.allocate(4).putInt(sourcePartition).array());
    headers.add("kafka_dlt-original-offset", ByteBuffer.allocate(8).putLong(sourceOffset).array());
    headers.add("kafka_dlt-original-consumer-group", groupId.getBytes(StandardCharsets.UTF_8));
    headers.add("kafka_dlt-exception-message", "the handler failed".getBytes(StandardCharsets.UTF_8));
    headers.add("offsetlab-attempts", Integer.toString(attempt).getBytes(StandardCharsets.UTF_8));
    Header mark = r.headers().lastHeader("offsetlab-fails");
    if (mark != null) {
      headers.add("offsetlab-fails", mark.value());
    }
    if (delayMs > 0) {
      headers.add("offsetlab-due-ms", Long.toString(System.currentTimeMillis() + delayMs).getBytes(StandardCharsets.UTF_8));
    }
    letters.send(new ProducerRecord<>(to, r.partition(), r.key(), r.value(), headers)).get();
  }

  /**
   * The retry topics' consumer (group {@code <group>-retry}): each record handled once due; a
   * failure goes to the next level, past the last to the dead-letter topic. Its lines carry the
   * original partition and offset.
   */
  private void retryLoop() {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId + "-retry");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> retry = new KafkaConsumer<>(props)) {
      retry.subscribe(retryTopics);
      while (true) {
        for (ConsumerRecord<String, String> r : retry.poll(Duration.ofMillis(50))) {
          Header due = r.headers().lastHeader("offsetlab-due-ms");
          long wait = due == null ? 0 : Long.parseLong(new String(due.value(), StandardCharsets.UTF_8)) - System.currentTimeMillis();
          if (wait > 0) {
            Thread.sleep(wait);
          }
          int level = retryTopics.indexOf(r.topic()) + 1;
          int sourcePartition = originalPartition(r);
          long sourceOffset = originalOffset(r);
          Thread.sleep(handleMs);
          // The attempts so far travel with the record: the retry topic's partition may be
          // another member's JVM than the one that failed it first.
          Header tried = r.headers().lastHeader("offsetlab-attempts");
          if (tried != null) {
            remember(r.value(), Integer.parseInt(new String(tried.value(), StandardCharsets.UTF_8)));
          }
          int attempt = fails(r.headers().lastHeader("offsetlab-fails"), r.value());
          if (attempt == 0) {
            emit(record("handled", sourcePartition, sourceOffset, r.value()).put("from", r.topic()));
          } else if (level < retryTopics.size()) {
            emit(record("handler-failed", sourcePartition, sourceOffset, r.value()).put("attempt", attempt));
            publish(retryTopics.get(level), r, sourcePartition, sourceOffset, attempt, delayMs(level + 1));
            emit(record("sent-to-retry", sourcePartition, sourceOffset, r.value()).put("level", level + 1));
          } else {
            emit(record("handler-failed", sourcePartition, sourceOffset, r.value()).put("attempt", attempt));
            publish(dltTopic, r, sourcePartition, sourceOffset, attempt, 0);
            emit(record("dead-lettered", sourcePartition, sourceOffset, r.value()));
          }
        }
        retry.commitSync();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      emit(json.createObjectNode().put("event", "failed").put("error", "retry topics: " + e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  /** A line about one record: the event, its partition, offset and value (its id). */
  private ObjectNode record(String event, int partition, long offset, String value) {
    return json.createObjectNode().put("event", event).put("partition", partition).put("offset", offset).put("value", value);
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

  private synchronized void emit(ObjectNode line) {
    line.put("at", System.currentTimeMillis());
    try {
      out.println(json.writeValueAsString(line));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
