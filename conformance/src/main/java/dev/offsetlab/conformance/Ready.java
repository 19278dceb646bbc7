package dev.offsetlab.conformance;

import java.util.Collection;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.Node;

/**
 * Waits until a broker serves: exits 0 as soon as {@code Admin.describeCluster} names at least
 * {@code --brokers} nodes (1 by default; it names the unfenced brokers) and an active controller, 1
 * if that has not happened by the deadline, 2 on bad arguments.
 *
 * <p>Usage: {@code Ready --bootstrap 127.0.0.1:<port>[,…] [--brokers N] --timeout-ms <ms>}. Used by
 * {@code cargo xtask conformance} between starting the broker (or the three-node cluster, with
 * {@code --brokers 3}) and running the comparisons.
 */
public final class Ready {
  private Ready() {}

  public static void main(String[] args) throws InterruptedException {
    String bootstrap = null;
    long timeoutMs = 90_000;
    int brokers = 1;
    try {
      for (int i = 0; i < args.length; i += 2) {
        String value = i + 1 < args.length ? args[i + 1] : null;
        if (value == null) {
          throw new IllegalArgumentException(args[i] + " needs a value");
        }
        switch (args[i]) {
          case "--bootstrap" -> bootstrap = value;
          case "--timeout-ms" -> timeoutMs = Long.parseLong(value);
          case "--brokers" -> brokers = Integer.parseInt(value);
          default -> throw new IllegalArgumentException("unknown option " + args[i]);
        }
      }
      if (bootstrap == null) {
        throw new IllegalArgumentException("--bootstrap is required");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("Ready: " + e.getMessage());
      System.err.println("usage: Ready --bootstrap host:port[,…] [--brokers N] [--timeout-ms ms]");
      System.exit(2);
    }

    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    String last = "no answer yet";
    try (Admin admin = Admin.create(props)) {
      while (System.nanoTime() < deadline) {
        try {
          DescribeClusterResult cluster =
              admin.describeCluster(new DescribeClusterOptions().timeoutMs(5000));
          Collection<Node> nodes = cluster.nodes().get();
          Node controller = cluster.controller().get();
          if (nodes.size() >= Math.max(1, brokers) && controller != null && !controller.isEmpty()) {
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.printf(
                "broker ready: cluster %s, %d node(s), controller %d (after %d ms of probing)%n",
                cluster.clusterId().get(), nodes.size(), controller.id(), ms);
            System.exit(0);
          }
          last = String.format(
              "%d of %d broker(s) unfenced, controller %s",
              nodes.size(), brokers, controller == null || controller.isEmpty() ? "none yet" : controller.id());
        } catch (ExecutionException e) {
          last = String.valueOf(e.getCause());
        }
        Thread.sleep(200);
      }
    }
    System.err.printf("Ready: %s did not serve within %d ms (last: %s)%n", bootstrap, timeoutMs, last);
    System.exit(1);
  }
}
