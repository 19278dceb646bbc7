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

  static Map<String, String> parse(String[] args) throws BadArgs {
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, List<String>> e : parseAll(args).entrySet()) {
      out.put(e.getKey(), e.getValue().get(e.getValue().size() - 1));
    }
    return out;
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
