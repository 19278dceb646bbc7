package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The producer's delivery built-ins on the real broker, through {@link FaultProxy}: {@code
 * retry-without-idempotence} (a lost acknowledgement writes a batch twice), {@code
 * idempotent-producer} (the same fault with idempotence: nothing twice) and {@code
 * inflight-reorders} (a lost request with five in flight: the retries land newest first).
 *
 * <p>{@code cargo xtask conformance} gives the broker a second listener whose advertised port is
 * the proxy's ({@code --proxy}), listening itself on {@code --upstream}; the producer bootstraps
 * through the proxy, so its requests pass it. Each story is told from the model's run ({@code
 * offsetlab run --scenario NAME --json --events}): the producer's settings (acks,
 * enable.idempotence, max.in.flight.requests.per.connection, retries), its batches in the order
 * they were first sent (records numbered in send order, each record's value its number), and the
 * fault, armed before the first batch as the scenario's timeline does. Ticks are not
 * milliseconds: Kafka's request timeout is {@link #REQUEST_TIMEOUT_MS}. A batch's records are
 * appended together (well within {@link #LINGER_MS}), and the next batch's only once the proxy has
 * seen as many produce requests as batches so far: each batch leaves as a request of its own
 * however slow the machine. Topic {@code delivery-NAME}, one partition, one replica.
 *
 * <p>Compared: the partition's log at the end, as record numbers by offset (Kafka's read back
 * with a consumer from the beginning, the model's from its {@code produced} events), and the two
 * counters computed from it with the model's definitions: written twice by the producer (a record
 * appended when its number is already in the log) and reordered by the producer (a first copy
 * appended after a record sent later). Every send must be acknowledged on both sides.
 *
 * <p>Usage: {@code Delivery --bootstrap H:P --proxy PORT --upstream PORT --offsetlab BIN --out
 * FILE.json}. Exit 0 when it ran (a difference is a result), 1 when the harness failed, 2 on bad
 * arguments.
 */
public final class Delivery {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> SCENARIOS =
      List.of("retry-without-idempotence", "idempotent-producer", "inflight-reorders");
  private static final String TOPIC_PREFIX = "delivery-";
  /** Kafka's request timeout: the lost request or answer is noticed after it. */
  private static final int REQUEST_TIMEOUT_MS = 2_000;
  private static final int DELIVERY_TIMEOUT_MS = 30_000;
  /** The batch waits this long for its records (all appended at once, well within it). */
  private static final int LINGER_MS = 300;
  /** How long a batch may take to leave as a produce request (a retry's timeout included). */
  private static final long BATCH_SENT_TIMEOUT_MS = 15_000;
  private static final int RETRY_BACKOFF_MS = 100;
  private static final long SEND_TIMEOUT_MS = 30_000;
  private static final long READ_TIMEOUT_MS = 30_000;
  /** A story's records, at most (the built-ins send 6). */
  private static final int RECORDS_MAX = 1_000;

  private final String bootstrap;
  private final String proxied;
  private final String offsetlab;
  private final FaultProxy proxy;
  private final Admin admin;

  private Delivery(String bootstrap, String proxied, String offsetlab, FaultProxy proxy) {
    this.bootstrap = bootstrap;
    this.proxied = proxied;
    this.offsetlab = offsetlab;
    this.proxy = proxy;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
    this.admin = Admin.create(props);
  }

  public static void main(String[] args) {
    String usage = "--bootstrap H:P --proxy PORT --upstream PORT --offsetlab BIN --out FILE.json";
    Map<String, String> opts = DriverArgs.last(DriverArgs.forDriver("Delivery", usage, args));
    int proxyPort = 0;
    int upstreamPort = 0;
    try {
      proxyPort = port(opts, "proxy");
      upstreamPort = port(opts, "upstream");
    } catch (IllegalArgumentException e) {
      System.err.println("Delivery: " + e.getMessage());
      System.err.println("usage: Delivery " + usage);
      System.exit(2);
    }
    Path out = Path.of(opts.get("out"));
    ArrayNode entries = JSON.createArrayNode();
    int code = 0;
    try (FaultProxy proxy = new FaultProxy(proxyPort, upstreamPort)) {
      Delivery run = new Delivery(opts.get("bootstrap"), "127.0.0.1:" + proxyPort, opts.get("offsetlab"), proxy);
      try {
        for (String scenario : SCENARIOS) {
          long start = System.nanoTime();
          try {
            ObjectNode entry = run.play(scenario, start);
            System.out.printf("%-30s %-12s %5.1f s  %s%n", scenario, entry.path("result").asText(), (System.nanoTime() - start) / 1e9, entry.path("detail").asText());
            entries.add(entry);
          } catch (Exception e) {
            System.err.println("Delivery: the harness failed in " + scenario + " (the model's seed, the scenario's own): " + e);
            e.printStackTrace();
            code = 1;
          }
        }
      } finally {
        run.admin.close(Duration.ofSeconds(5));
      }
    } catch (IOException e) {
      System.err.println("Delivery: cannot listen on 127.0.0.1:" + proxyPort + ": " + e.getMessage());
      code = 1;
    }
    try {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(entries));
    } catch (IOException e) {
      System.err.println("Delivery: cannot write " + out + ": " + e.getMessage());
      code = 1;
    }
    System.exit(code);
  }

  private static int port(Map<String, String> opts, String name) {
    String value = opts.get(name);
    if (value == null) throw new IllegalArgumentException("missing --" + name);
    try {
      int port = Integer.parseInt(value);
      if (port < 1 || port > 65_535) throw new NumberFormatException();
      return port;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " wants a port from 1 to 65535, not " + value);
    }
  }

  // ------------------------------------------------------------------ the model's story

  /** The model's run: the producer's settings, its batches, the fault, the log and counters. */
  record Model(
      long seed,
      String acks,
      boolean idempotence,
      int maxInFlight,
      int retries,
      List<Integer> batches,
      FaultProxy.Fault fault,
      List<Long> log,
      long duplicates,
      long reordered) {}

  private Model model(String scenario) throws Exception {
    JsonNode run = Scenarios.offsetlab(offsetlab, List.of("run", "--scenario", scenario, "--json", "--events"), null, false);
    JsonNode delivery = run.path("config").path("producer").path("delivery");
    if (delivery.isMissingNode()) throw new IllegalStateException(scenario + " has no delivery path in the model");
    List<Integer> batches = new ArrayList<>();
    FaultProxy.Fault fault = null;
    Map<Long, Long> byOffset = new TreeMap<>();
    for (JsonNode e : run.path("events")) {
      switch (e.path("event").asText()) {
        case "produce-sent" -> {
          if (e.path("attempt").asInt() == 0) batches.add(e.path("records").asInt());
        }
        case "produce-lost" -> {
          if (fault != null) throw new IllegalStateException(scenario + ": the model lost more than one request or answer");
          fault = switch (e.path("what").asText()) {
            case "request" -> FaultProxy.Fault.LOSE_NEXT_REQUEST;
            case "acknowledgement" -> FaultProxy.Fault.LOSE_NEXT_ACK;
            default -> throw new IllegalStateException(scenario + ": an unknown loss " + e);
          };
          if (batches.size() != 1) throw new IllegalStateException(scenario + ": the model's loss is not the first batch's");
        }
        case "produced" -> byOffset.put(e.path("offset").asLong(), e.path("record_id").asLong());
        default -> {}
      }
    }
    if (fault == null) throw new IllegalStateException(scenario + ": the model lost nothing");
    int records = batches.stream().mapToInt(Integer::intValue).sum();
    if (records < 1 || records > RECORDS_MAX) throw new IllegalStateException(scenario + ": " + records + " records");
    JsonNode metrics = run.path("metrics");
    return new Model(
        run.path("seed").asLong(),
        delivery.path("acks").asText(),
        delivery.path("enable_idempotence").asBoolean(),
        delivery.path("max_in_flight").asInt(),
        delivery.path("retries").asInt(),
        batches,
        fault,
        new ArrayList<>(byOffset.values()),
        metrics.path("producer_duplicates").asLong(),
        metrics.path("producer_reordered").asLong());
  }

  // ------------------------------------------------------------------ Kafka's side

  private ObjectNode play(String scenario, long startNanos) throws Exception {
    Model model = model(scenario);
    String topic = TOPIC_PREFIX + scenario;
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    TopicPartition tp = new TopicPartition(topic, 0);

    int appliedBefore = proxy.applied();
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(model))) {
      // Metadata first (through the proxy too), so that the first batch is the first produce.
      producer.partitionsFor(topic);
      proxy.arm(model.fault());
      int requestsBefore = proxy.produceRequests();
      long id = 0;
      for (int b = 0; b < model.batches().size(); b++) {
        for (int r = 0; r < model.batches().get(b); r++) {
          sends.add(producer.send(new ProducerRecord<>(topic, 0, null, Long.toString(id++))));
        }
        // The batch has left (or, one in flight at most, an earlier one's retry has).
        long deadline = System.currentTimeMillis() + BATCH_SENT_TIMEOUT_MS;
        while (proxy.produceRequests() < requestsBefore + b + 1) {
          if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException("batch " + b + " did not leave within " + BATCH_SENT_TIMEOUT_MS + " ms");
          }
          Thread.sleep(10);
        }
      }
      producer.flush();
      long deadline = System.currentTimeMillis() + SEND_TIMEOUT_MS;
      for (Future<RecordMetadata> send : sends) {
        // Every send must be acknowledged: a failed one is the harness's failure, not a result.
        send.get(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      }
    }
    if (proxy.pending() || proxy.applied() != appliedBefore + 1) {
      throw new IllegalStateException("the proxy did not apply the " + model.fault() + " fault exactly once");
    }
    List<Long> log = read(tp);
    long duplicates = 0;
    long reordered = 0;
    Set<Long> seen = new HashSet<>();
    long highest = -1;
    for (long id : log) {
      boolean copy = !seen.add(id);
      if (copy) duplicates++;
      else if (highest > id) reordered++;
      highest = Math.max(highest, id);
    }

    boolean sameLog = log.equals(model.log());
    boolean sameDuplicates = duplicates == model.duplicates();
    boolean sameReordered = reordered == model.reordered();
    int equal = (sameLog ? 1 : 0) + (sameDuplicates ? 1 : 0) + (sameReordered ? 1 : 0);
    String lost = model.fault() == FaultProxy.Fault.LOSE_NEXT_ACK ? "acknowledgement" : "request";
    ObjectNode entry = JSON.createObjectNode();
    entry.put("name", scenario);
    entry.put("kind", "scenario");
    entry.put("result", equal == 3 ? "equal" : "different");
    entry.put("cases", 3);
    entry.put(
        "detail",
        String.format(
            "acks=%s, enable.idempotence=%s, %d in flight, the first batch's %s lost by a proxy: Kafka's log %s, written twice %d, reordered %d; offsetlab's %s, %d, %d (seed %d), %.1f s: %d of 3 checks equal",
            model.acks(), model.idempotence(), model.maxInFlight(), lost, log, duplicates, reordered, model.log(),
            model.duplicates(), model.reordered(), model.seed(), (System.nanoTime() - startNanos) / 1e9, equal));
    entry.put(
        "table",
        String.format(
            "story: batches of %s records, the first batch's %s lost (the connection carries nothing more that way until the request times out)%n"
                + "%-62s offsetlab %s, kafka %s%n%-62s offsetlab %d, kafka %d%n%-62s offsetlab %d, kafka %d%n"
                + "%-62s kafka: request.timeout.ms %d, linger.ms %d, a batch's records appended once the one before left%n",
            model.batches(), lost,
            "the log, as record numbers by offset", model.log(), log,
            "written twice by the producer", model.duplicates(), duplicates,
            "reordered by the producer", model.reordered(), reordered,
            "timing", REQUEST_TIMEOUT_MS, LINGER_MS));
    return entry;
  }

  private Properties producerProps(Model model) {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, proxied);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.ACKS_CONFIG, model.acks());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(model.idempotence()));
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, Integer.toString(model.maxInFlight()));
    props.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(model.retries()));
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(REQUEST_TIMEOUT_MS));
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.toString(DELIVERY_TIMEOUT_MS));
    props.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(LINGER_MS));
    props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, Integer.toString(RETRY_BACKOFF_MS));
    props.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, Integer.toString(RETRY_BACKOFF_MS));
    return props;
  }

  /** The partition from the beginning to its end: each record's number, by offset. */
  private List<Long> read(TopicPartition tp) throws Exception {
    long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(10, TimeUnit.SECONDS).offset();
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<Long> log = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + READ_TIMEOUT_MS;
      while (consumer.position(tp) < end) {
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException("read " + log.size() + " of " + end + " records in " + READ_TIMEOUT_MS + " ms");
        }
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          if (log.size() >= RECORDS_MAX * 4) throw new IllegalStateException("more than " + RECORDS_MAX * 4 + " records");
          log.add(Long.parseLong(record.value()));
        }
      }
    }
    return log;
  }
}
