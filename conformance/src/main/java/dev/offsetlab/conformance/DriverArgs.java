package dev.offsetlab.conformance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** `--name value` and `--flag` arguments; a repeated name keeps every value. */
final class DriverArgs {
  private DriverArgs() {}

  /** Thrown for arguments the program cannot use: the message names the problem. */
  static final class BadArgs extends Exception {
    BadArgs(String message) {
      super(message);
    }
  }

  /**
   * A comparison driver's arguments: every value of each name, with {@code --bootstrap},
   * {@code --offsetlab} and {@code --out} required. Bad arguments print the problem and {@code
   * usage} (after the program's name) and exit with status 2.
   */
  static Map<String, List<String>> forDriver(String program, String usage, String[] args) {
    try {
      Map<String, List<String>> opts = parseAll(args);
      for (String required : List.of("bootstrap", "offsetlab", "out")) {
        if (!opts.containsKey(required)) throw new BadArgs("missing --" + required);
      }
      return opts;
    } catch (BadArgs e) {
      System.err.println(program + ": " + e.getMessage());
      System.err.println("usage: " + program + " " + usage);
      System.exit(2);
      throw new IllegalStateException("unreachable");
    }
  }

  /** The last value of each name in {@code opts}. */
  static Map<String, String> last(Map<String, List<String>> opts) {
    Map<String, String> out = new HashMap<>();
    opts.forEach((name, values) -> out.put(name, values.get(values.size() - 1)));
    return out;
  }

  static Map<String, String> parse(String[] args) throws BadArgs {
    return last(parseAll(args));
  }

  static Map<String, List<String>> parseAll(String[] args) throws BadArgs {
    Map<String, List<String>> out = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--")) {
        throw new BadArgs("unexpected argument `" + args[i] + "`");
      }
      String name = args[i].substring(2);
      String value = "true";
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        value = args[++i];
      }
      out.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }
    return out;
  }
}
