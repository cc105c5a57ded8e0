package io.sluice.testkit.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.sluice.build.BuildInfo;
import io.sluice.cli.ScenarioOptions;
import io.sluice.results.RunRecord;
import io.sluice.results.scenario.PerformanceTable;
import io.sluice.results.scenario.Seed;
import io.sluice.testkit.RunEnvironment;

/**
 * One scenario run's record: waits for a quiet machine, then collects the rows the scenario measured (the columns of
 * its table in docs/performance.md) and the raw results behind them; at the end prints the table, writes
 * {@code RESULTS/SCENARIO/TIME.json} and, with {@code --record}, appends the rows to the docs table. Every row gets the
 * date, the commit and the load average at start and end in front, and the exact command behind.
 */
public final class ScenarioReport {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final DateTimeFormatter FILE_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final String scenario;
    private final Seed seed;
    private final ScenarioOptions options;
    private final PrintStream out;
    private final QuietMachine quiet;
    private final List<Map<String, String>> rows = new ArrayList<>();
    private final Map<String, Object> details = new LinkedHashMap<>();
    private Instant started;
    private String loadStart;
    private boolean quietAtStart;

    public ScenarioReport(String scenario, Seed seed, ScenarioOptions options, PrintStream out) {
        this(scenario, seed, options, out, QuietMachine.system());
    }

    public ScenarioReport(String scenario, Seed seed, ScenarioOptions options, PrintStream out, QuietMachine quiet) {
        this.scenario = scenario;
        this.seed = seed;
        this.options = options;
        this.out = out;
        this.quiet = quiet;
    }

    /** Waits for a quiet machine (bounded), then notes the start. Call before the first thing that costs CPU. */
    public void begin() throws InterruptedException {
        double load = quiet.await(options.quietBelow(), options.quietWait(), out);
        quietAtStart = load < options.quietBelow();
        started = Instant.now();
        loadStart = RunEnvironment.loadAverages();
        out.printf("sluice bench scenario %s: answers %s (%s)%n", scenario, seed.title(), seed.file());
        out.printf("differs from the published run: %s%n", seed.differences());
        out.printf("%d cores, load average %s%s%n", Runtime.getRuntime().availableProcessors(), loadStart,
                quietAtStart ? "" : " - NOT QUIET (>= " + options.quietBelow() + "): the figures are not a result and will not be recorded");
    }

    /** A measured row: the scenario's own columns, in its table's order (after Date, Commit and Load). */
    public void row(Map<String, String> cells) {
        rows.add(new LinkedHashMap<>(cells));
    }

    /** The raw results behind the rows, written to the result file. */
    public void detail(String name, Object value) {
        details.put(name, value);
    }

    /** Prints the rows, writes the result file and records the rows if asked to. */
    public Path finish() throws IOException {
        String loadEnd = RunEnvironment.loadAverages();
        String commit = BuildInfo.current().commit();
        List<Map<String, String>> full = new ArrayList<>();
        for (Map<String, String> cells : rows) {
            Map<String, String> row = new LinkedHashMap<>();
            row.put("Date", started.atOffset(ZoneOffset.UTC).toLocalDate().toString());
            row.put("Commit", "`" + abbreviate(commit) + "`");
            row.put("Load start → end", loadStart.split(" ")[0] + " → " + loadEnd.split(" ")[0]);
            row.putAll(cells);
            row.put("Command", "`" + options.commandLine() + "`");
            full.add(row);
        }
        print(full);
        Path file = options.results().resolve(scenario).resolve(FILE_TIME.format(started) + ".json");
        Files.createDirectories(file.getParent());
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("scenario", scenario);
        record.put("seed", seed);
        record.put("command", options.commandLine());
        record.put("commit", commit);
        record.put("machine", machine());
        record.put("started", started.toString());
        record.put("loadAverageStart", loadStart);
        record.put("loadAverageEnd", loadEnd);
        record.put("quietAtStart", quietAtStart);
        record.put("rows", full);
        record.put("details", details);
        JSON.writeValue(file.toFile(), record);
        out.println("wrote " + file);
        if (options.record() != null) {
            if (!quietAtStart) {
                out.printf("not recorded in %s: the load average at the start (%s) was not below %s%n", options.record(), loadStart, options.quietBelow());
            } else {
                PerformanceTable.append(options.record(), scenario, full);
                out.printf("recorded %d row(s) in %s under %s%n", full.size(), options.record(), PerformanceTable.marker(scenario));
            }
        }
        return file;
    }

    private static RunRecord.Machine machine() {
        return RunEnvironment.machine("Kafka, the system under test and the load generator share the machine, over loopback");
    }

    private void print(List<Map<String, String>> full) {
        out.println();
        out.printf("== %s (%s) ==%n", scenario, seed.title());
        if (full.isEmpty()) {
            out.println("(no rows measured)");
            return;
        }
        List<String> columns = List.copyOf(full.get(0).keySet());
        out.println("| " + String.join(" | ", columns) + " |");
        out.println("|" + "---|".repeat(columns.size()));
        for (Map<String, String> row : full) {
            out.println("| " + String.join(" | ", row.values()) + " |");
        }
    }

    private static String abbreviate(String commit) {
        return commit.length() > 7 && !BuildInfo.UNKNOWN.equals(commit) ? commit.substring(0, 7) : commit;
    }
}
