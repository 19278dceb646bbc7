package dev.offsetlab.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The driver's end of one {@link ConsumerProcess}: a child JVM, a command out, a reply back. */
final class Child implements AutoCloseable {
  /** A reply not back in this time means the child hung: the run fails rather than waits. */
  private static final long REPLY_TIMEOUT_MS = 90_000;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Process process;
  private final Writer in;
  private final BufferedReader out;
  /** The consumer it plays once started (`c3`), for messages. */
  String consumer = "(warm)";

  private Child(Process process) {
    this.process = process;
    this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Starts `count` child JVMs at once and waits until each says it is ready. */
  static List<Child> spawn(int count, String bootstrap, String topic, Path log) throws IOException {
    List<Child> children = new ArrayList<>();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int i = 0; i < count; i++) {
      List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1"));
      // The driver's logging configuration, so a consumer's client logs go where the driver's do.
      String log4j = System.getProperty("log4j2.configurationFile");
      if (log4j != null) {
        command.add("-Dlog4j2.configurationFile=" + log4j);
      }
      command.addAll(
          List.of(
              "-cp",
              System.getProperty("java.class.path"),
              ConsumerProcess.class.getName(),
              "--bootstrap",
              bootstrap,
              "--topic",
              topic));
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
      children.add(new Child(pb.start()));
    }
    for (Child child : children) {
      JsonNode ready = child.read();
      if (!ready.path("ready").asBoolean()) {
        throw new IOException("a consumer process did not start: " + ready);
      }
    }
    return children;
  }

  void send(ObjectNode command) throws IOException {
    in.write(JSON.writeValueAsString(command));
    in.write('\n');
    in.flush();
  }

  JsonNode read() throws IOException {
    long deadline = System.currentTimeMillis() + REPLY_TIMEOUT_MS;
    while (!out.ready()) {
      if (!process.isAlive()) {
        throw new IOException("consumer process " + consumer + " exited (" + process.exitValue() + ")");
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("consumer process " + consumer + " gave no reply in " + REPLY_TIMEOUT_MS + " ms");
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted");
      }
    }
    String line = out.readLine();
    if (line == null) {
      throw new IOException("consumer process " + consumer + " closed its output");
    }
    return JSON.readTree(line);
  }

  JsonNode call(ObjectNode command) throws IOException {
    send(command);
    return read();
  }

  /** The process dies at once: no commit, no LeaveGroup (a crash). */
  void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    kill();
  }
}
