package io.sluice.sizing.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.plan.ScenarioSizing;
import io.sluice.sizing.plan.Sizing;

/**
 * The files {@code sluice size} and {@code sluice size bridge} write into their report directory besides the summary
 * and the Deployment snippets: {@code report.html}, and each scenario's chart on its own ({@code chart-SCENARIO.svg},
 * {@code bridge-chart-SCENARIO.svg}) for pages that embed it as an image, such as docs/sizing.md.
 */
public final class ReportFiles {

    public static final String HTML = "report.html";

    private ReportFiles() {
    }

    /** @return the files written */
    public static List<Path> write(Sizing sizing, Path dir) throws IOException {
        List<Path> written = new ArrayList<>();
        written.add(Files.writeString(dir.resolve(HTML), HtmlReport.of(sizing)));
        for (ScenarioSizing scenario : sizing.scenarios()) {
            var chart = SvgChart.of(scenario);
            if (chart.isPresent()) {
                written.add(Files.writeString(dir.resolve(SvgChart.fileName(scenario.scenario())), chart.get()));
            }
        }
        return written;
    }

    /**
     * Each bridge scenario's chart ({@code bridge-chart-SCENARIO.svg}), drawn from every point, saturated ones
     * included, and before any fit: the measurements are worth seeing even when they cannot be fitted.
     *
     * @return the files written
     */
    public static List<Path> writeBridgeCharts(Map<String, List<BridgePoint>> byScenario, Path dir) throws IOException {
        List<Path> written = new ArrayList<>();
        for (var scenario : byScenario.entrySet()) {
            var chart = BridgeChart.of(scenario.getKey(), scenario.getValue());
            if (chart.isPresent()) {
                written.add(Files.writeString(dir.resolve(BridgeChart.fileName(scenario.getKey())), chart.get()));
            }
        }
        return written;
    }
}
