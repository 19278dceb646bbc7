package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Runs offsetlab's share-group built-ins (KIP-932) on a real broker with {@code KafkaShareConsumer}s
 * and compares what does not depend on time with the model's run of the same built-in.
 *
 * <p>Per built-in: a topic with the scenario's partitions, a share group with the scenario's
 * consumers (threads of this JVM, one {@code KafkaShareConsumer} each) and acknowledgement mode,
 * {@code share.auto.offset.reset=earliest} (records are sent only once every member has its
 * assignment, so the model's {@code latest} would read the same), records sent with keys. The
 * members start one at a time, in the model's order, each once Kafka has taken the previous join
 * (group epoch moved, target computed, the joining member at it and holding partitions); records
 * are sent once the group has settled (every member at the target assignment epoch, which each
 * reaches at its next heartbeat). The four built-ins run side by side, each with its own topic
 * and group. The epochs are compared as rules that do not depend on when the share coordinator
 * finishes initialising the partitions' share state (here after the first member's join, in the
 * model a tick after all its members joined at tick 0): the first member's join gives group and
 * member epoch 2 and no partitions; each later join bumps the group epoch by exactly 1 (the
 * model's joins from its events); the initialisation adds exactly one bump (settled group epoch
 * &minus; 1 &minus; the number of joins); once settled, the group and assignment epochs and each
 * member's epoch (against {@code offsetlab run --ticks T --describe state|members --verbose} at
 * the first tick T where the model's group has all its members, is Stable, every member holds
 * partitions and is at the assignment epoch). Each side's epoch after each join is shown, not
 * compared: where the initialisation's bump falls in it is timing. Also compared: the simple
 * assignor's shape (how many members share each partition, how many partitions each member has)
 * against {@code offsetlab run --describe members}; and the scenario's mechanism:
 * every member handles records and none twice (busy); the poison record delivered with delivery
 * counts 1 to {@code group.share.delivery.count.limit} and then archived, every other record once
 * (poison); a stalled member's records delivered again, with delivery count 2, to the others
 * when its locks run out, and handled twice (lock timeout).
 *
 * <p>{@code share-dlq} (KIP-1191, the broker's dead-letter queue) is the poison run with the
 * group configs {@code errors.deadletterqueue.topic.name} and {@code
 * errors.deadletterqueue.copy.record.enable} set as the scenario's {@code dead_letter_topic} and
 * {@code dead_letter_copy_record}, on a cluster at {@code share.version=2} (read with Admin
 * before the runs, upgraded with {@code updateFeatures} when it is lower) and with the DLQ topic
 * made beforehand as the model takes it to be: the source topic's partition count and {@code
 * errors.deadletterqueue.group.enable=true}. The poison record is sent to the model's poison
 * partition, so partitions compare as they are. Once the broker archived it, the DLQ topic is read
 * back with a plain {@code KafkaConsumer} and compared with the model's {@code
 * share_dead_letters}: how many letters, the letter's partition, its key and value (the poison
 * record's, copied), its header names in order and each header's value (the source topic and
 * the group by the driver's names for the model's; the offset as the poison record's offset on
 * each side; the partition, delivery count and message as they are). The letters' offsets and
 * timestamps are shown, not compared.
 *
 * <p>Usage: {@code ShareGroups --bootstrap 127.0.0.1:PORT --offsetlab BIN [--subset] --out
 * FILE.json}. Exit 0 when it ran (a difference is a result), 1 when the harness failed.
 */
public final class ShareGroups {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Records sent per built-in: enough for every member to acquire some. */
  private static final int RECORDS = 120;
  /** The lock of the lock-timeout run (the broker's minimum, set in server.properties). */
  private static final int LOCK_DURATION_MS = 1_000;
  private static final long RUN_TIMEOUT_MS = 60_000;
  /** Between two sends, and the handling of one record: the members are busy, as in the model. */
  private static final long SEND_PAUSE_MS = 5;
  private static final long HANDLE_MS = 20;
  private static final long ASSIGNED_TIMEOUT_MS = 30_000;
  /** How long one member's join may take to show, and how often to look. */
  private static final long JOIN_TIMEOUT_MS = 15_000;
  private static final long JOIN_LOOK_MS = 100;
  /** The model's group settles within this many ticks of the start. */
  private static final int MODEL_SETTLE_TICKS = 200;

  /** The built-ins it runs, side by side. */
  private static final List<String> BUILT_INS =
      List.of("share-group-busy", "share-poison-record", "share-lock-timeout", "share-dlq");
  /** The share.version the dead-letter queue needs (KIP-1191: {@code ShareVersion.SV_2}). */
  private static final short DLQ_SHARE_VERSION = 2;
  /** How long the broker may take to write a letter once the record is archived. */
  private static final long LETTER_TIMEOUT_MS = 30_000;
  /** How long to keep reading the DLQ topic after the letters expected are there: more would show. */
  private static final long MORE_LETTERS_MS = 2_000;

  private final String bootstrap;
  private final String offsetlab;
  private final Admin admin;
  /** What the cluster's share.version was and whether it was upgraded (shown in share-dlq). */
  private volatile String shareVersion = "";

  private ShareGroups(String bootstrap, String offsetlab) {
    this.bootstrap = bootstrap;
    this.offsetlab = offsetlab;
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.admin = Admin.create(props);
  }

  /** One delivery as a member's poll returned it. */
  record Delivery(String member, int partition, long offset, String value, int deliveryCount) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts =
        DriverArgs.last(DriverArgs.forDriver("ShareGroups", "--bootstrap HOST:PORT --offsetlab BIN [--subset] --out FILE.json", args));
    List<Map<String, Object>> entries = new ArrayList<>();
    ShareGroups run = new ShareGroups(opts.get("bootstrap"), opts.get("offsetlab"));
    // The built-ins run side by side (each its own topic and group): most of each is waiting for
    // share heartbeats (5 s apart, the broker's minimum).
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(BUILT_INS.size());
    try {
      // share-dlq needs the cluster at share.version 2: a feature of the cluster, so before any run.
      run.shareVersion = run.ensureShareVersion();
      System.out.println("  " + run.shareVersion);
      List<java.util.concurrent.Future<Map<String, Object>>> runs = new ArrayList<>();
      for (String name : BUILT_INS) {
        runs.add(pool.submit(() -> run.compare(name)));
      }
      for (var f : runs) {
        try {
          entries.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          if (e.getCause() instanceof Exception cause) throw cause;
          throw e;
        }
      }
    } finally {
      pool.shutdownNow();
      run.admin.close(Duration.ofSeconds(5));
    }
    JSON.writerWithDefaultPrettyPrinter().writeValue(Path.of(opts.get("out")).toFile(), entries);
  }

  private Map<String, Object> compare(String name) throws Exception {
    long started = System.nanoTime();
    JsonNode model = Scenarios.offsetlab(offsetlab,
        List.of("run", "--scenario", name, "--describe", "members", "--json", "--events"), null, false);
    JsonNode topicConfig = model.path("config");
    JsonNode config = topicConfig.path("groups").path(0);
    String modelMembers = model.path("groups").path(0).path("describe").asText();
    int limit = config.path("delivery_count_limit").asInt();
    int partitions = topicConfig.path("partitions").asInt();
    int consumers = config.path("consumers").asInt();
    boolean explicit = config.path("acknowledgement_mode").asText("implicit").equals("explicit");
    boolean dlq = name.equals("share-dlq");
    boolean poison = name.equals("share-poison-record") || dlq;
    boolean stall = name.equals("share-lock-timeout");
    String topic = name;
    String group = name;
    // The dead-letter topic, by the scenario's name (the broker's default prefix dlq. is in it; no
    // other run uses it), and the model's poison record (its partition is where this one goes).
    String dlqTopic = config.path("dead_letter_topic").asText("");
    boolean copyRecord = config.path("dead_letter_copy_record").asBoolean(false);
    JsonNode modelPoison = null;
    for (JsonNode e : model.path("events")) {
      if (e.path("event").asText().equals("produced") && e.path("poison").asBoolean(false)) {
        modelPoison = e;
        break;
      }
    }
    if (dlq && (dlqTopic.isEmpty() || modelPoison == null)) {
      throw new IllegalStateException(name + ": the model names no dead-letter topic or sends no poison record");
    }
    List<NewTopic> topics = new ArrayList<>(List.of(new NewTopic(topic, partitions, (short) 1)));
    if (dlq) {
      // As the model takes it: there, opted in, with the source topic's partition count.
      topics.add(new NewTopic(dlqTopic, partitions, (short) 1)
          .configs(Map.of(TopicConfig.ERRORS_DEADLETTERQUEUE_GROUP_ENABLE_CONFIG, "true")));
    }
    admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
    List<AlterConfigOp> groupConfig = new ArrayList<>();
    groupConfig.add(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET));
    if (dlq) {
      groupConfig.add(new AlterConfigOp(new ConfigEntry("errors.deadletterqueue.topic.name", dlqTopic),
          AlterConfigOp.OpType.SET));
      groupConfig.add(new AlterConfigOp(new ConfigEntry("errors.deadletterqueue.copy.record.enable",
          String.valueOf(copyRecord)), AlterConfigOp.OpType.SET));
    }
    if (stall) {
      groupConfig.add(new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms",
          String.valueOf(LOCK_DURATION_MS)), AlterConfigOp.OpType.SET));
    }
    admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), groupConfig))
        .all().get(30, TimeUnit.SECONDS);

    List<Delivery> deliveries = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger refused = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    java.util.concurrent.atomic.AtomicReference<String> stalled = new java.util.concurrent.atomic.AtomicReference<>();
    Map<String, Boolean> polled = new ConcurrentHashMap<>();
    List<Thread> members = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    java.util.function.IntFunction<Thread> member = i -> {
      String client = "c" + i;
      Thread t = new Thread(() -> {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, client);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.path("records_per_poll").asText("4"));
        props.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, explicit ? "explicit" : "implicit");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
          consumer.setAcknowledgementCommitCallback((offsets, e) -> {
            if (e != null) refused.addAndGet(offsets.values().stream().mapToInt(java.util.Set::size).sum());
          });
          consumer.subscribe(List.of(topic));
          while (!stop.get()) {
            var records = consumer.poll(Duration.ofMillis(100));
            polled.put(client, true);
            for (ConsumerRecord<String, String> r : records) {
              deliveries.add(new Delivery(client, r.partition(), r.offset(), r.value(),
                  r.deliveryCount().map(Short::intValue).orElse(-1)));
              if (explicit) {
                consumer.acknowledge(r, r.value().equals("poison") ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
              }
              Thread.sleep(HANDLE_MS);
            }
            // The first member to get records stalls once, on them, for three lock durations.
            if (stall && !records.isEmpty() && stalled.compareAndSet(null, client)) {
              Thread.sleep(3L * LOCK_DURATION_MS);
              // Handled: acknowledged now (implicit mode), after the locks ran out.
              consumer.commitSync(Duration.ofSeconds(5)).values().forEach(e -> {
                if (e.isPresent()) {
                  refused.incrementAndGet();
                  System.err.println("late acknowledgement: " + e.get());
                }
              });
            }
          }
          consumer.commitSync(Duration.ofSeconds(5));
        } catch (Throwable e) {
          failures.add(e);
        }
      }, "share-" + client);
      t.start();
      return t;
    };
    try {
      // The members join one at a time, each once Kafka has taken its join (the group epoch moved,
      // the target is computed for it, the joining member is at that epoch), in the model's order.
      // Each later join's bump is its settled epoch less the one before it (nothing else bumps the
      // group in between: the first member holds partitions, so the initialisation is done).
      String kafkaFirstSeen = null;
      List<Integer> kafkaLaterBumps = new ArrayList<>();
      List<String> kafkaSequence = new ArrayList<>();
      int epochBefore = 0;
      long joinsStarted = System.nanoTime();
      for (int i = 1; i <= consumers; i++) {
        members.add(member.apply(i));
        Joined joined = awaitJoin(name, group, "c" + i, i, epochBefore, failures);
        int after = joined.settled().groupEpoch();
        if (i == 1) {
          kafkaFirstSeen = joined.firstSeen();
          kafkaSequence.add("c1 " + joined.firstSeenGroupEpoch());
          if (after != joined.firstSeenGroupEpoch()) kafkaSequence.add("bump " + after + " (no join)");
        } else {
          kafkaLaterBumps.add(after - epochBefore);
          kafkaSequence.add("c" + i + " " + after);
        }
        epochBefore = after;
      }
      long joinsDone = System.nanoTime();
      long deadline = System.currentTimeMillis() + ASSIGNED_TIMEOUT_MS;
      ShareGroupDescription described = null;
      List<Integer> last = List.of();
      int settled = 0;
      while (System.currentTimeMillis() < deadline) {
        described = describe(group);
        if (described == null) {
          Thread.sleep(100);
          continue;
        }
        // Settled: every member has a partition, every partition a member, every member at the
        // target assignment epoch (each gets there at its next heartbeat), the same three times.
        List<Integer> now = new ArrayList<>(shape(described, partitions));
        now.add(described.groupEpoch());
        now.add(described.targetAssignmentEpoch());
        boolean atTarget = true;
        for (ShareMemberDescription m : described.members()) {
          atTarget &= m.memberEpoch() == described.targetAssignmentEpoch();
        }
        boolean full = described.members().size() == consumers && polled.size() == consumers
            && !shape(described, partitions).contains(0) && atTarget
            && described.groupEpoch() == described.targetAssignmentEpoch();
        settled = full && now.equals(last) ? settled + 1 : 0;
        last = now;
        if (settled >= 3) break;
        Thread.sleep(200);
      }
      if (described == null || described.members().size() != consumers) {
        throw new IllegalStateException(name + ": the share group did not reach " + consumers + " members");
      }
      if (settled < 3) {
        throw new IllegalStateException(name + ": the share group did not settle in " + ASSIGNED_TIMEOUT_MS + " ms: "
            + described);
      }
      List<Integer> kafkaShape = shape(described, partitions);
      Map<String, Integer> kafkaMemberEpochs = new TreeMap<>();
      for (ShareMemberDescription m : described.members()) kafkaMemberEpochs.put(m.clientId(), m.memberEpoch());
      int kafkaGroupEpoch = described.groupEpoch();
      int kafkaTargetEpoch = described.targetAssignmentEpoch();
      System.out.printf("  %-22s joins %.1f s, settled %.1f s later%n", name, (joinsDone - joinsStarted) / 1e9,
          (System.nanoTime() - joinsDone) / 1e9);
      ProducerRecord<String, String> poisonSent = null;
      RecordMetadata poisonAt = null;
      try (KafkaProducer<String, String> producer = producer()) {
        int keys = topicConfig.path("producer").path("key_count").asInt(8);
        for (int i = 0; i < RECORDS; i++) {
          boolean isPoison = poison && i == RECORDS / 4;
          String value = isPoison ? "poison" : "v" + i;
          String key = "k" + (i % keys);
          // One record per batch, as the model sends them: a share fetch acquires whole batches.
          // share-dlq's poison goes to the model's poison partition.
          ProducerRecord<String, String> record = isPoison && dlq
              ? new ProducerRecord<>(topic, modelPoison.path("partition").asInt(), key, value)
              : new ProducerRecord<>(topic, key, value);
          var sent = producer.send(record);
          producer.flush();
          if (isPoison) {
            poisonSent = record;
            poisonAt = sent.get(30, TimeUnit.SECONDS);
          }
          Thread.sleep(SEND_PAUSE_MS);
        }
      }
      // Until every record is done: accepted once, or (the poison) delivered to the limit.
      long end = System.currentTimeMillis() + RUN_TIMEOUT_MS;
      while (System.currentTimeMillis() < end) {
        long accepted;
        long poisonDeliveries;
        // The members' threads add to the list: a stream over it holds its lock.
        synchronized (deliveries) {
          accepted = deliveries.stream().filter(d -> !d.value().equals("poison"))
              .map(d -> d.partition() + ":" + d.offset()).distinct().count();
          poisonDeliveries = deliveries.stream().filter(d -> d.value().equals("poison")).count();
        }
        if (accepted == (poison ? RECORDS - 1 : RECORDS) && (!poison || poisonDeliveries >= limit)
            && (!stall || stalled.get() != null)) {
          break;
        }
        Thread.sleep(50);
      }
      // A poison delivery after the limit would show in this time.
      Thread.sleep(stall ? 3L * LOCK_DURATION_MS : 1_000);
      stop.set(true);
      for (Thread t : members) t.join(15_000);
      if (!failures.isEmpty()) throw new IllegalStateException(name + ": a share consumer failed", failures.get(0));

      List<String> differences = new ArrayList<>();
      List<String> table = new ArrayList<>();
      List<String> notes = new ArrayList<>();
      List<Integer> modelShape = modelShape(modelMembers, partitions);
      // The simple assignor walks members in its HashMap order of member ids (random in Kafka,
      // seeded in the model) and keeps earlier targets, so which member gets a second partition,
      // and whether the last slot of a partition is filled, can differ from run to run on the
      // broker. Compared: the rules every such result keeps; the exact shape is shown.
      check(differences, table, "the simple assignor's rules (members per partition, partitions per member)",
          shapeRules(modelShape, consumers, partitions), shapeRules(kafkaShape, consumers, partitions));
      notes.add(String.format("%-70s offsetlab %s, kafka %s (not compared)",
          "members per partition, then partitions per member", modelShape, kafkaShape));
      // The epochs, as rules that hold whenever the initialisation completes. The model's joins
      // (all at tick 0, in order) from its events: a bump belongs to a join when the next member
      // to reconcile is one reconciling for the first time (the joiner, its join's answer); any
      // other bump is not a join's (in these built-ins, the initialisation's, at the next
      // heartbeat after it completed). Its settled group from --describe state/members --verbose
      // at the first tick it is settled.
      String modelFirstSeen = null;
      List<Integer> modelLaterBumps = new ArrayList<>();
      List<String> modelSequence = new ArrayList<>();
      java.util.Set<String> modelJoined = new java.util.HashSet<>();
      int modelEpoch = 0;
      Integer pendingBump = null;
      for (JsonNode e : model.path("events")) {
        switch (e.path("event").asText()) {
          case "group-epoch-bumped" -> {
            int now = e.path("group_epoch").asInt();
            if (pendingBump != null) modelSequence.add("bump " + modelEpoch + " (no join)");
            pendingBump = now - modelEpoch;
            modelEpoch = now;
          }
          case "reconciled" -> {
            String client = e.path("consumer").asText();
            if (modelJoined.add(client)) {
              if (modelJoined.size() == 1) {
                modelFirstSeen = seen(modelEpoch, e.path("member_epoch").asInt(), e.path("assignment").size());
              } else {
                modelLaterBumps.add(pendingBump == null ? 0 : pendingBump);
              }
              modelSequence.add(client + " " + modelEpoch);
            } else if (pendingBump != null) {
              modelSequence.add("bump " + modelEpoch + " (no join)");
            }
            pendingBump = null;
          }
          default -> {}
        }
      }
      ModelSettled m = modelSettled(name, consumers);
      check(differences, table, "c1's join: group epoch, c1's epoch and partitions", modelFirstSeen, kafkaFirstSeen);
      check(differences, table, "group epoch bump of each later join (c2..c" + consumers + ")",
          modelLaterBumps, kafkaLaterBumps);
      check(differences, table, "bumps not from a join (settled group epoch - 1 - " + consumers + " joins)",
          m.groupEpoch() - 1 - consumers, kafkaGroupEpoch - 1 - consumers);
      check(differences, table, "group epoch, assignment epoch once settled",
          m.groupEpoch() + ", " + m.assignmentEpoch(), kafkaGroupEpoch + ", " + kafkaTargetEpoch);
      check(differences, table, "member epochs once settled", m.memberEpochs(), kafkaMemberEpochs);
      notes.add(String.format("%-70s offsetlab %s, kafka %s (not compared)", "group epoch after each join, in order",
          String.join(", ", modelSequence), String.join(", ", kafkaSequence)));
      notes.add(String.format("%-70s %s", "  why the sequences differ",
          "timing: the initialisation's bump falls at the first heartbeat after it completes; the model's members"
              + " all join at tick 0, before it completes (tick 1); here each joins once the one before holds"
              + " partitions, so it falls after c1's join"));
      notes.add(String.format("%-70s tick %d (--ticks %d)",
          "offsetlab settled (all members, Stable, holding partitions, at the assignment epoch)", m.tick(), m.tick()));
      JsonNode metrics = model.path("metrics");
      List<Delivery> all = new ArrayList<>(deliveries);
      Map<String, Integer> perRecord = new TreeMap<>();
      for (Delivery d : all) perRecord.merge(d.partition() + ":" + d.offset(), 1, Integer::sum);
      long twice = all.stream().filter(d -> !d.value().equals("poison"))
          .filter(d -> perRecord.get(d.partition() + ":" + d.offset()) > 1).map(d -> d.partition() + ":" + d.offset())
          .distinct().count();
      switch (name) {
        case "share-group-busy" -> {
          long active = all.stream().map(Delivery::member).distinct().count();
          check(differences, table, "members that handled records", metrics.path("active_consumers").asLong(), active);
          check(differences, table, "records delivered twice", metrics.path("duplicates").asLong(), twice);
        }
        case "share-poison-record", "share-dlq" -> {
          List<Integer> counts = all.stream().filter(d -> d.value().equals("poison")).map(Delivery::deliveryCount).toList();
          check(differences, table, "deliveries of the poison record (then archived)", metrics.path("failed").asLong(),
              (long) counts.size());
          List<Integer> expected = java.util.stream.IntStream.rangeClosed(1, limit).boxed().toList();
          check(differences, table, "the poison record's delivery counts", expected, counts);
          check(differences, table, "other records delivered twice", metrics.path("duplicates").asLong(), twice);
          if (dlq) {
            List<ConsumerRecord<String, String>> letters =
                readLetters(dlqTopic, model.path("share_dead_letters").size());
            compareLetters(differences, table, notes, model, modelPoison, letters, poisonSent, poisonAt,
                topicOf(modelMembers), config.path("name").asText(), topic, group, dlqTopic);
            notes.add(String.format("%-70s %s", "the cluster's share.version (the DLQ needs 2)", shareVersion));
            notes.add(String.format("%-70s %s", "the DLQ topic",
                dlqTopic + " created beforehand: " + partitions + " partitions (the source's, as in the model), "
                    + TopicConfig.ERRORS_DEADLETTERQUEUE_GROUP_ENABLE_CONFIG + "=true"));
          }
        }
        default -> {
          long again = all.stream().filter(d -> d.deliveryCount() == 2 && !d.member().equals(stalled.get()))
              .map(d -> d.partition() + ":" + d.offset()).distinct().count();
          check(differences, table, "a stalled member's records delivered again (delivery count 2) to others",
              metrics.path("redelivered").asLong() >= 1, again >= 1);
          check(differences, table, "records handled twice", metrics.path("duplicates").asLong() >= 1, twice >= 1);
          // Not compared: Kafka 4.4.0's commitSync reports no error for the acknowledgement of a
          // record whose lock ran out, where the model shows the refusal (a known difference).
          notes.add(String.format("%-70s kafka %d (not compared)", "late acknowledgements the client reported refused",
              refused.get()));
        }
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", name);
      entry.put("kind", "scenario");
      entry.put("result", differences.isEmpty() ? "equal" : "different");
      entry.put("cases", table.size());
      entry.put("detail", String.format("%d share consumers on %d partitions, %d records, %s acknowledgement%s, %.1f s: %s",
          consumers, partitions, RECORDS, explicit ? "explicit" : "implicit",
          dlq ? ", dead letters to " + dlqTopic + (copyRecord ? " (copied)" : "") : "",
          (System.nanoTime() - started) / 1e9,
          differences.isEmpty() ? "all equal" : String.join("; ", differences)));
      table.addAll(notes);
      entry.put("table", String.join("\n", table));
      System.out.printf("  %-22s %s%n", name, differences.isEmpty() ? "equal" : "different: " + differences);
      return entry;
    } finally {
      stop.set(true);
      for (Thread t : members) t.join(15_000);
    }
  }

  /**
   * Brings the cluster to {@code share.version} {@link #DLQ_SHARE_VERSION} if it is lower (Admin's
   * {@code updateFeatures}, as {@code kafka-features upgrade} does): what it was, as a line.
   */
  private String ensureShareVersion() throws Exception {
    Map<String, FinalizedVersionRange> finalized =
        admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS).finalizedFeatures();
    FinalizedVersionRange share = finalized.get("share.version");
    FinalizedVersionRange metadata = finalized.get("metadata.version");
    short at = share == null ? 0 : share.maxVersionLevel();
    String formatted = "as formatted: share.version " + at + ", metadata.version "
        + (metadata == null ? "?" : metadata.maxVersionLevel());
    if (at >= DLQ_SHARE_VERSION) return formatted + " (no update)";
    FeatureUpdate upgrade = new FeatureUpdate(DLQ_SHARE_VERSION, FeatureUpdate.UpgradeType.UPGRADE);
    admin.updateFeatures(Map.of("share.version", upgrade), new UpdateFeaturesOptions()).all().get(30, TimeUnit.SECONDS);
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline) {
      FinalizedVersionRange now = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS)
          .finalizedFeatures().get("share.version");
      if (now != null && now.maxVersionLevel() >= DLQ_SHARE_VERSION) {
        return formatted + "; upgraded to share.version " + now.maxVersionLevel() + " with Admin.updateFeatures";
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("share.version did not reach " + DLQ_SHARE_VERSION + " after updateFeatures");
  }

  /**
   * The records of the dead-letter topic, read from the start of each partition with a plain
   * consumer (no group) until {@code expected} are there and {@link #MORE_LETTERS_MS} more passed,
   * or {@link #LETTER_TIMEOUT_MS} passed: the broker writes a letter after archiving the record.
   */
  private List<ConsumerRecord<String, String>> readLetters(String dlqTopic, int expected) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> letters = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = consumer.partitionsFor(dlqTopic, Duration.ofSeconds(30)).stream()
          .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.currentTimeMillis() + LETTER_TIMEOUT_MS;
      long enough = Long.MAX_VALUE;
      while (System.currentTimeMillis() < Math.min(deadline, enough)) {
        consumer.poll(Duration.ofMillis(200)).forEach(letters::add);
        if (letters.size() >= expected && enough == Long.MAX_VALUE) {
          enough = System.currentTimeMillis() + MORE_LETTERS_MS;
        }
      }
    }
    return letters;
  }

  /**
   * share-dlq: the letters on the broker's dead-letter topic against the model's {@code
   * share_dead_letters}. The model's source topic and group are mapped to the driver's; each
   * side's offset header against its own poison record's offset.
   */
  private static void compareLetters(List<String> differences, List<String> table, List<String> notes, JsonNode model,
      JsonNode modelPoison, List<ConsumerRecord<String, String>> letters, ProducerRecord<String, String> poisonSent,
      RecordMetadata poisonAt, String modelTopic, String modelGroup, String topic, String group, String dlqTopic) {
    JsonNode modelLetters = model.path("share_dead_letters");
    check(differences, table, "letters on " + dlqTopic, modelLetters.size(), letters.size());
    if (modelLetters.size() == 0 || letters.isEmpty()) return;
    JsonNode ours = modelLetters.path(0);
    ConsumerRecord<String, String> theirs = letters.get(0);
    check(differences, table, "the letter's partition (the poison's, sent to the model's)",
        ours.path("partition").asInt(), theirs.partition());
    String modelKey = modelPoison.path("keyed").asBoolean(true) ? "user-" + modelPoison.path("subject").asInt() : null;
    check(differences, table, "the letter's key and value (copy.record.enable)",
        copied(java.util.Objects.equals(ours.path("key").isNull() ? null : ours.path("key").asText(), modelKey),
            ours.path("value_record_id").asLong(-1) == modelPoison.path("record_id").asLong()),
        copied(java.util.Objects.equals(theirs.key(), poisonSent.key()),
            java.util.Objects.equals(theirs.value(), poisonSent.value())));
    Map<String, String> modelHeaders = new LinkedHashMap<>();
    for (JsonNode h : ours.path("headers")) modelHeaders.put(h.path("name").asText(), h.path("value").asText());
    Map<String, String> kafkaHeaders = new LinkedHashMap<>();
    for (Header h : theirs.headers()) {
      String value = h.value() == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
      kafkaHeaders.put(h.key(), value);
    }
    check(differences, table, "the letter's headers, in order", List.copyOf(modelHeaders.keySet()),
        List.copyOf(kafkaHeaders.keySet()));
    String modelSourceTopic = modelHeaders.get("__dlq.errors.topic");
    check(differences, table, "__dlq.errors.topic (model's " + modelTopic + " as " + topic + ")",
        modelTopic.equals(modelSourceTopic) ? topic : modelSourceTopic, kafkaHeaders.get("__dlq.errors.topic"));
    check(differences, table, "__dlq.errors.partition", modelHeaders.get("__dlq.errors.partition"),
        kafkaHeaders.get("__dlq.errors.partition"));
    check(differences, table, "__dlq.errors.offset is the poison record's offset",
        modelPoison.path("offset").asText().equals(modelHeaders.get("__dlq.errors.offset")),
        String.valueOf(poisonAt.offset()).equals(kafkaHeaders.get("__dlq.errors.offset")));
    String modelHeaderGroup = modelHeaders.get("__dlq.errors.group");
    check(differences, table, "__dlq.errors.group (model's " + modelGroup + " as " + group + ")",
        modelGroup.equals(modelHeaderGroup) ? group : modelHeaderGroup, kafkaHeaders.get("__dlq.errors.group"));
    check(differences, table, "__dlq.errors.delivery.count", modelHeaders.get("__dlq.errors.delivery.count"),
        kafkaHeaders.get("__dlq.errors.delivery.count"));
    check(differences, table, "__dlq.errors.message", modelHeaders.get("__dlq.errors.message"),
        kafkaHeaders.get("__dlq.errors.message"));
    notes.add(String.format("%-70s offsetlab %s, kafka %s (not compared)", "the poison record (partition@offset, key)",
        modelPoison.path("partition").asInt() + "@" + modelPoison.path("offset").asLong() + ", " + modelKey,
        poisonAt.partition() + "@" + poisonAt.offset() + ", " + poisonSent.key()));
    notes.add(String.format("%-70s offsetlab %s, kafka %s (not compared)", "the letter (partition@offset, key, value)",
        ours.path("partition").asInt() + "@" + ours.path("offset").asLong() + ", " + ours.path("key").asText()
            + ", #" + ours.path("value_record_id").asText(),
        theirs.partition() + "@" + theirs.offset() + ", " + theirs.key() + ", " + theirs.value()));
    notes.add(String.format("%-70s kafka %s %d ms after the poison record's (not compared: the model has ticks)",
        "the letter's timestamp", theirs.timestampType(), theirs.timestamp() - poisonAt.timestamp()));
  }

  private static String copied(boolean key, boolean value) {
    String poisons = "the poison's";
    String not = "not the poison's";
    return "key " + (key ? poisons : not) + ", value " + (value ? poisons : not);
  }

  /** The topic of the model's members' assignments ({@code orders:0,1} in --describe members). */
  private static String topicOf(String membersText) {
    for (String line : membersText.split("\n")) {
      String[] cols = line.trim().split("\\s+");
      String last = cols[cols.length - 1];
      if (cols.length >= 6 && last.contains(":") && !line.startsWith("GROUP ")) {
        return last.substring(0, last.indexOf(':'));
      }
    }
    throw new IllegalStateException("no assignment in the model's --describe members: " + membersText);
  }

  /** Admin's description of the share group; null until the first member's heartbeat made it. */
  private ShareGroupDescription describe(String group) throws Exception {
    try {
      return admin.describeShareGroups(List.of(group)).describedGroups().get(group).get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) return null;
      throw e;
    }
  }

  /**
   * A join: how the group and the joining member first showed (the group epoch, the member's epoch
   * and partitions), and the settled group.
   */
  record Joined(String firstSeen, int firstSeenGroupEpoch, ShareGroupDescription settled) {}

  private static String seen(int groupEpoch, int memberEpoch, int partitions) {
    return "group epoch " + groupEpoch + ", member epoch " + memberEpoch + ", " + partitions + " partitions";
  }

  /**
   * Waits until Kafka has taken {@code client}'s join: {@code count} members with it among them,
   * the group epoch past {@code epochBefore}, the target assignment at the group epoch and the
   * joining member at it holding partitions (the first member holds none until the share-partitions'
   * state is initialized and its next heartbeat), the same epochs three looks in a row.
   */
  private Joined awaitJoin(String name, String group, String client, int count, int epochBefore,
      List<Throwable> failures) throws Exception {
    long deadline = System.currentTimeMillis() + JOIN_TIMEOUT_MS;
    ShareGroupDescription d = null;
    String firstSeen = null;
    int firstSeenGroupEpoch = 0;
    String last = null;
    int same = 0;
    while (System.currentTimeMillis() < deadline) {
      if (!failures.isEmpty()) throw new IllegalStateException(name + ": a share consumer failed", failures.get(0));
      d = describe(group);
      ShareMemberDescription joining = d == null ? null
          : d.members().stream().filter(m -> m.clientId().equals(client)).findFirst().orElse(null);
      if (joining != null && firstSeen == null) {
        firstSeen = seen(d.groupEpoch(), joining.memberEpoch(), joining.assignment().topicPartitions().size());
        firstSeenGroupEpoch = d.groupEpoch();
      }
      if (joining != null && d.members().size() == count && d.groupEpoch() > epochBefore
          && d.targetAssignmentEpoch() == d.groupEpoch() && joining.memberEpoch() == d.targetAssignmentEpoch()
          && !joining.assignment().topicPartitions().isEmpty()) {
        String now = d.groupEpoch() + "/" + d.targetAssignmentEpoch();
        same = now.equals(last) ? same + 1 : 0;
        last = now;
        if (same >= 2) return new Joined(firstSeen, firstSeenGroupEpoch, d);
      } else {
        last = null;
        same = 0;
      }
      Thread.sleep(JOIN_LOOK_MS);
    }
    throw new IllegalStateException(name + ": Kafka did not take " + client + "'s join in " + JOIN_TIMEOUT_MS + " ms: " + d);
  }

  /**
   * The model's group at the first tick it has all its members, Stable, each holding partitions and
   * at the assignment epoch (before the initialisation, every member is at its join's epoch with none).
   */
  record ModelSettled(int tick, int groupEpoch, int assignmentEpoch, Map<String, Integer> memberEpochs) {}

  private ModelSettled modelSettled(String scenario, int consumers) throws Exception {
    for (int tick = 0; tick <= MODEL_SETTLE_TICKS; tick++) {
      Map<String, String> state = table(describeAt(scenario, "state", tick), "STATE").get(0);
      int groupEpoch = Integer.parseInt(state.get("GROUP-EPOCH"));
      int assignmentEpoch = Integer.parseInt(state.get("ASSIGNMENT-EPOCH"));
      if (Integer.parseInt(state.get("#MEMBERS")) != consumers || !state.get("STATE").equals("Stable")) continue;
      if (groupEpoch != assignmentEpoch) continue;
      Map<String, Integer> memberEpochs = new TreeMap<>();
      boolean holding = true;
      for (Map<String, String> row : table(describeAt(scenario, "members", tick), "MEMBER-EPOCH")) {
        memberEpochs.put(row.get("CLIENT-ID"), Integer.parseInt(row.get("MEMBER-EPOCH")));
        holding &= Integer.parseInt(row.get("#PARTITIONS")) > 0;
      }
      if (memberEpochs.size() == consumers && holding
          && memberEpochs.values().stream().allMatch(e -> e == assignmentEpoch)) {
        return new ModelSettled(tick, groupEpoch, assignmentEpoch, memberEpochs);
      }
    }
    throw new IllegalStateException(scenario + ": the model's group did not settle in " + MODEL_SETTLE_TICKS + " ticks");
  }

  private String describeAt(String scenario, String view, int tick) throws Exception {
    return Scenarios.offsetlab(offsetlab, List.of("run", "--scenario", scenario, "--ticks", Integer.toString(tick),
        "--describe", view, "--verbose", "--json"), null, false).path("groups").path(0).path("describe").asText();
  }

  /** The rows of the describe table whose header has {@code column}, by header name. */
  private static List<Map<String, String>> table(String text, String column) {
    List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).startsWith("GROUP ") || !lines.get(i).contains(column)) continue;
      List<String> header = List.of(lines.get(i).replace("COORDINATOR (ID)", "COORDINATOR").trim().split("\\s+"));
      List<Map<String, String>> rows = new ArrayList<>();
      for (int j = i + 1; j < lines.size() && !lines.get(j).startsWith("GROUP "); j++) {
        // The coordinator cell is "host:port  (id)": one column here.
        String[] cells = lines.get(j).trim().replaceAll("  \\((\\d+)\\)", "($1)").split("\\s+");
        // A member holding no partitions has an empty ASSIGNMENT, the last column.
        boolean noAssignment = cells.length == header.size() - 1 && header.get(header.size() - 1).equals("ASSIGNMENT");
        if (cells.length != header.size() && !noAssignment) break;
        Map<String, String> row = new LinkedHashMap<>();
        for (int k = 0; k < header.size(); k++) row.put(header.get(k), k < cells.length ? cells[k] : "");
        rows.add(row);
      }
      if (!rows.isEmpty()) return rows;
    }
    throw new IllegalStateException("no describe table with " + column + " in " + text);
  }

  private static void check(List<String> differences, List<String> table, String what, Object ours, Object kafka) {
    boolean same = ours.equals(kafka);
    table.add(String.format("%-70s offsetlab %s, kafka %s%s", what, ours, kafka, same ? "" : "  DIFFERENT"));
    if (!same) differences.add(what + ": offsetlab " + ours + ", kafka " + kafka);
  }

  /** Members per partition (partition order), then the sorted partition counts of the members. */
  private static List<Integer> shape(ShareGroupDescription described, int partitions) {
    int[] perPartition = new int[partitions];
    List<Integer> perMember = new ArrayList<>();
    for (ShareMemberDescription m : described.members()) {
      perMember.add(m.assignment().topicPartitions().size());
      m.assignment().topicPartitions().forEach(tp -> perPartition[tp.partition()]++);
    }
    return shapeOf(perPartition, perMember);
  }

  /** The same from the model's {@code --describe members} text (its ASSIGNMENT column). */
  private static List<Integer> modelShape(String text, int partitions) {
    int[] perPartition = new int[partitions];
    List<Integer> perMember = new ArrayList<>();
    for (String line : text.split("\n")) {
      String[] cols = line.trim().split("\\s+");
      if (cols.length < 6 || !cols[0].equals("demo")) continue;
      String assignment = cols[cols.length - 1];
      int count = 0;
      if (assignment.contains(":")) {
        for (String p : assignment.substring(assignment.indexOf(':') + 1).split(",")) {
          perPartition[Integer.parseInt(p)]++;
          count++;
        }
      }
      perMember.add(count);
    }
    return shapeOf(perPartition, perMember);
  }

  /**
   * What every simple assignment of {@code members} on {@code partitions} keeps: each partition
   * shared by at least {@code max(1, floor(M/P))} and at most {@code ceil(M/P)} members, and each
   * member holding at least one partition and at most {@code ceil(P/M)} + 1.
   */
  private static String shapeRules(List<Integer> shape, int members, int partitions) {
    int split = shape.indexOf(-1);
    int most = (members + partitions - 1) / partitions;
    int least = Math.max(1, members / partitions);
    boolean perPartition = shape.subList(0, split).stream().allMatch(n -> n >= least && n <= most);
    int mostPerMember = (partitions + members - 1) / members + 1;
    List<Integer> perMember = shape.subList(split + 1, shape.size());
    boolean perMemberOk = perMember.size() == members && perMember.stream().allMatch(n -> n >= 1 && n <= mostPerMember);
    return "each partition " + least + ".." + most + " members: " + perPartition + "; each member 1.." + mostPerMember
        + " partitions: " + perMemberOk;
  }

  private static List<Integer> shapeOf(int[] perPartition, List<Integer> perMember) {
    List<Integer> out = new ArrayList<>();
    for (int n : perPartition) out.add(n);
    out.add(-1);
    perMember.sort(null);
    out.addAll(perMember);
    return out;
  }

  private KafkaProducer<String, String> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return new KafkaProducer<>(props);
  }
}
