package io.sluice.sizing.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.plan.ScenarioSizing;
import io.sluice.sizing.points.TrafficPoint;

/**
 * The scenario's chart sketched in characters for the text summary, on the same axes as {@link SvgChart}: a terminal
 * reader sees the shape (a flat line, a knee, where the runs saturated) without opening the SVG. Plain ASCII, no
 * escape sequences.
 */
final class TextChart {

    private static final int COLUMNS = 61;
    private static final int ROWS = 13;
    private static final int LABEL_WIDTH = 7;

    private TextChart() {
    }

    /** The sketch's lines, or none when no point has a CPU figure. */
    static List<String> of(ScenarioSizing scenario) {
        return SvgChart.Extent.of(scenario).map(extent -> draw(scenario, extent)).orElse(List.of());
    }

    private static List<String> draw(ScenarioSizing scenario, SvgChart.Extent extent) {
        char[][] grid = new char[ROWS][COLUMNS];
        for (char[] row : grid) {
            Arrays.fill(row, ' ');
        }
        char[] axis = new char[COLUMNS];
        Arrays.fill(axis, '-');
        Optional<Double> saturatedFrom = scenario.saturated().stream().map(TrafficPoint::totalMBps).min(Double::compare);
        saturatedFrom.ifPresent(from -> Arrays.fill(axis, column(from, extent), COLUMNS, '~'));
        scenario.plan().ifPresent(plan -> {
            int c = column(plan.trafficPerPodMBps(), extent);
            for (char[] row : grid) {
                row[c] = '|';
            }
        });
        if (extent.fit().isPresent()) {
            CpuFit fit = extent.fit().get();
            for (int size : extent.sizes()) {
                for (int c = 0; c < COLUMNS; c++) {
                    int r = row(fit.millicores(extent.xMax() * c / (COLUMNS - 1), size).value(), extent);
                    if (r >= 0) {
                        grid[r][c] = '.';
                    }
                }
            }
        }
        // Saturated first, so a healthy run drawn on the same character stays visible.
        for (boolean saturated : new boolean[] { true, false }) {
            for (TrafficPoint p : extent.plotted()) {
                int r = row(p.cpuMillicores().get(), extent);
                if (p.saturated() == saturated && r >= 0) {
                    grid[r][column(p.totalMBps(), extent)] = saturated ? 'o' : '*';
                }
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(pad("mc") + "  proxy CPU against total traffic: * healthy run, o saturated run, . fit"
                + (scenario.plan().isPresent() ? ", | sized per pod" : "") + (saturatedFrom.isPresent() ? ", ~ saturated from here" : ""));
        for (int r = 0; r < ROWS; r++) {
            String label = r == 0 ? SvgChart.tick(extent.yMax()) : r == ROWS / 2 ? SvgChart.tick(extent.yMax() / 2) : "";
            lines.add((pad(label) + " |" + new String(grid[r])).stripTrailing());
        }
        lines.add(pad("0") + " +" + new String(axis));
        String middle = SvgChart.tick(extent.xMax() / 2);
        String end = SvgChart.tick(extent.xMax()) + " MB/s";
        StringBuilder ticks = new StringBuilder(" ".repeat(LABEL_WIDTH + 2)).append('0');
        ticks.append(" ".repeat(Math.max(1, LABEL_WIDTH + 2 + COLUMNS / 2 - middle.length() / 2 - ticks.length()))).append(middle);
        ticks.append(" ".repeat(Math.max(1, LABEL_WIDTH + 2 + COLUMNS - (end.length() - 5) - ticks.length()))).append(end);
        lines.add(ticks.toString());
        return lines;
    }

    private static int column(double mbps, SvgChart.Extent extent) {
        return (int) Math.max(0, Math.min(COLUMNS - 1, Math.round(mbps / extent.xMax() * (COLUMNS - 1))));
    }

    /** The row of a CPU figure, -1 when it lies above the chart. */
    private static int row(double millicores, SvgChart.Extent extent) {
        long r = ROWS - 1 - Math.round(millicores / extent.yMax() * (ROWS - 1));
        return r < 0 ? -1 : (int) Math.min(ROWS - 1, r);
    }

    private static String pad(String label) {
        return " ".repeat(Math.max(0, LABEL_WIDTH - label.length())) + label;
    }
}
