package dev.offsetlab.conformance;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Collections;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's own client assignors on a generated case, called as the group leader calls them:
 * {@code ConsumerPartitionAssignor.assign(Cluster, GroupSubscription)}, the subscriptions in a
 * {@code HashMap} filled in JoinGroup order, a fresh assignor for every rebalance; and the group
 * coordinator's uniform and range assignors of consumer groups.
 */
final class KafkaAssignors {
    private static final Node NODE = new Node(0, "localhost", 9092);
    /** Rebalances cooperative-sticky may take to settle. */
    static final int COOPERATIVE_ROUNDS_MAX = 16;

    /** member -> topic -> partitions, empty topics left out. */
    static SortedMap<String, SortedMap<String, SortedSet<Integer>>> assign(AssignorCase c) {
        Cluster cluster = cluster(c.topics);
        switch (c.family) {
            case "range":
                return normalize(new RangeAssignor().assign(cluster, eager(c, null)).groupAssignment());
            case "roundrobin":
                return normalize(new RoundRobinAssignor().assign(cluster, eager(c, null)).groupAssignment());
            case "sticky":
                return normalize(new StickyAssignor().assign(cluster, eager(c, "sticky")).groupAssignment());
            case "cooperative-sticky":
                return cooperative(c, cluster);
            case "uniform":
                return coordinator(c, new UniformAssignor());
            case "remote-range":
                return coordinator(c, new org.apache.kafka.coordinator.group.assignor.RangeAssignor());
            default:
                throw new IllegalArgumentException("unknown family " + c.family);
        }
    }

    private static Cluster cluster(SortedMap<String, Integer> topics) {
        List<PartitionInfo> partitions = new ArrayList<>();
        topics.forEach((topic, count) -> {
            for (int p = 0; p < count; p++)
                partitions.add(new PartitionInfo(topic, p, NODE, new Node[] {NODE}, new Node[] {NODE}));
        });
        return new Cluster("offsetlab", List.of(NODE), partitions, Set.of(), Set.of());
    }

    private static List<TopicPartition> partitions(SortedMap<String, List<Integer>> owned) {
        List<TopicPartition> tps = new ArrayList<>();
        owned.forEach((topic, ps) -> ps.forEach(p -> tps.add(new TopicPartition(topic, p))));
        return tps;
    }

    /**
     * Range, round-robin and sticky: eager members own nothing when they join; the sticky
     * assignor's user data carries what they had and its generation.
     */
    private static GroupSubscription eager(AssignorCase c, String userData) {
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (AssignorCase.Member m : c.members) {
            ByteBuffer data = null;
            if ("sticky".equals(userData) && m.generation.isPresent()) {
                StickyAssignor member = new StickyAssignor();
                member.onAssignment(new Assignment(partitions(m.owned)),
                    new ConsumerGroupMetadata("offsetlab", m.generation.get(), m.id, m.groupInstanceId));
                data = member.subscriptionUserData(m.topics);
            }
            Subscription s = new Subscription(new ArrayList<>(m.topics), data, List.of(),
                m.generation.orElse(-1), Optional.empty());
            s.setGroupInstanceId(m.groupInstanceId);
            subscriptions.put(m.id, s);
        }
        return new GroupSubscription(subscriptions);
    }

    /** One cooperative-sticky rebalance; `owned` and `generations` by member index. */
    private static Map<String, Assignment> cooperativeRound(AssignorCase c, Cluster cluster,
                                                            List<List<TopicPartition>> owned,
                                                            List<Optional<Integer>> generations) {
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (int i = 0; i < c.members.size(); i++) {
            AssignorCase.Member m = c.members.get(i);
            CooperativeStickyAssignor member = new CooperativeStickyAssignor();
            generations.get(i).ifPresent(g -> member.onAssignment(new Assignment(List.of()),
                new ConsumerGroupMetadata("offsetlab", g, m.id, m.groupInstanceId)));
            Subscription s = new Subscription(new ArrayList<>(m.topics), member.subscriptionUserData(m.topics),
                owned.get(i), generations.get(i).orElse(-1), Optional.empty());
            s.setGroupInstanceId(m.groupInstanceId);
            subscriptions.put(m.id, s);
        }
        return new CooperativeStickyAssignor().assign(cluster, new GroupSubscription(subscriptions)).groupAssignment();
    }

    /** The first round, or the rounds until no member loses a partition it owned (it would rejoin). */
    private static SortedMap<String, SortedMap<String, SortedSet<Integer>>> cooperative(AssignorCase c, Cluster cluster) {
        List<List<TopicPartition>> owned = new ArrayList<>();
        List<Optional<Integer>> generations = new ArrayList<>();
        int generation = -1;
        for (AssignorCase.Member m : c.members) {
            owned.add(partitions(m.owned));
            generations.add(m.generation);
            generation = Math.max(generation, m.generation.orElse(-1));
        }
        Map<String, Assignment> result = cooperativeRound(c, cluster, owned, generations);
        for (int round = 1; !c.firstRound && round < COOPERATIVE_ROUNDS_MAX; round++) {
            boolean revoked = false;
            for (int i = 0; i < c.members.size(); i++) {
                Set<TopicPartition> got = new HashSet<>(result.get(c.members.get(i).id).partitions());
                if (!got.containsAll(owned.get(i))) revoked = true;
            }
            if (!revoked) break;
            generation = Math.max(generation, 0) + 1;
            for (int i = 0; i < c.members.size(); i++) {
                owned.set(i, new ArrayList<>(result.get(c.members.get(i).id).partitions()));
                generations.set(i, Optional.of(generation));
            }
            result = cooperativeRound(c, cluster, owned, generations);
        }
        return normalize(result);
    }

    private static SortedMap<String, SortedMap<String, SortedSet<Integer>>> normalize(Map<String, Assignment> assignment) {
        SortedMap<String, SortedMap<String, SortedSet<Integer>>> out = new TreeMap<>();
        assignment.forEach((member, a) -> {
            SortedMap<String, SortedSet<Integer>> topics = new TreeMap<>();
            for (TopicPartition tp : a.partitions())
                topics.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition());
            out.put(member, topics);
        });
        return out;
    }

    /**
     * One of the group coordinator's assignors (KIP-848: {@code UniformAssignor} or
     * {@code RangeAssignor}), called as the coordinator calls it: the members in a {@code HashMap}
     * filled in the case's order, each with its instance id, each member's target assignment an
     * unmodifiable map of {@code new HashSet<>(its partitions in the case's order)}.
     */
    private static SortedMap<String, SortedMap<String, SortedSet<Integer>>> coordinator(AssignorCase c,
            ConsumerGroupPartitionAssignor assignor) {
        String topic = c.topics.firstKey();
        int count = c.topics.get(topic);
        Uuid topicId = new Uuid(0x6f66667365746c61L, 0x62L);
        Map<String, Map<Uuid, Set<Integer>>> owned = new HashMap<>();
        Set<Integer> assigned = new HashSet<>();
        Map<String, Optional<String>> instances = new HashMap<>();
        for (AssignorCase.Member m : c.members) {
            instances.put(m.id, m.groupInstanceId);
            List<Integer> mine = m.owned.getOrDefault(topic, List.of());
            assigned.addAll(mine);
            owned.put(m.id, mine.isEmpty() ? Collections.emptyMap()
                : Collections.unmodifiableMap(new HashMap<>(Map.of(topicId, new HashSet<>(mine)))));
        }
        GroupSpec spec = new GroupSpec() {
            @Override public Collection<String> memberIds() { return owned.keySet(); }
            @Override public SubscriptionType subscriptionType() { return SubscriptionType.HOMOGENEOUS; }
            @Override public boolean isPartitionAssigned(Uuid t, int p) { return t.equals(topicId) && assigned.contains(p); }
            @Override public boolean isPartitionAssignable(Uuid t, int p) { return true; }
            @Override public MemberSubscription memberSubscription(String id) {
                return new MemberSubscription() {
                    @Override public Optional<String> rackId() { return Optional.empty(); }
                    @Override public Optional<String> instanceId() { return instances.get(id); }
                    @Override public Set<Uuid> subscribedTopicIds() { return Set.of(topicId); }
                };
            }
            @Override public MemberAssignment memberAssignment(String id) {
                Map<Uuid, Set<Integer>> partitions = owned.get(id);
                return () -> partitions;
            }
        };
        SubscribedTopicDescriber topics = new SubscribedTopicDescriber() {
            @Override public int numPartitions(Uuid t) { return t.equals(topicId) ? count : -1; }
            @Override public Set<String> racksForPartition(Uuid t, int p) { return Set.of(); }
        };
        GroupAssignment result = assignor.assign(spec, topics);
        SortedMap<String, SortedMap<String, SortedSet<Integer>>> out = new TreeMap<>();
        for (AssignorCase.Member m : c.members) {
            SortedMap<String, SortedSet<Integer>> ts = new TreeMap<>();
            MemberAssignment a = result.members().get(m.id);
            Set<Integer> ps = a == null ? Set.of() : a.partitions().getOrDefault(topicId, Set.of());
            if (!ps.isEmpty()) ts.put(topic, new TreeSet<>(ps));
            out.put(m.id, ts);
        }
        return out;
    }

    private KafkaAssignors() {}
}
