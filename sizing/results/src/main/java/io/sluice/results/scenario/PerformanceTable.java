package io.sluice.results.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The table a scenario's runs are recorded in, in docs/performance.md: the first Markdown table after the line
 * {@code <!-- scenario: NAME -->}. The seed's published figures are rows written by hand; each run appends one row
 * after the table's last. The columns must be the table's header, in order, so that a renamed column is an error
 * rather than a shifted table.
 */
public final class PerformanceTable {

    private PerformanceTable() {
    }

    public static String marker(String scenario) {
        return "<!-- scenario: " + scenario + " -->";
    }

    /** Appends the rows at the end of the scenario's table; the file is rewritten whole (atomically) or not at all. */
    public static void append(Path doc, String scenario, List<Map<String, String>> rows) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(doc, StandardCharsets.UTF_8));
        int at = lines.indexOf(marker(scenario));
        if (at < 0) {
            throw new IllegalStateException(doc + " has no line " + marker(scenario) + " followed by the scenario's table");
        }
        int header = at + 1;
        while (header < lines.size() && !lines.get(header).startsWith("|")) {
            header++;
        }
        if (header + 1 >= lines.size() || !lines.get(header + 1).startsWith("|---")) {
            throw new IllegalStateException(doc + ": no Markdown table after " + marker(scenario));
        }
        List<String> columns = cells(lines.get(header));
        int end = header + 2;
        while (end < lines.size() && lines.get(end).startsWith("|")) {
            end++;
        }
        List<String> added = new ArrayList<>();
        for (Map<String, String> row : rows) {
            if (!List.copyOf(row.keySet()).equals(columns)) {
                throw new IllegalStateException(doc + ": the table after " + marker(scenario) + " has the columns " + columns
                        + " but the run has " + row.keySet() + "; change the table's header to match");
            }
            added.add("| " + String.join(" | ", row.values().stream().map(PerformanceTable::escape).toList()) + " |");
        }
        lines.addAll(end, added);
        Path temporary = Files.createTempFile(doc.toAbsolutePath().getParent(), ".performance", ".md");
        Files.write(temporary, lines, StandardCharsets.UTF_8);
        Files.move(temporary, doc, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static List<String> cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        return Arrays.stream(inner.split("\\|", -1)).map(String::strip).toList();
    }

    /** A cell must stay on its line and inside its column. */
    private static String escape(String cell) {
        return cell.replace("\n", " ").replace("|", "\\|");
    }
}
