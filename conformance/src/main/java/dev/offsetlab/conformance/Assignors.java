package dev.offsetlab.conformance;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Kafka's client assignors (RangeAssignor, RoundRobinAssignor, StickyAssignor,
 * CooperativeStickyAssignor from kafka-clients), and the group coordinator's UniformAssignor of
 * consumer groups (kafka-group-coordinator), against {@code offsetlab assign --batch} on the same
 * generated groups, member by member.
 *
 * <pre>
 * java -cp CLASSPATH dev.offsetlab.conformance.Assignors --offsetlab BIN [--cases N] [--seed S] --out FILE.json
 * </pre>
 * Exit 0 when it ran (differences are a result), 2 on bad arguments, 1 when the harness failed.
 */
public final class Assignors {
    /**
     * The client assignors share the cases; the coordinator's uniform assignor gets a quarter more,
     * its range assignor an eighth.
     */
    static final String[] CLIENT_FAMILIES = {"range", "roundrobin", "sticky", "cooperative-sticky"};
    static final String[] FAMILIES = {"range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "remote-range"};
    private static final int SHOWN_MAX = 10;
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final class Usage extends Exception {
        Usage(String message) {
            super(message);
        }
    }

    public static void main(String[] args) {
        String offsetlab = null;
        String out = null;
        int cases = 10_000;
        long seed = 1;
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                if (arg.equals("--help") || arg.equals("-h")) {
                    System.out.println("usage: Assignors --offsetlab BIN [--cases N (default 10000)] [--seed S (default 1)] --out FILE.json");
                    System.exit(0);
                }
                if (i + 1 >= args.length) throw new Usage(arg + " needs a value");
                String value = args[++i];
                switch (arg) {
                    case "--offsetlab": offsetlab = value; break;
                    case "--out": out = value; break;
                    case "--cases":
                        try {
                            cases = Integer.parseInt(value);
                        } catch (NumberFormatException e) {
                            throw new Usage("--cases: " + value + " is not a whole number");
                        }
                        if (cases < 1 || cases > 1_000_000) throw new Usage("--cases: 1 to 1000000; got " + cases);
                        break;
                    case "--seed":
                        try {
                            seed = Long.parseLong(value);
                        } catch (NumberFormatException e) {
                            throw new Usage("--seed: " + value + " is not a whole number (a Java long)");
                        }
                        break;
                    default: throw new Usage("unknown argument " + arg);
                }
            }
            if (offsetlab == null) throw new Usage("--offsetlab BIN is required (the offsetlab binary)");
            if (out == null) throw new Usage("--out FILE.json is required");
            if (!Files.isExecutable(Path.of(offsetlab))) throw new Usage("--offsetlab: " + offsetlab + " is not an executable file");
        } catch (Usage e) {
            System.err.println("Assignors (seed " + seed + "): " + e.getMessage());
            System.err.println("usage: Assignors --offsetlab BIN [--cases N] [--seed S] --out FILE.json");
            System.exit(2);
        }
        try {
            run(offsetlab, cases, seed, Path.of(out));
        } catch (Exception e) {
            System.err.println("Assignors (seed " + seed + "): the harness failed: " + e);
            System.exit(1);
        }
    }

    private static void run(String offsetlab, int total, long seed, Path out) throws Exception {
        long started = System.nanoTime();
        // Cases: the families take turns; one random stream per case, split from the seed.
        SplittableRandom root = new SplittableRandom(seed);
        List<AssignorCase> cases = new ArrayList<>(total + total / CLIENT_FAMILIES.length);
        for (int i = 0; i < total; i++) {
            String family = CLIENT_FAMILIES[i % CLIENT_FAMILIES.length];
            cases.add(new AssignorCase.Generator(root.split()).next(family + "-" + (i / CLIENT_FAMILIES.length), family));
        }
        for (int i = 0; i < Math.max(1, total / CLIENT_FAMILIES.length); i++) {
            cases.add(new AssignorCase.Generator(root.split()).nextUniform("uniform-" + i));
        }
        for (int i = 0; i < Math.max(1, total / CLIENT_FAMILIES.length / 2); i++) {
            cases.add(new AssignorCase.Generator(root.split()).nextRemoteRange("remote-range-" + i));
        }

        Map<String, Map<String, Object>> answers = runOffsetlab(offsetlab, cases, seed);

        Map<String, List<AssignorCase>> byFamily = new LinkedHashMap<>();
        Map<String, List<String>> differences = new LinkedHashMap<>();
        Map<String, Integer> differing = new LinkedHashMap<>();
        Map<AssignorCase, Boolean> equal = new LinkedHashMap<>();
        for (String f : FAMILIES) {
            byFamily.put(f, new ArrayList<>());
            differences.put(f, new ArrayList<>());
            differing.put(f, 0);
        }
        for (AssignorCase c : cases) {
            byFamily.get(c.family).add(c);
            Map<String, Object> answer = answers.get(c.id);
            if (answer == null) throw new IllegalStateException("offsetlab gave no answer for case " + c.id);
            if (answer.containsKey("error"))
                throw new IllegalStateException("offsetlab rejected case " + c.id + ": " + answer.get("error"));
            SortedMap<String, SortedMap<String, SortedSet<Integer>>> ours = normalize(answer.get("assignment"));
            String theirsText;
            boolean same;
            try {
                SortedMap<String, SortedMap<String, SortedSet<Integer>>> theirs = KafkaAssignors.assign(c);
                same = theirs.equals(ours);
                theirsText = JSON.writeValueAsString(theirs);
            } catch (RuntimeException e) {
                same = false;
                theirsText = "Kafka's assignor threw " + e;
            }
            equal.put(c, same);
            if (!same) {
                differing.merge(c.family, 1, Integer::sum);
                if (differences.get(c.family).size() < SHOWN_MAX) {
                    differences.get(c.family).add("seed " + seed + ", case " + c.id + ": input "
                        + JSON.writeValueAsString(c.toJson()) + "; offsetlab " + JSON.writeValueAsString(ours)
                        + "; kafka " + theirsText);
                }
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        List<Map<String, Object>> entries = new ArrayList<>();
        StringBuilder summary = new StringBuilder();
        summary.append(String.format("assignors: %,d groups, seed %d, %.1f s%n", cases.size(), seed, seconds));
        for (String f : FAMILIES) {
            List<AssignorCase> fs = byFamily.get(f);
            int diff = differing.get(f);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", f);
            entry.put("kind", "assignor");
            entry.put("result", diff == 0 ? "equal" : "different");
            entry.put("cases", fs.size());
            String detail = shape(fs) + ": " + (diff == 0 ? "all equal"
                : String.format("%,d different: first difference %s", diff, differences.get(f).get(0)));
            entry.put("detail", detail);
            entry.put("table", table(fs, equal, differences.get(f), diff));
            entries.add(entry);
            summary.append(String.format("  %-18s %,6d groups  %s%n", f, fs.size(),
                diff == 0 ? "all equal" : String.format("%,d different (first: %s)", diff,
                    differences.get(f).get(0).split(": input")[0])));
        }
        JSON.writerWithDefaultPrettyPrinter().writeValue(out.toFile(), entries);
        System.out.print(summary);
    }

    /** Writes the cases, runs `offsetlab assign --batch` once, reads one answer per case. */
    private static Map<String, Map<String, Object>> runOffsetlab(String offsetlab, List<AssignorCase> cases, long seed)
            throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("offsetlab-assignors-");
        Path input = dir.resolve("cases.jsonl");
        Path output = dir.resolve("answers.jsonl");
        Path errors = dir.resolve("stderr.txt");
        try {
            try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.UTF_8)) {
                for (AssignorCase c : cases) {
                    w.write(JSON.writeValueAsString(c.toJson()));
                    w.write('\n');
                }
            }
            Process process = new ProcessBuilder(offsetlab, "assign", "--batch", input.toString())
                .redirectOutput(output.toFile()).redirectError(errors.toFile()).start();
            if (!process.waitFor(10, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("offsetlab assign --batch did not finish in 10 minutes");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("offsetlab assign --batch exited with " + process.exitValue() + ": "
                    + Files.readString(errors).trim());
            }
            Map<String, Map<String, Object>> answers = new TreeMap<>();
            for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
                Map<String, Object> answer = JSON.readValue(line, new TypeReference<Map<String, Object>>() {});
                answers.put(String.valueOf(answer.get("id")), answer);
            }
            if (answers.size() != cases.size())
                throw new IllegalStateException("offsetlab answered " + answers.size() + " of " + cases.size() + " cases");
            return answers;
        } finally {
            for (Path p : List.of(input, output, errors)) Files.deleteIfExists(p);
            Files.deleteIfExists(dir);
        }
    }

    @SuppressWarnings("unchecked")
    private static SortedMap<String, SortedMap<String, SortedSet<Integer>>> normalize(Object assignment) {
        SortedMap<String, SortedMap<String, SortedSet<Integer>>> out = new TreeMap<>();
        ((Map<String, Map<String, List<Integer>>>) assignment).forEach((member, topics) -> {
            SortedMap<String, SortedSet<Integer>> ts = new TreeMap<>();
            topics.forEach((t, ps) -> {
                if (!ps.isEmpty()) ts.put(t, new TreeSet<>(ps));
            });
            out.put(member, ts);
        });
        return out;
    }

    private static String percent(List<AssignorCase> cs, Predicate<AssignorCase> p) {
        return Math.round(100.0 * cs.stream().filter(p).count() / Math.max(1, cs.size())) + "%";
    }

    /** One line: the family's case shapes. */
    private static String shape(List<AssignorCase> cs) {
        int minM = cs.stream().mapToInt(c -> c.members.size()).min().orElse(0);
        int maxM = cs.stream().mapToInt(c -> c.members.size()).max().orElse(0);
        int minT = cs.stream().mapToInt(c -> c.topics.size()).min().orElse(0);
        int maxT = cs.stream().mapToInt(c -> c.topics.size()).max().orElse(0);
        int maxP = cs.stream().flatMap(c -> c.topics.values().stream()).mapToInt(Integer::intValue).max().orElse(0);
        return String.format("%,d groups, %d-%d members, %d-%d topics of 1-%d partitions, uneven subscriptions in %s, "
                + "static members in %s, previous assignments in %s",
            cs.size(), minM, maxM, minT, maxT, maxP, percent(cs, c -> c.uneven), percent(cs, c -> c.staticMembers),
            percent(cs, c -> c.previous));
    }

    /** A few lines: counts by case shape, then the differences shown. */
    private static String table(List<AssignorCase> cs, Map<AssignorCase, Boolean> equal, List<String> shown, int diff) {
        Map<String, Predicate<AssignorCase>> rows = new LinkedHashMap<>();
        rows.put("one topic", c -> c.topics.size() == 1);
        rows.put("several topics, same subscriptions", c -> c.topics.size() > 1 && !c.uneven);
        rows.put("uneven subscriptions", c -> c.uneven);
        rows.put("static members", c -> c.staticMembers);
        rows.put("more members than partitions", c -> c.members.size() > c.totalPartitions());
        rows.put("previous assignment", c -> c.previous);
        rows.put("  two members claim a partition", c -> c.conflicts);
        rows.put("  members that left", c -> c.left);
        rows.put("  a deleted topic", c -> c.deleted);
        rows.put("  earlier generations", c -> c.staleGenerations);
        if (!cs.isEmpty() && cs.get(0).family.equals("cooperative-sticky")) {
            rows.put("first round", c -> c.firstRound);
            rows.put("settled", c -> !c.firstRound);
        }
        StringBuilder t = new StringBuilder(String.format("%-36s %7s %7s%n", "case shape", "cases", "equal"));
        rows.forEach((name, p) -> {
            long n = cs.stream().filter(p).count();
            long e = cs.stream().filter(p).filter(equal::get).count();
            t.append(String.format("%-36s %,7d %,7d%n", name, n, e));
        });
        long e = cs.stream().filter(equal::get).count();
        t.append(String.format("%-36s %,7d %,7d", "all", cs.size(), e));
        if (diff > 0) {
            t.append(String.format("%n%,d different%s:", diff, diff > shown.size() ? ", the first " + shown.size() : ""));
            for (String s : shown) t.append("\n  ").append(s);
        }
        return t.toString();
    }

    private Assignors() {}
}
