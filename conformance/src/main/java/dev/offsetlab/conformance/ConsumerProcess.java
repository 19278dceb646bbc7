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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One consumer of a scenario, in its own JVM, so that a crash is a process that dies: no
 * commit, no LeaveGroup, the coordinator finds out when the session times out.
 *
 * <p>Calling contract: the driver ({@link Scenarios}) writes one JSON command per line on stdin
 * and reads one JSON reply per line on stdout; the consumer only polls when a command says so,
 * so the driver decides the order of everything. Every partition is paused the moment it is
 * assigned, and a {@code fetch} resumes exactly one, so a poll returns records of that partition
 * only, from the position Kafka holds for it.
 *
 * <p>Commands: {@code start {group, client_id, assignor, max_poll_records, session_timeout_ms}}
 * makes the KafkaConsumer (classic protocol, no auto commit) and subscribes; {@code sync {generation, timeout_ms}} polls until this member
 * has joined that generation (or a later one); {@code fetch {partition, count, timeout_ms}};
 * {@code commit {offsets?}}: {@code commitSync()} of the positions, or of the given offsets;
 * {@code close}: {@code close()}, which sends LeaveGroup.
 */
public final class ConsumerProcess {
  /** How long one poll inside a command waits. */
  private static final Duration POLL = Duration.ofMillis(50);
  /** Members hear of a rebalance at their next heartbeat and rejoin at their next poll. */
  private static final String HEARTBEAT_INTERVAL_MS = "100";
  /** How long a cooperative member that revokes partitions holds its rejoin (see the listener). */
  private static final long REVOKE_HOLD_MS = 250;
  /** Between the polls that wait for a generation. */
  private static final long SYNC_PAUSE_MS = 2;

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final ObjectMapper json = new ObjectMapper();
  private final PrintStream out;
  private final String bootstrap;
  private final String topic;
  /** Made by the {@code start} command: the JVM is started ahead, warm, and told who it is later. */
  private KafkaConsumer<String, String> consumer;
  /** Each generation this member joined, and what it owned then (partitions ascending). */
  private final Map<Integer, List<Integer>> generations = new TreeMap<>();
  /** As the group's leader: each generation's members, in the order the sticky assignor saw them. */
  private final Map<Integer, List<String>> memberOrders = new TreeMap<>();

  /** The driver that started this process: when it dies, this one exits. */
  private final ProcessHandle driver = ProcessHandle.current().parent().orElseThrow();

  private ConsumerProcess(PrintStream out, String bootstrap, String topic) {
    this.out = out;
    this.bootstrap = bootstrap;
    this.topic = topic;
  }

  public static void main(String[] args) throws Exception {
    // Kafka's client logs go nowhere: stdout is the protocol.
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8));
    Map<String, String> opts = DriverArgs.parse(args);
    ConsumerProcess process = new ConsumerProcess(out, opts.get("bootstrap"), opts.get("topic"));
    process.reply(process.json.createObjectNode().put("ready", true));
    process.serve(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
  }

  /** {@code start {group, client_id, assignor, max_poll_records, session_timeout_ms}}, then subscribe. */
  private void start(JsonNode command) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, command.path("group").asText());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, command.path("client_id").asText());
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, ObservedAssignors.observed(command.path("assignor").asText()));
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, command.path("max_poll_records").asText());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, command.path("session_timeout_ms").asText());
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, HEARTBEAT_INTERVAL_MS);
    // Partition growth is noticed by a metadata refresh.
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    cooperative = command.path("assignor").asText().contains("Cooperative");
    consumer = new KafkaConsumer<>(props);
    subscribe();
  }

  private void serve(BufferedReader in) throws Exception {
    while (true) {
      // A member that joined a running group has no generation yet: it keeps polling between
      // commands, as the model's consumer does every tick, or it could not take part in the
      // rebalance (a classic client reads the join's answer only while it polls).
      while (!in.ready()) {
        // The driver is gone (killed with the run): so is this consumer. A pipe at its end is
        // never `ready`, so the driver's process is what is watched.
        if (!driver.isAlive()) {
          System.exit(3);
        }
        if (consumer != null && waitingForGeneration && generations.isEmpty()) {
          consumer.poll(POLL);
        } else {
          Thread.sleep(2);
        }
      }
      String line = in.readLine();
      if (line == null) {
        return;
      }
      JsonNode command = json.readTree(line);
      String op = command.path("op").asText();
      ObjectNode reply = json.createObjectNode();
      try {
        switch (op) {
          case "start" -> start(command);
          case "join" -> join(command, reply);
          case "sync" -> sync(command, reply);
          case "fetch" -> fetch(command, reply);
          case "commit" -> commit(command, reply);
          case "close" -> {
            consumer.close();
            reply(reply.put("closed", true));
            return;
          }
          default -> reply.put("error", "unknown command " + op);
        }
      } catch (RuntimeException e) {
        reply.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      reply(reply);
    }
  }

  /**
   * {@code join}: polls for a moment, long enough on loopback to find the coordinator and send
   * both JoinGroups (the first only fetches a member id); the member id itself is known to the
   * client only once the generation completes. From then on the member polls between commands.
   */
  private void join(JsonNode command, ObjectNode reply) {
    long until = System.currentTimeMillis() + command.path("join_ms").asLong(JOIN_MS);
    while (System.currentTimeMillis() < until) {
      consumer.poll(POLL);
    }
    waitingForGeneration = true;
  }

  /** How long a join polls before it answers. */
  private static final long JOIN_MS = 600;

  /** Set by {@code join}: poll between commands until the first generation. */
  private boolean waitingForGeneration;

  /** The assignor is cooperative: a member revokes after its SyncGroup and rejoins at once. */
  private boolean cooperative;

  /** Inside a {@code sync} command, where a generation completes. */
  private boolean syncing;

  private void subscribe() {
    consumer.subscribe(
        List.of(topic),
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            // A cooperative member that loses partitions in a generation rejoins within the same
            // poll, and its JoinGroup begins the next rebalance at once: a member whose SyncGroup
            // is sent a few milliseconds later is refused (REBALANCE_IN_PROGRESS) and gets no
            // assignment in this generation. In the model every member of a generation receives
            // its assignment before the revoking ones rejoin; holding the revocation for a moment
            // gives the other members' SyncGroups, already on their way, time to arrive first.
            if (cooperative && syncing && !partitions.isEmpty()) {
              sleep(REVOKE_HOLD_MS);
            }
          }

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            // Nothing is fetched but what the driver asks for.
            consumer.pause(partitions);
            int generation = consumer.groupMetadata().generationId();
            generations.put(generation, owned());
            List<String> order = ObservedAssignors.takeOrder();
            if (order != null) {
              memberOrders.put(generation, order);
            }
          }
        });
  }

  private List<Integer> owned() {
    TreeSet<Integer> owned = new TreeSet<>();
    for (TopicPartition tp : consumer.assignment()) {
      owned.add(tp.partition());
    }
    return new ArrayList<>(owned);
  }

  /** Polls until this member is in `generation` (or later), with its assignment settled. */
  private void sync(JsonNode command, ObjectNode reply) {
    int generation = command.path("generation").asInt();
    long deadline = System.currentTimeMillis() + command.path("timeout_ms").asLong(30_000);
    syncing = true;
    try {
      syncUntil(generation, deadline);
    } finally {
      syncing = false;
    }
    reply.put("generation", consumer.groupMetadata().generationId());
    reply.put("member_id", consumer.groupMetadata().memberId());
    ObjectNode joined = reply.putObject("generations");
    generations.forEach((g, owned) -> {
      ArrayNode list = joined.putArray(Integer.toString(g));
      owned.forEach(list::add);
    });
    ArrayNode owned = reply.putArray("assignment");
    owned().forEach(owned::add);
    if (!memberOrders.isEmpty()) {
      ObjectNode orders = reply.putObject("member_orders");
      memberOrders.forEach((g, ids) -> {
        ArrayNode list = orders.putArray(Integer.toString(g));
        ids.forEach(list::add);
      });
    }
  }

  private void syncUntil(int generation, long deadline) {
    while (System.currentTimeMillis() < deadline) {
      // Polls that return at once: a poll keeps looping inside for its whole timeout, and one
      // that went on past the generation could already rejoin a next rebalance (a cooperative
      // member that revoked partitions), which the model's member does only at its next poll.
      consumer.poll(Duration.ZERO);
      int now = consumer.groupMetadata().generationId();
      if (now >= generation && generations.containsKey(now)) {
        break;
      }
      sleep(SYNC_PAUSE_MS);
    }
  }

  /**
   * Polls `count` records of one partition, from the position Kafka holds for it. A poll that
   * returns more than asked (the model split its batch differently) is cut: the consumer seeks
   * back to just after the last record taken, as an application that stops early would.
   */
  private void fetch(JsonNode command, ObjectNode reply) {
    TopicPartition tp = new TopicPartition(topic, command.path("partition").asInt());
    int count = command.path("count").asInt();
    long deadline = System.currentTimeMillis() + command.path("timeout_ms").asLong(10_000);
    ArrayNode records = reply.putArray("records");
    if (!consumer.assignment().contains(tp)) {
      reply.put("error", "not assigned P" + tp.partition());
      return;
    }
    List<ConsumerRecord<String, String>> taken = new ArrayList<>();
    // Nothing to wait for past the log end: Kafka has no records there for this member.
    long end = consumer.endOffsets(List.of(tp)).get(tp);
    if (consumer.position(tp) >= end) {
      return;
    }
    consumer.resume(List.of(tp));
    try {
      while (taken.size() < count && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(POLL).records(tp)) {
          if (taken.size() < count) {
            taken.add(r);
          }
        }
        if (!consumer.assignment().contains(tp)) {
          reply.put("error", "P" + tp.partition() + " was revoked during the fetch");
          break;
        }
        if (consumer.position(tp) >= end) {
          break;
        }
      }
    } finally {
      if (consumer.assignment().contains(tp)) {
        consumer.pause(List.of(tp));
        if (!taken.isEmpty()) {
          consumer.seek(tp, taken.get(taken.size() - 1).offset() + 1);
        }
      }
    }
    for (ConsumerRecord<String, String> r : taken) {
      ObjectNode record = records.addObject();
      record.put("offset", r.offset());
      record.put("key", r.key());
      record.put("value", r.value());
    }
  }

  private void commit(JsonNode command, ObjectNode reply) {
    JsonNode offsets = command.path("offsets");
    Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
    if (offsets.isArray()) {
      for (JsonNode pair : offsets) {
        committed.put(
            new TopicPartition(topic, pair.get(0).asInt()), new OffsetAndMetadata(pair.get(1).asLong()));
      }
      consumer.commitSync(committed);
    } else {
      // What commitSync() commits: the position of every assigned partition.
      for (TopicPartition tp : consumer.assignment()) {
        committed.put(tp, new OffsetAndMetadata(consumer.position(tp)));
      }
      consumer.commitSync();
    }
    ArrayNode list = reply.putArray("offsets");
    new TreeMap<Integer, Long>() {
      {
        committed.forEach((tp, o) -> put(tp.partition(), o.offset()));
      }
    }.forEach((p, o) -> list.addArray().add(p).add(o));
  }

  private void reply(ObjectNode reply) throws Exception {
    out.println(json.writeValueAsString(reply));
  }
}
