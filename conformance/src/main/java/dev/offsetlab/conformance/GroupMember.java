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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One consumer of {@link Kafka4Groups}, in its own JVM so that a crash is a process that dies
 * (no commit, no leave: the coordinator finds out when the session runs out).
 *
 * <p>Unlike {@link ConsumerProcess}, which polls only when its driver says so (the classic
 * replay decides the order of every fetch), this one polls on its own all the time, as an
 * application does: on Kafka 4's consumer protocol the member reconciles its assignment in its
 * polls (the rebalance listener runs there) while its heartbeats go on in the background, and a
 * member that stopped polling would hold its partitions pending revocation. It handles every
 * record it is handed and commits after each poll that returned records, the model's commit
 * after each batch.
 *
 * <p>Calling contract: the process says {@code {"ready": true}} once its JVM is up and the
 * client's classes are loaded, and waits (warm) for one line on stdin: {@code {"op": "start",
 * group, client_id, protocol ("consumer"|"classic"), instance_id?, assignor? (classic),
 * session_timeout_ms? (classic), max_poll_records}}. From then on it writes one JSON line per
 * thing that happened: {@code {"event": "assigned"|"revoked"|"lost", "partitions", "owned",
 * "epoch", "member_id"}} from the rebalance listener ({@code owned}: the consumer's {@code
 * assignment()} as the callback ran; {@code epoch}: the generation, or the member epoch), {@code
 * {"event": "handled", "records": [[partition, offset, value]…]}} then {@code {"event":
 * "committed"}} or {@code {"event": "commit-failed", "error"}} per poll with records. The line
 * {@code {"op": "close"}} makes it commit and {@code close()} (a static member sends no leave),
 * say {@code {"event": "closed"}} and exit. A client error ends it with {@code {"event":
 * "failed", "error"}}.
 */
public final class GroupMember {
  /** One poll's wait: the member checks for a command between polls. */
  private static final Duration POLL = Duration.ofMillis(50);
  /** The classic protocol's heartbeats: a member hears of a rebalance within this. */
  private static final String CLASSIC_HEARTBEAT_MS = "100";
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);

  private final ObjectMapper json = new ObjectMapper();
  private final PrintStream out;
  private KafkaConsumer<String, String> consumer;

  private GroupMember(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    // Kafka's client logs go to stderr: stdout is the protocol.
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8));
    Map<String, String> opts = DriverArgs.parse(args);
    GroupMember member = new GroupMember(out);
    warmUp(opts.get("bootstrap"));
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
      // Said on stdout too, so the driver's report names it rather than timing out.
      member.emit(member.json.createObjectNode().put("event", "failed").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      throw e;
    }
  }

  /**
   * Loads the client's classes before saying ready (a consumer with no group, made and closed): a
   * restart then joins within its session in a fraction of the time a cold JVM takes.
   */
  static void warmUp(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> warm = new KafkaConsumer<>(props)) {
      warm.listTopics(Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      // Only a warm-up: the real consumer says what is wrong.
    }
  }

  private void run(String bootstrap, String topic, JsonNode start, BufferedReader in, ProcessHandle driver)
      throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, start.path("group").asText());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, start.path("client_id").asText());
    String protocol = start.path("protocol").asText("consumer");
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    if (protocol.equals("classic")) {
      // The consumer protocol refuses these: its coordinator sets the session and heartbeats, and
      // its assignor is the broker's.
      props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, start.path("assignor").asText());
      props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, start.path("session_timeout_ms").asText());
      props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, CLASSIC_HEARTBEAT_MS);
    }
    if (start.hasNonNull("instance_id")) {
      props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, start.path("instance_id").asText());
    }
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, start.path("max_poll_records").asText("6"));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    consumer = new KafkaConsumer<>(props);
    consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        said("revoked", partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        said("assigned", partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        said("lost", partitions);
      }
    });
    while (true) {
      while (in.ready()) {
        String line = in.readLine();
        if (line == null || json.readTree(line).path("op").asText().equals("close")) {
          commit();
          consumer.close();
          emit(json.createObjectNode().put("event", "closed"));
          return;
        }
      }
      // The driver is gone (killed with the run): so is this consumer.
      if (!driver.isAlive()) {
        System.exit(3);
      }
      ConsumerRecords<String, String> records = consumer.poll(POLL);
      if (records.isEmpty()) {
        continue;
      }
      ObjectNode handled = json.createObjectNode().put("event", "handled");
      ArrayNode list = handled.putArray("records");
      for (ConsumerRecord<String, String> r : records) {
        list.addArray().add(r.partition()).add(r.offset()).add(r.value());
      }
      emit(handled);
      commit();
    }
  }

  /** {@code commitSync()} of the positions; said, with its error if Kafka refused it. */
  private void commit() {
    try {
      consumer.commitSync(COMMIT_TIMEOUT);
      emit(json.createObjectNode().put("event", "committed"));
    } catch (RuntimeException e) {
      emit(json.createObjectNode().put("event", "commit-failed").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
    }
  }

  private void said(String event, Collection<TopicPartition> partitions) {
    ObjectNode line = json.createObjectNode().put("event", event);
    ArrayNode list = line.putArray("partitions");
    new TreeSet<>(partitions.stream().map(TopicPartition::partition).toList()).forEach(list::add);
    ArrayNode owned = line.putArray("owned");
    new TreeSet<>(consumer.assignment().stream().map(TopicPartition::partition).toList()).forEach(owned::add);
    line.put("epoch", consumer.groupMetadata().generationId());
    line.put("member_id", consumer.groupMetadata().memberId());
    emit(line);
  }

  private void emit(ObjectNode line) {
    try {
      out.println(json.writeValueAsString(line));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
