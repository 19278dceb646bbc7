package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One instance of the exactly-once application of {@link Transactions}, in its own JVM so that a
 * crash is a process that dies (SIGKILL: its open transaction stays open until the transaction
 * coordinator aborts it) and a stall is a process that stops (SIGSTOP: its heartbeats stop too).
 *
 * <p>The application is the consume-transform-produce loop of the Java clients' documentation: a
 * {@code KafkaConsumer} (classic protocol, the range assignor, no auto commit, {@code
 * isolation.level=read_committed}) in the group, a {@code KafkaProducer} with its own {@code
 * transactional.id}; after {@code initTransactions()} and {@code subscribe}, each poll that returns
 * records is one transaction: {@code beginTransaction}, one result record per input record to the
 * output topic (the input's key; the value {@code INPUT|TAG|N}, TAG the start's {@code tag} or
 * the transactional id, N this instance's transaction count from 1, so a reader can tell which
 * input it is for and which transaction of which JVM wrote it), {@code sendOffsetsToTransaction(next offsets, consumer.groupMetadata())}, {@code
 * commitTransaction}. An abortable failure aborts the transaction and rewinds the consumer to the
 * group's committed offsets; a fencing ({@code ProducerFencedException}, {@code
 * InvalidProducerEpochException}, {@code FencedInstanceIdException} anywhere in the cause chain) or
 * another fatal failure ends the instance: it closes both clients and exits.
 *
 * <p>Calling contract: the process says {@code {"ready": true}} once its JVM is up and the
 * clients' classes are loaded, then waits (warm) for one line on stdin: {@code {"op": "start",
 * group, client_id, instance_id?, transactional_id, tag?, session_timeout_ms, heartbeat_interval_ms,
 * max_poll_records, transaction_timeout_ms, hold_after (0: never), paused (bool)}}. With {@code
 * paused} every partition it is assigned stays paused until the line {@code {"op": "go"}}. With
 * {@code hold_after} N, its first transaction stops after the N-th result is sent and flushed (the
 * results are in the log, the transaction open), says {@code {"event": "held"}} and waits for the
 * line {@code {"op": "continue"}} (the driver kills or stops it meanwhile). {@code {"op":
 * "close"}} (between transactions) closes both clients, says {@code {"event": "closed"}} and exits.
 * It writes one JSON line per thing that happened: {@code initialized}, {@code assigned} / {@code
 * revoked} / {@code lost} ({@code partitions}, {@code generation}), {@code begun} ({@code txn},
 * {@code inputs}), {@code held}, {@code committed} ({@code txn}, {@code inputs}, {@code offsets}
 * [[partition, next offset]…]), {@code aborted} ({@code txn}), {@code op-failed} ({@code op}: send,
 * send-offsets, commit, abort, poll, init; {@code txn}; {@code class}: the fencing exception's
 * simple name, or the thrown one's; {@code thrown}; {@code fenced}: a producer fencing), {@code
 * stopping} ({@code why}), {@code closed}, {@code failed} ({@code error}: the harness's own
 * failure). When its driver (its parent process) dies it exits.
 */
public final class EosInstance {
  /** One poll's wait: the instance looks at its commands between polls. */
  private static final Duration POLL = Duration.ofMillis(100);
  /** How long a warm instance waits for its start, and a held one for its continue. */
  private static final long WAIT_COMMAND_MS = 180_000;
  /** An instance still running this long after its start closes on its own. */
  private static final long MAX_RUN_MS = 300_000;
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration COMMITTED_TIMEOUT = Duration.ofSeconds(10);

  private final ObjectMapper json = new ObjectMapper();
  private final PrintStream out;
  private final BlockingQueue<JsonNode> commands = new LinkedBlockingQueue<>();
  private final String bootstrap;
  private final String input;
  private final String output;
  private KafkaConsumer<String, String> consumer;
  private KafkaProducer<String, String> producer;
  private String transactionalId;
  /** Names this instance in its results (the transactional id, or the start's {@code tag}). */
  private String tag;
  private boolean paused;
  private int holdAfter;
  private int txn;

  private EosInstance(PrintStream out, String bootstrap, String input, String output) {
    this.out = out;
    this.bootstrap = bootstrap;
    this.input = input;
    this.output = output;
  }

  public static void main(String[] args) throws Exception {
    // Kafka's client logs go to stderr: stdout is the protocol.
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(new PrintStream(System.err, true, StandardCharsets.UTF_8));
    Map<String, String> opts = DriverArgs.parse(args);
    EosInstance instance = new EosInstance(out, opts.get("bootstrap"), opts.get("input"), opts.get("output"));
    watchDriver();
    instance.readCommands();
    warmUp(opts.get("bootstrap"));
    instance.emit(instance.json.createObjectNode().put("ready", true));
    JsonNode start = instance.commands.poll(WAIT_COMMAND_MS, TimeUnit.MILLISECONDS);
    if (start == null || !start.path("op").asText().equals("start")) {
      instance.emit(instance.event("failed").put("error", "no start command within " + WAIT_COMMAND_MS + " ms: " + start));
      System.exit(4);
    }
    try {
      instance.run(start);
    } catch (Exception e) {
      // Said on stdout too, so the driver's report names it rather than timing out.
      instance.emit(instance.event("failed").put("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      e.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  /**
   * Exits when the driver that started this JVM is gone (killed with the run). The driver also
   * starts it under {@code setpriv --pdeathsig KILL} where it can, which ends a stopped one too.
   */
  private static void watchDriver() {
    ProcessHandle driver = ProcessHandle.current().parent().orElseThrow();
    Thread watch = new Thread(() -> {
      while (true) {
        if (!driver.isAlive()) Runtime.getRuntime().halt(3);
        try {
          Thread.sleep(200);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "driver-watch");
    watch.setDaemon(true);
    watch.start();
  }

  /** Stdin's lines, parsed, onto {@link #commands}; its end is {@code {"op": "eof"}}. */
  private void readCommands() {
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (!line.isBlank()) commands.add(json.readTree(line));
        }
      } catch (IOException e) {
        // The driver is gone: the watch ends this JVM.
      }
      commands.add(json.createObjectNode().put("op", "eof"));
    }, "commands");
    reader.setDaemon(true);
    reader.start();
  }

  /** Loads the clients' classes before saying ready, so a start is quick. */
  private static void warmUp(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    try (KafkaConsumer<String, String> warm = new KafkaConsumer<>(props)) {
      warm.listTopics(Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      // Only a warm-up: the real clients say what is wrong.
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    new KafkaProducer<String, String>(p).close(Duration.ofSeconds(5));
  }

  private void run(JsonNode start) throws Exception {
    transactionalId = start.path("transactional_id").asText();
    tag = start.path("tag").asText(transactionalId);
    paused = start.path("paused").asBoolean(false);
    holdAfter = start.path("hold_after").asInt(0);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, start.path("transaction_timeout_ms").asText());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    producer = new KafkaProducer<>(p);
    try {
      producer.initTransactions();
    } catch (RuntimeException e) {
      opFailed("init", e);
      stop("initTransactions failed");
      return;
    }
    emit(event("initialized").put("transactional_id", transactionalId));

    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, start.path("group").asText());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, start.path("client_id").asText());
    if (start.hasNonNull("instance_id")) c.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, start.path("instance_id").asText());
    c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    c.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
    c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, start.path("session_timeout_ms").asText());
    c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, start.path("heartbeat_interval_ms").asText());
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, start.path("max_poll_records").asText());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    consumer = new KafkaConsumer<>(c);
    consumer.subscribe(List.of(input), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        said("revoked", partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        // Nothing is processed before the driver says go.
        if (paused) consumer.pause(partitions);
        said("assigned", partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        said("lost", partitions);
      }
    });

    long until = System.currentTimeMillis() + MAX_RUN_MS;
    while (true) {
      if (System.currentTimeMillis() > until) {
        emit(event("failed").put("error", "still running " + MAX_RUN_MS + " ms after its start, without a close"));
        stop("ran too long");
        return;
      }
      for (JsonNode command = commands.poll(); command != null; command = commands.poll()) {
        switch (command.path("op").asText()) {
          case "go" -> {
            paused = false;
            consumer.resume(consumer.assignment());
          }
          case "close", "eof" -> {
            stop("asked to close");
            return;
          }
          default -> {}
        }
      }
      ConsumerRecords<String, String> records;
      try {
        records = consumer.poll(POLL);
      } catch (RuntimeException e) {
        opFailed("poll", e);
        stop("its poll failed");
        return;
      }
      if (records.isEmpty()) continue;
      if (!transaction(records)) return;
    }
  }

  /** One poll's records as one transaction: whether the instance goes on. */
  private boolean transaction(ConsumerRecords<String, String> records) throws Exception {
    txn++;
    int n = txn;
    List<String> inputs = new ArrayList<>();
    for (ConsumerRecord<String, String> r : records) inputs.add(r.value());
    String op = "begin";
    try {
      producer.beginTransaction();
      ObjectNode begun = event("begun").put("txn", n);
      inputs.forEach(begun.putArray("inputs")::add);
      emit(begun);
      op = "send";
      int sent = 0;
      for (ConsumerRecord<String, String> r : records) {
        String value = r.value() + "|" + tag + "|" + n;
        producer.send(new ProducerRecord<>(output, r.key(), value), (metadata, e) -> {
          if (e != null) opFailed("send", e, n);
        });
        sent++;
        if (holdAfter > 0 && sent == holdAfter) {
          holdAfter = 0;
          // The results are in the log, in the open transaction.
          producer.flush();
          emit(event("held").put("txn", n).put("sent", sent));
          if (!awaitContinue()) {
            stop("asked to close while held");
            return false;
          }
        }
      }
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (TopicPartition tp : records.partitions()) {
        List<ConsumerRecord<String, String>> of = records.records(tp);
        offsets.put(tp, new OffsetAndMetadata(of.get(of.size() - 1).offset() + 1));
      }
      op = "send-offsets";
      producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
      op = "commit";
      producer.commitTransaction();
      ObjectNode committed = event("committed").put("txn", n);
      inputs.forEach(committed.putArray("inputs")::add);
      ArrayNode list = committed.putArray("offsets");
      new TreeMap<Integer, Long>() {
        {
          offsets.forEach((tp, o) -> put(tp.partition(), o.offset()));
        }
      }.forEach((partition, offset) -> list.addArray().add(partition).add(offset));
      emit(committed);
      return true;
    } catch (RuntimeException e) {
      opFailed(op, e, n);
      if (fencing(e) != null || !abortable(e)) {
        stop("fenced or a fatal error in " + op);
        return false;
      }
      try {
        producer.abortTransaction();
        emit(event("aborted").put("txn", n));
      } catch (RuntimeException abort) {
        opFailed("abort", abort, n);
        stop("its abort failed");
        return false;
      }
      rewind();
      return true;
    }
  }

  /** Waits for {@code continue}: false when told to close instead (or nothing came in time). */
  private boolean awaitContinue() throws InterruptedException {
    long deadline = System.currentTimeMillis() + WAIT_COMMAND_MS;
    while (System.currentTimeMillis() < deadline) {
      JsonNode command = commands.poll(100, TimeUnit.MILLISECONDS);
      if (command == null) continue;
      switch (command.path("op").asText()) {
        case "continue" -> {
          emit(event("continued"));
          return true;
        }
        case "close", "eof" -> {
          return false;
        }
        case "go" -> {
          paused = false;
          consumer.resume(consumer.assignment());
        }
        default -> {}
      }
    }
    emit(event("failed").put("error", "held for " + WAIT_COMMAND_MS + " ms without a continue"));
    return false;
  }

  /** After an abort: every assigned partition back to the group's committed offset. */
  private void rewind() {
    Set<TopicPartition> assigned = consumer.assignment();
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned, COMMITTED_TIMEOUT);
    List<TopicPartition> none = new ArrayList<>();
    for (TopicPartition tp : assigned) {
      OffsetAndMetadata o = committed.get(tp);
      if (o == null) none.add(tp);
      else consumer.seek(tp, o.offset());
    }
    if (!none.isEmpty()) consumer.seekToBeginning(none);
  }

  /** The producer fencing in `e`'s cause chain (the broker's word that a newer epoch exists). */
  static Throwable fencing(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) return t;
      if (t.getCause() == t) break;
    }
    return null;
  }

  /** What may be aborted and retried; a fenced static member or a fatal producer may not. */
  private static boolean abortable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof FencedInstanceIdException || t instanceof IllegalStateException) return false;
      if (t.getCause() == t) break;
    }
    return true;
  }

  /** Closes both clients (bounded), says so. */
  private void stop(String why) {
    emit(event("stopping").put("why", why));
    if (consumer != null) {
      try {
        consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
      } catch (RuntimeException e) {
        System.err.println("closing the consumer: " + e);
      }
    }
    try {
      producer.close(CLOSE_TIMEOUT);
    } catch (RuntimeException e) {
      System.err.println("closing the producer: " + e);
    }
    emit(event("closed"));
  }

  private void opFailed(String op, Throwable e) {
    opFailed(op, e, txn);
  }

  private void opFailed(String op, Throwable e, int n) {
    Throwable fenced = fencing(e);
    Throwable shown = fenced != null ? fenced : e;
    emit(event("op-failed").put("op", op).put("txn", n).put("class", shown.getClass().getSimpleName())
        .put("thrown", e.getClass().getSimpleName()).put("fenced", fenced != null)
        .put("message", String.valueOf(shown.getMessage())));
  }

  private void said(String what, Collection<TopicPartition> partitions) {
    ObjectNode line = event(what);
    ArrayNode list = line.putArray("partitions");
    new TreeSet<>(partitions.stream().map(TopicPartition::partition).toList()).forEach(list::add);
    line.put("generation", consumer.groupMetadata().generationId());
    emit(line);
  }

  private ObjectNode event(String name) {
    return json.createObjectNode().put("event", name);
  }

  private synchronized void emit(ObjectNode line) {
    try {
      out.println(json.writeValueAsString(line));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
