package dev.offsetlab.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/** One generated group: the input both offsetlab and Kafka's assignor get. */
final class AssignorCase {
    /** One member, in JoinGroup order. */
    static final class Member {
        final String id;
        final Optional<String> groupInstanceId;
        final SortedSet<String> topics;
        /** topic -> owned partitions (topics may have been deleted since). */
        final SortedMap<String, List<Integer>> owned;
        /** Empty for a member that never had an assignment. */
        final Optional<Integer> generation;

        Member(String id, Optional<String> groupInstanceId, SortedSet<String> topics,
               SortedMap<String, List<Integer>> owned, Optional<Integer> generation) {
            this.id = id;
            this.groupInstanceId = groupInstanceId;
            this.topics = topics;
            this.owned = owned;
            this.generation = generation;
        }
    }

    final String id;
    final String family;
    final boolean firstRound;
    /** topic -> partitions, the cluster's metadata. */
    final SortedMap<String, Integer> topics;
    final List<Member> members;
    /** Shape, for the tables. */
    final boolean uneven;
    final boolean staticMembers;
    final boolean previous;
    final boolean conflicts;
    final boolean left;
    final boolean deleted;
    final boolean staleGenerations;

    AssignorCase(String id, String family, boolean firstRound, SortedMap<String, Integer> topics, List<Member> members,
                 boolean uneven, boolean staticMembers, boolean previous, boolean conflicts, boolean left,
                 boolean deleted, boolean staleGenerations) {
        this.id = id;
        this.family = family;
        this.firstRound = firstRound;
        this.topics = topics;
        this.members = members;
        this.uneven = uneven;
        this.staticMembers = staticMembers;
        this.previous = previous;
        this.conflicts = conflicts;
        this.left = left;
        this.deleted = deleted;
        this.staleGenerations = staleGenerations;
    }

    int totalPartitions() {
        return topics.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The case as `offsetlab assign --batch` reads it. */
    Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", id);
        switch (family) {
            case "uniform" -> json.put("remote_assignor", "uniform");
            case "remote-range" -> json.put("remote_assignor", "range");
            default -> json.put("strategy", family);
        }
        json.put("topics", topics);
        List<Object> ms = new ArrayList<>();
        for (Member m : members) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("id", m.id);
            m.groupInstanceId.ifPresent(g -> j.put("group_instance_id", g));
            j.put("topics", m.topics);
            if (!m.owned.isEmpty()) j.put("owned", m.owned);
            m.generation.ifPresent(g -> j.put("generation", g));
            ms.add(j);
        }
        json.put("members", ms);
        if (firstRound) json.put("first_round", true);
        return json;
    }

    /** Generates the cases of one family, deterministically from `random`. */
    static final class Generator {
        private static final String[] TOPIC_NAMES = {
            "orders", "payments", "clicks", "audit-log", "t0", "t1", "T2", "events.v2", "inventory", "a"
        };
        private final java.util.SplittableRandom random;

        Generator(java.util.SplittableRandom random) {
            this.random = random;
        }

        private String uuid() {
            StringBuilder s = new StringBuilder();
            int[] groups = {8, 4, 4, 4, 12};
            for (int g = 0; g < groups.length; g++) {
                if (g > 0) s.append('-');
                for (int i = 0; i < groups[g]; i++) s.append(Character.forDigit(random.nextInt(16), 16));
            }
            return s.toString();
        }

        private String memberId() {
            // client.id, then the coordinator's UUID; mostly one client id, as in one deployment.
            int client = random.nextInt(10) < 8 ? 1 : 1 + random.nextInt(3);
            return "c" + client + "-" + uuid();
        }

        /** A consumer group member id (KIP-848): the client's random UUID in URL-safe base64. */
        private String uuidMemberId() {
            String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < 22; i++) s.append(alphabet.charAt(random.nextInt(alphabet.length())));
            return s.toString();
        }

        /**
         * A consumer group for the coordinator's uniform assignor: one topic every member subscribes
         * to, a target assignment in which each partition has at most one owner, owners that left,
         * and each member's partitions in a random order (its set's insertion order).
         */
        AssignorCase nextUniform(String id) {
            String topic = TOPIC_NAMES[random.nextInt(TOPIC_NAMES.length)];
            int partitions = random.nextBoolean() ? 1 + random.nextInt(12) : 1 + random.nextInt(256);
            int roll = random.nextInt(100);
            int memberCount = roll < 40 ? 1 + random.nextInt(5) : roll < 75 ? 6 + random.nextInt(10) : 16 + random.nextInt(15);
            boolean previous = random.nextInt(10) < 7;
            boolean left = previous && random.nextInt(10) < 3;
            List<List<Integer>> owned = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) owned.add(new ArrayList<>());
            if (previous) {
                List<Integer> owners = new ArrayList<>();
                for (int m = 0; m < memberCount; m++) if (memberCount == 1 || random.nextInt(10) < 8) owners.add(m);
                int slots = owners.size() + (left ? 1 + random.nextInt(3) : 0);
                for (int p = 0; p < partitions && slots > 0; p++) {
                    if (random.nextInt(10) == 0) continue;
                    int slot = random.nextInt(slots);
                    if (slot < owners.size()) owned.get(owners.get(slot)).add(p);
                }
                for (List<Integer> o : owned) java.util.Collections.shuffle(o, new java.util.Random(random.nextLong()));
            }
            List<Member> members = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) {
                SortedMap<String, List<Integer>> mine = new TreeMap<>();
                if (!owned.get(m).isEmpty()) mine.put(topic, owned.get(m));
                members.add(new Member(uuidMemberId(), Optional.empty(), new TreeSet<>(List.of(topic)), mine, Optional.empty()));
            }
            SortedMap<String, Integer> topics = new TreeMap<>(Map.of(topic, partitions));
            return new AssignorCase(id, "uniform", false, topics, members, false, false, previous, false, left,
                false, false);
        }

        /**
         * A consumer group for the coordinator's range assignor: one topic every member subscribes
         * to, static members (by group.instance.id) in half the groups; range ignores what members own.
         */
        AssignorCase nextRemoteRange(String id) {
            String topic = TOPIC_NAMES[random.nextInt(TOPIC_NAMES.length)];
            int partitions = random.nextBoolean() ? 1 + random.nextInt(12) : 1 + random.nextInt(256);
            int roll = random.nextInt(100);
            int memberCount = roll < 40 ? 1 + random.nextInt(5) : roll < 75 ? 6 + random.nextInt(10) : 16 + random.nextInt(15);
            boolean staticMembers = random.nextBoolean();
            List<Integer> numbers = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) numbers.add(m);
            java.util.Collections.shuffle(numbers, new java.util.Random(random.nextLong()));
            List<Member> members = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) {
                Optional<String> instance = staticMembers && random.nextInt(10) < 7
                    ? Optional.of("instance-" + numbers.get(m)) : Optional.empty();
                members.add(new Member(uuidMemberId(), instance, new TreeSet<>(List.of(topic)), new TreeMap<>(),
                    Optional.empty()));
            }
            SortedMap<String, Integer> topics = new TreeMap<>(Map.of(topic, partitions));
            return new AssignorCase(id, "remote-range", false, topics, members, false, staticMembers, false, false,
                false, false, false);
        }

        AssignorCase next(String id, String family) {
            // Topics: one in 40% of cases, else 2 to 4.
            int topicCount = random.nextInt(10) < 4 ? 1 : 2 + random.nextInt(3);
            List<String> names = new ArrayList<>(List.of(TOPIC_NAMES));
            SortedMap<String, Integer> topics = new TreeMap<>();
            for (int t = 0; t < topicCount; t++) {
                String name = names.remove(random.nextInt(names.size()));
                int partitions = random.nextBoolean() ? 1 + random.nextInt(12) : 1 + random.nextInt(64);
                topics.put(name, partitions);
            }
            int roll = random.nextInt(100);
            int memberCount = roll < 40 ? 1 + random.nextInt(5) : roll < 75 ? 6 + random.nextInt(10) : 16 + random.nextInt(15);
            boolean uneven = topicCount > 1 && random.nextInt(10) < 4;
            boolean staticMembers = random.nextInt(10) < 3;
            boolean previous = random.nextInt(10) < 7;
            boolean conflicts = previous && random.nextInt(10) < 2;
            boolean left = previous && random.nextInt(10) < 3;
            boolean deleted = previous && random.nextInt(10) < 2;
            boolean stale = previous && random.nextInt(10) < 3;
            boolean firstRound = family.equals("cooperative-sticky") && random.nextBoolean();

            List<String> topicList = new ArrayList<>(topics.keySet());
            List<String> ids = new ArrayList<>();
            List<SortedSet<String>> subscriptions = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) {
                ids.add(memberId());
                SortedSet<String> subscribed = new TreeSet<>();
                if (uneven) {
                    for (String t : topicList) if (random.nextBoolean()) subscribed.add(t);
                    if (subscribed.isEmpty()) subscribed.add(topicList.get(random.nextInt(topicList.size())));
                } else {
                    subscribed.addAll(topicList);
                }
                subscriptions.add(subscribed);
            }
            List<Optional<String>> instances = new ArrayList<>();
            List<Integer> numbers = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) numbers.add(m);
            java.util.Collections.shuffle(numbers, new java.util.Random(random.nextLong()));
            for (int m = 0; m < memberCount; m++) {
                boolean isStatic = staticMembers && random.nextInt(10) < 7;
                instances.add(isStatic ? Optional.of("instance-" + numbers.get(m)) : Optional.empty());
            }

            // The previous generation: some members new, some who left, partitions spread among the rest.
            List<SortedMap<String, List<Integer>>> owned = new ArrayList<>();
            List<Optional<Integer>> generations = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) {
                owned.add(new TreeMap<>());
                generations.add(Optional.empty());
            }
            if (previous) {
                int generation = 1 + random.nextInt(20);
                List<Integer> owners = new ArrayList<>();
                for (int m = 0; m < memberCount; m++) {
                    // A new member owns nothing.
                    if (memberCount == 1 || random.nextInt(10) < 8) {
                        owners.add(m);
                        boolean older = stale && generation > 2 && random.nextInt(10) < 3;
                        generations.set(m, Optional.of(older ? generation - 1 - random.nextInt(2) : generation));
                    }
                }
                int gone = left ? 1 + random.nextInt(3) : 0;
                int ownerSlots = owners.size() + gone;
                if (ownerSlots > 0) {
                    for (String t : topicList) {
                        for (int p = 0; p < topics.get(t); p++) {
                            if (random.nextInt(10) == 0) continue; // nobody owned it
                            int slot = random.nextInt(ownerSlots);
                            if (slot >= owners.size()) continue; // a member that left owned it
                            int m = owners.get(slot);
                            // Owners of an earlier generation claim only topics they still subscribe to
                            // (Kafka's general path fails on other claims of theirs).
                            boolean latest = generations.get(m).orElse(-1) == generation;
                            if (!subscriptions.get(m).contains(t) && !(latest && random.nextInt(4) == 0)) {
                                // Someone subscribing owned it instead, if anyone did.
                                List<Integer> candidates = new ArrayList<>();
                                for (int o : owners) if (subscriptions.get(o).contains(t)) candidates.add(o);
                                if (candidates.isEmpty()) continue;
                                m = candidates.get(random.nextInt(candidates.size()));
                            }
                            owned.get(m).computeIfAbsent(t, k -> new ArrayList<>()).add(p);
                            if (conflicts && owners.size() > 1 && random.nextInt(8) == 0) {
                                int other = owners.get(random.nextInt(owners.size()));
                                if (other != m && subscriptions.get(other).contains(t))
                                    owned.get(other).computeIfAbsent(t, k -> new ArrayList<>()).add(p);
                            }
                        }
                    }
                    if (deleted && !owners.isEmpty()) {
                        int m = owners.get(random.nextInt(owners.size()));
                        List<Integer> ps = new ArrayList<>();
                        for (int p = 0, n = 1 + random.nextInt(4); p < n; p++) ps.add(p);
                        owned.get(m).put("deleted-topic", ps);
                    }
                }
                for (SortedMap<String, List<Integer>> o : owned) o.values().forEach(java.util.Collections::sort);
            }
            List<Member> members = new ArrayList<>();
            for (int m = 0; m < memberCount; m++) {
                members.add(new Member(ids.get(m), instances.get(m), subscriptions.get(m), owned.get(m), generations.get(m)));
            }
            return new AssignorCase(id, family, firstRound, topics, members, uneven, staticMembers, previous,
                conflicts, left, deleted, stale);
        }
    }
}
