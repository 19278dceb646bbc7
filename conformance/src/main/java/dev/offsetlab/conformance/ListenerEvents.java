package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.TreeSet;

/** What a member's rebalance listener reported, as its child process printed it. */
final class ListenerEvents {
  private ListenerEvents() {}

  /** The partitions it owns by its callbacks: assigned adds, revoked and lost take away. */
  static TreeSet<Integer> owned(Iterable<JsonNode> events) {
    TreeSet<Integer> owned = new TreeSet<>();
    for (JsonNode e : events) {
      switch (e.path("event").asText()) {
        case "assigned" -> e.path("partitions").forEach(p -> owned.add(p.asInt()));
        case "revoked", "lost" -> e.path("partitions").forEach(p -> owned.remove(p.asInt()));
        default -> {}
      }
    }
    return owned;
  }
}
