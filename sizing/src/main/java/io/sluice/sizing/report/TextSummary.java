package io.sluice.sizing.report;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.fit.LinearFit;
import io.sluice.sizing.plan.PodPlan;
import io.sluice.sizing.plan.ScenarioSizing;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.points.TrafficPoint;

/**
 * The sizing for a terminal: per scenario the pods first, then the fit with its errors and what it means per MB/s and
 * per core, then the runs that did not count.
 */
public final class TextSummary {

    private final StringBuilder out = new StringBuilder();
    private final Path reportDir;

    private TextSummary(Path reportDir) {
        this.reportDir = reportDir;
    }

    /**
     * @param reportDir where {@link ReportFiles} writes the report and the charts, named in the summary. The text has no
     *                  terminal escape sequences (no colours), so it reads the same in a file, a log and a pasted doc.
     */
    public static String of(Sizing sizing, Path reportDir) {
        TextSummary summary = new TextSummary(reportDir);
        summary.write(sizing);
        return summary.out.toString();
    }

    private void write(Sizing sizing) {
        Map<String, Long> tools = sizing.results().runs().stream().collect(Collectors.groupingBy(r -> r.tool(), TreeMap::new, Collectors.counting()));
        line("sluice size: %d runs under %s, produced by %s", sizing.results().runs().size(), sizing.runsDir(),
                tools.entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", ")));
        if (!sizing.results().ignored().isEmpty()) {
            line("  ignored %d JSON file(s) with neither run.json nor workload.yaml beside them, e.g. %s",
                    sizing.results().ignored().size(), sizing.results().ignored().get(0));
        }
        line("sizing for: %s%s", sizing.traffic().describe(),
                sizing.exampleTraffic() ? "  (an example: give --produce-mb-s, --consumer-groups, --message-bytes for yours)" : "");
        for (ScenarioSizing scenario : sizing.scenarios()) {
            line("");
            scenario(scenario, sizing);
        }
    }

    /** The answer first (the pods, then where the chart is), then the evidence: the fit, then the runs. */
    private void scenario(ScenarioSizing s, Sizing sizing) {
        List<TrafficPoint> healthy = s.healthy();
        List<TrafficPoint> saturated = s.saturated();
        line("== %s: %d runs, %d healthy, %d saturated ==", s.scenario(), s.points().size(), healthy.size(), saturated.size());
        s.plan().ifPresent(plan -> plan(plan));
        if (SvgChart.of(s).isPresent()) {
            line("  chart: %s (and in %s)", reportDir.resolve(SvgChart.fileName(s.scenario())), reportDir.resolve(ReportFiles.HTML));
            TextChart.of(s).forEach(sketch -> out.append("  ").append(sketch).append('\n'));
        }
        s.notes().forEach(note -> line("  note: %s", note));
        machineLoad(s);
        s.fits().notes().forEach(note -> line("  note: %s", note));
        s.fits().primary().ifPresent(fit -> fit(fit, s, sizing.traffic().messageBytes()));
        s.fits().primary().ifPresent(this::residuals);
        healthy.stream().mapToDouble(TrafficPoint::totalMBps).max().ifPresent(max ->
                line("  runs: healthy up to %.1f MB/s of total traffic%s", max, saturated.isEmpty() ? "; no run saturated"
                        : String.format(Locale.ROOT, "; saturated from a target of %.1f MB/s",
                                saturated.stream().mapToDouble(TrafficPoint::targetTotalMBps).min().orElse(0))));
        for (TrafficPoint p : saturated) {
            line("  saturated: %s (%s, target %.1f MB/s total, achieved %.1f): %s", p.workload(), p.run().tool(), p.targetTotalMBps(),
                    p.totalMBps(), String.join("; ", p.reasons()));
        }
    }

    private void fit(CpuFit fit, ScenarioSizing s, int size) {
        line("  fit: %s, least squares over %d healthy runs; R² %.3f, residual %.0f mc", fit.model().formula(), fit.fit().points(),
                fit.fit().rSquared(), fit.fit().residualStdError());
        coefficients(fit.fit(), units(fit));
        if (fit.model().usesRequests()) {
            line("  at %.1f Produce+Fetch requests per MB of traffic, the shape sized for; per MB/s and per core below are at that shape",
                    fit.requestsPerMB());
        }
        s.fits().perRecordView().ifPresent(view -> {
            line("  the same runs per record: %s mc per 1000 records/s (R² %.3f)", Figures.estimate(new Estimate(view.fit().coefficient(1),
                    view.fit().halfWidth95(1))), view.fit().rSquared());
        });
        line("  (± is the two-sided 95 %% interval: Student's t with %d degrees of freedom times the standard error)", fit.fit().degreesOfFreedom());
        Estimate perMB = fit.millicoresPerMBps(size);
        line("  => %s millicores per MB/s of total traffic at %d-byte messages", Figures.estimate(perMB), size);
        line("     %s", PublishedRule.compare(perMB));
        Estimate perCore = fit.mbpsPerCore(size);
        line("  => one core (1000 mc) carries %s MB/s of total traffic (baseline %s mc included)%s", Figures.estimate(perCore),
                Figures.estimate(fit.baselineMillicores()), perCore.value() > fit.maxMeasuredMBps()
                        ? String.format(Locale.ROOT, "; extrapolated: the runs went up to %.1f MB/s", fit.maxMeasuredMBps()) : "");
    }

    /** The fit's error: overall, then run by run. */
    private void residuals(CpuFit fit) {
        FitResiduals r = FitResiduals.of(fit);
        line("  error: RMS %.1f mc, %.1f %% of the mean CPU; per run (measured - fitted):", r.rmsMillicores(), 100 * r.relativeRms());
        for (FitResiduals.Row row : r.rows()) {
            line("    %-36s %8.1f MB/s %10s req/s  measured %6.0f mc  fitted %6.0f mc  residual %+6.1f mc (%+.1f %%)", row.workload(),
                    row.totalMBps(), row.requestsPerSecond().isPresent() ? String.format(Locale.ROOT, "%,.0f", row.requestsPerSecond().getAsDouble()) : "-",
                    row.measured(), row.fitted(), row.residual(), 100 * row.relative());
        }
    }

    /** How busy the machine was: a load above the core count means the runs competed with something else. */
    private void machineLoad(ScenarioSizing s) {
        var loads = s.points().stream().flatMap(p -> p.run().run().flatMap(r -> r.loadAverage()).stream()).mapToDouble(Double::doubleValue)
                .summaryStatistics();
        int cores = s.points().stream().flatMap(p -> p.run().run().stream()).mapToInt(r -> r.cores()).max().orElse(0);
        if (loads.getCount() > 0) {
            line("  machine: %d cores; 1-minute load average at the end of each run %.1f to %.1f%s", cores, loads.getMin(), loads.getMax(),
                    loads.getMax() > cores ? " (above the core count: other work competed with these runs)" : "");
        }
    }

    private void plan(PodPlan plan) {
        line("  => for %.1f MB/s total: %d pod(s) at %.1f MB/s each need %s mc (upper %.0f) x%.2f headroom = %dm per pod",
                plan.traffic().totalMBps(), plan.podsForLoad(), plan.trafficPerPodMBps(), Figures.estimate(plan.needPerPod()),
                plan.needPerPod().upper(), plan.traffic().headroom(), plan.millicoresPerPod());
        line("     memory: %s", plan.memoryExplained());
        line("     replicas: %d (%d for the load + 1 so one can fail); requests = limits: cpu %dm, memory %s", plan.replicas(),
                plan.podsForLoad(), plan.millicoresPerPod(), Figures.mib(plan.memoryBytesPerPod()));
        plan.warnings().forEach(w -> line("     warning: %s", w));
    }

    private void coefficients(LinearFit fit, List<String> units) {
        for (int i = 0; i < fit.names().size(); i++) {
            line("    %-20s %16s %s", fit.names().get(i), Figures.estimate(new Estimate(fit.coefficient(i), fit.halfWidth95(i))), units.get(i));
        }
    }

    static List<String> units(CpuFit fit) {
        return fit.fit().names().stream().map(n -> n.equals("baseline") ? "mc" : "mc " + n).toList();
    }

    private void line(String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}
