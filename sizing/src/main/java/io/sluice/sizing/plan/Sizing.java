package io.sluice.sizing.plan;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.results.read.MeasuredRun;
import io.sluice.results.read.ResultSet;
import io.sluice.sizing.fit.CpuFitter;
import io.sluice.sizing.points.PointMeasurer;
import io.sluice.sizing.points.TrafficPoint;

/**
 * A whole sizing: every scenario found under the runs directory, fitted and planned for one traffic spec.
 *
 * @param exampleTraffic true when the user gave no traffic and the plan is for an example
 */
public record Sizing(Path runsDir, ResultSet results, TrafficSpec traffic, boolean exampleTraffic, List<ScenarioSizing> scenarios) {

    public static Sizing of(Path runsDir, ResultSet results, TrafficSpec traffic, boolean exampleTraffic) {
        Map<String, List<TrafficPoint>> byScenario = new LinkedHashMap<>();
        for (MeasuredRun run : results.runs()) {
            byScenario.computeIfAbsent(run.target(), t -> new ArrayList<>()).add(PointMeasurer.measure(run));
        }
        List<ScenarioSizing> scenarios = new ArrayList<>();
        // Lowest load first, as a reader scans a sweep.
        byScenario.values().forEach(points -> points.sort(Comparator.comparingDouble(TrafficPoint::targetTotalMBps)
                .thenComparing(TrafficPoint::workload)));
        byScenario.forEach((scenario, points) -> scenarios.add(size(scenario, points, traffic)));
        return new Sizing(runsDir, results, traffic, exampleTraffic, scenarios);
    }

    private static ScenarioSizing size(String scenario, List<TrafficPoint> points, TrafficSpec traffic) {
        List<String> notes = new ArrayList<>();
        if (points.stream().noneMatch(TrafficPoint::hasProxy)) {
            notes.add("no proxy CPU in these runs (the broker directly, or results without run.json): shown for throughput only");
            return new ScenarioSizing(scenario, points, new CpuFitter.Fits(scenario, Optional.empty(), Optional.empty(), List.of()),
                    Optional.empty(), notes);
        }
        CpuFitter.Fits fitted = CpuFitter.fit(scenario, points);
        // A fit with requests predicts for the traffic's own requests per MB; the others ignore it.
        CpuFitter.Fits fits = new CpuFitter.Fits(scenario, fitted.primary().map(fit -> fit.at(traffic.requestsPerMB())),
                fitted.perRecordView(), fitted.notes());
        Optional<PodPlan> plan = Optional.empty();
        if (fits.primary().isPresent()) {
            try {
                plan = Optional.of(ProxyPlanner.plan(fits.primary().get(), points, traffic));
            } catch (IllegalArgumentException e) {
                notes.add(e.getMessage());
            }
        }
        return new ScenarioSizing(scenario, points, fits, plan, notes);
    }
}
