package dev.offsetlab.conformance;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;

/**
 * Kafka's sticky assignors, unchanged, noting the order of the members they are given.
 *
 * <p>Where two members are equally entitled to keep a partition, Kafka's sticky assignor decides
 * by the iteration order of a {@code HashMap} keyed by member id, and for ids in the same bucket
 * that order is the order the leader's map was filled in: the broker's order of the JoinGroup
 * members. offsetlab's assignor follows the same rule when given the members in the same order,
 * so the driver asks the leader for it instead of guessing the order the members joined in.
 *
 * <p>One consumer per JVM: the order is kept in a static field, read by {@link ConsumerProcess}
 * when the generation's assignment arrives.
 */
final class ObservedAssignors {
  private ObservedAssignors() {}

  /** The member ids the last assignment on this process (its leader) was computed for. */
  private static List<String> lastOrder;

  /** The member order of the assignment this process computed last, once; null if none. */
  static synchronized List<String> takeOrder() {
    List<String> order = lastOrder;
    lastOrder = null;
    return order;
  }

  private static synchronized void note(GroupSubscription subscription) {
    lastOrder = new ArrayList<>(subscription.groupSubscription().keySet());
  }

  /** {@link StickyAssignor}, observed. */
  public static final class Sticky extends StickyAssignor {
    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription subscription) {
      note(subscription);
      return super.assign(metadata, subscription);
    }
  }

  /** {@link CooperativeStickyAssignor}, observed. */
  public static final class CooperativeSticky extends CooperativeStickyAssignor {
    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription subscription) {
      note(subscription);
      return super.assign(metadata, subscription);
    }
  }

  /** The class a consumer is configured with for Kafka's assignor class `name`. */
  static String observed(String name) {
    if (name.equals(StickyAssignor.class.getName())) {
      return Sticky.class.getName();
    }
    if (name.equals(CooperativeStickyAssignor.class.getName())) {
      return CooperativeSticky.class.getName();
    }
    return name;
  }
}
