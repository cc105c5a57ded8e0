package io.sluice.sizing.report;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.fit.LinearFit;
import io.sluice.sizing.plan.PodPlan;
import io.sluice.sizing.plan.ScenarioSizing;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.points.TrafficPoint;

/**
 * The sizing as one self-contained HTML file (inline SVG and CSS, no scripts, nothing fetched): per scenario the
 * chart, the recommendation and its YAML, and the coefficients with their intervals; below them every run with the
 * tool that produced it and why it was or was not used.
 */
public final class HtmlReport {

    private final StringBuilder html = new StringBuilder();

    private HtmlReport() {
    }

    public static String of(Sizing sizing) {
        HtmlReport report = new HtmlReport();
        report.write(sizing);
        return report.html.toString();
    }

    private void write(Sizing sizing) {
        raw("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Sluice sizing</title>
                <style>
                body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1f2328}
                table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right;font-size:13px}
                th{background:#f6f8fa}td.l,th.l{text-align:left}tr.saturated td{color:#cf222e}
                pre{background:#f6f8fa;padding:10px;overflow-x:auto;font-size:13px}.note{color:#57606a}.warn{color:#9a6700}
                .big{font-size:18px}
                </style></head><body>
                """);
        raw("<h1>Sluice sizing</h1>");
        p(String.format(Locale.ROOT, "%d runs under <code>%s</code>; generated %s by <code>sluice size</code>.", sizing.results().runs().size(),
                Html.escape(sizing.runsDir().toString()), DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(ZonedDateTime.now().withNano(0))));
        p("Sized for: <b>" + Html.escape(sizing.traffic().describe()) + "</b>"
                + (sizing.exampleTraffic() ? " <span class=\"note\">(an example; pass <code>--produce-mb-s</code> and friends for yours)</span>" : ""));
        // What a reader came for first: per scenario the chart and the pods; then the fit; the run tables last.
        for (ScenarioSizing scenario : sizing.scenarios()) {
            if (charted(scenario)) {
                scenario(scenario, sizing);
            }
        }
        raw("<h2 id=\"runs\">Runs</h2>");
        for (ScenarioSizing scenario : sizing.scenarios()) {
            runs(scenario);
        }
        method();
        raw("</body></html>\n");
    }

    private static boolean charted(ScenarioSizing s) {
        return s.plan().isPresent() || SvgChart.of(s).isPresent();
    }

    private void scenario(ScenarioSizing s, Sizing sizing) {
        raw("<section class=\"scenario\" id=\"scenario-" + Html.escape(s.scenario()) + "\">");
        raw("<h2>" + Html.escape(s.scenario()) + "</h2>");
        p(String.format(Locale.ROOT, "%d runs: %d healthy, %d saturated (<a href=\"#runs-%s\">the runs</a>).", s.points().size(), s.healthy().size(),
                s.saturated().size(), Html.escape(s.scenario())));
        SvgChart.of(s).ifPresent(this::raw);
        s.plan().ifPresent(plan -> plan(s.scenario(), plan, s));
        notes(s);
        s.fits().primary().ifPresent(fit -> fit(fit, s, sizing.traffic().messageBytes()));
        raw("</section>");
    }

    private void runs(ScenarioSizing s) {
        raw("<section class=\"runs\" id=\"runs-" + Html.escape(s.scenario()) + "\">");
        raw(String.format(Locale.ROOT, "<h3>%s: %d runs, %d healthy, %d saturated</h3>", Html.escape(s.scenario()), s.points().size(),
                s.healthy().size(), s.saturated().size()));
        if (!charted(s)) {
            notes(s);
        }
        points(s.points());
        raw("</section>");
    }

    private void notes(ScenarioSizing s) {
        s.notes().forEach(n -> raw("<p class=\"note\">" + Html.escape(n) + "</p>"));
        s.fits().notes().forEach(n -> raw("<p class=\"note\">" + Html.escape(n) + "</p>"));
    }

    private void fit(CpuFit fit, ScenarioSizing s, int size) {
        raw("<h3>Fit</h3>");
        p(Html.escape(fit.model().formula()) + String.format(Locale.ROOT, ", least squares over %d healthy runs: R² %.3f, residual standard error %.0f mc."
                + " ± is the two-sided 95 %% interval (Student's t, %d degrees of freedom).", fit.fit().points(), fit.fit().rSquared(),
                fit.fit().residualStdError(), fit.fit().degreesOfFreedom()));
        coefficients(fit.fit(), TextSummary.units(fit));
        if (fit.model().usesRequests()) {
            p(String.format(Locale.ROOT, "Per MB/s and per core below are at %.1f Produce+Fetch requests per MB of traffic, the shape sized for.",
                    fit.requestsPerMB()));
        }
        residuals(FitResiduals.of(fit));
        s.fits().perRecordView().ifPresent(view -> p("The same runs per record: " + Figures.estimate(new Estimate(view.fit().coefficient(1),
                view.fit().halfWidth95(1))) + " mc per 1000 records/s (R² " + Figures.number(view.fit().rSquared(), 3) + ")."));
        Estimate perMB = fit.millicoresPerMBps(size);
        Estimate perCore = fit.mbpsPerCore(size);
        raw("<p class=\"big\"><b>" + Figures.estimate(perMB) + " millicores per MB/s</b> of total traffic at " + size + "-byte messages; one core carries <b>"
                + Figures.estimate(perCore) + " MB/s</b>" + (perCore.value() > fit.maxMeasuredMBps()
                        ? String.format(Locale.ROOT, " (extrapolated: the runs went up to %.1f MB/s)", fit.maxMeasuredMBps()) : "") + ".</p>");
        p(Html.escape(PublishedRule.compare(perMB)) + " (<a href=\"" + PublishedRule.SOURCE + "\">source</a>).");
    }

    private void plan(String scenario, PodPlan plan, ScenarioSizing s) {
        raw("<h3>Recommendation</h3>");
        p(String.format(Locale.ROOT, "%d pod(s) carry %.1f MB/s, %.1f MB/s each; each needs %s mc (upper bound %.0f), times %.2f headroom: "
                        + "<b>%dm CPU</b> per pod, requests = limits. Memory: %s. <b>Replicas: %d</b> (one more than the load needs, so any one can fail).",
                plan.podsForLoad(), plan.traffic().totalMBps(), plan.trafficPerPodMBps(), Figures.estimate(plan.needPerPod()),
                plan.needPerPod().upper(), plan.traffic().headroom(), plan.millicoresPerPod(),
                Html.escape(plan.memoryExplained()),
                plan.replicas()));
        plan.warnings().forEach(w -> raw("<p class=\"warn\">Warning: " + Html.escape(w) + "</p>"));
        raw("<pre class=\"resources\">" + Html.escape(ResourcesYaml.of(scenario, plan, s.healthy().size() + " healthy runs, see below")) + "</pre>");
    }

    private void residuals(FitResiduals r) {
        p(String.format(Locale.ROOT, "Error: RMS %.1f mc, %.1f %% of the mean CPU. Per run, measured − fitted:", r.rmsMillicores(), 100 * r.relativeRms()));
        raw("<table><tr><th>run</th><th>MB/s</th><th>requests/s</th><th>measured mc</th><th>fitted mc</th><th>residual mc</th><th>relative</th></tr>");
        for (FitResiduals.Row row : r.rows()) {
            raw(String.format(Locale.ROOT, "<tr><td>%s</td><td>%.1f</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%+.1f</td><td>%+.1f %%</td></tr>",
                    Html.escape(row.workload()), row.totalMBps(), row.requestsPerSecond().isPresent()
                            ? String.format(Locale.ROOT, "%,.0f", row.requestsPerSecond().getAsDouble()) : "-",
                    row.measured(), row.fitted(), row.residual(), 100 * row.relative()));
        }
        raw("</table>");
    }

    private void coefficients(LinearFit fit, List<String> units) {
        raw("<table class=\"coefficients\"><tr><th class=\"l\">term</th><th>estimate ± 95 %</th><th>standard error</th><th class=\"l\">unit</th></tr>");
        for (int i = 0; i < fit.names().size(); i++) {
            raw(String.format(Locale.ROOT, "<tr><td class=\"l\">%s</td><td>%s</td><td>%s</td><td class=\"l\">%s</td></tr>", Html.escape(fit.names().get(i)),
                    Figures.estimate(new Estimate(fit.coefficient(i), fit.halfWidth95(i))), Figures.number(fit.standardErrors()[i], 3),
                    Html.escape(units.get(i))));
        }
        raw("</table>");
    }

    private void points(List<TrafficPoint> points) {
        raw("<table class=\"runs\"><tr><th class=\"l\">workload</th><th class=\"l\">tool</th><th>bytes</th><th>target msg/s</th>"
                + "<th>published msg/s</th><th>consumed msg/s</th><th>total MB/s</th><th>proxy mc</th><th>peak RSS</th><th class=\"l\">status</th></tr>");
        for (TrafficPoint p : points) {
            raw(String.format(Locale.ROOT, "<tr class=\"%s\"><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%d</td><td>%,.0f</td><td>%,.0f</td><td>%,.0f</td>"
                            + "<td>%.2f</td><td>%s</td><td>%s</td><td class=\"l\">%s</td></tr>",
                    p.saturated() ? "saturated" : "healthy", Html.escape(p.workload()), Html.escape(p.run().tool()), p.messageBytes(),
                    p.targetProduceRate(), p.publishRate(), p.consumeRate(), p.totalMBps(),
                    p.cpuMillicores().map(c -> Figures.number(c, 0)).orElse("—"),
                    p.peakRssBytes().isPresent() ? Figures.mib(p.peakRssBytes().getAsLong()) : "—",
                    Html.escape(p.saturated() ? "saturated: " + String.join("; ", p.reasons())
                            : p.cpuMillicores().isPresent() ? "healthy, used in the fit" : "healthy; " + p.cpuMissing().orElse(""))));
        }
        raw("</table>");
    }

    private void method() {
        raw("<h2>Method</h2>");
        p("Traffic is what crossed the proxy: messages produced plus messages consumed (every subscription counted), times the message size,"
                + " in MB/s of 10<sup>6</sup> bytes. CPU is the proxy process's user + system time over the measured window (after warm-up),"
                + " read from its own cgroup where it has one, otherwise from /proc. A run is saturated when it published under 95 % of its"
                + " target, its consumers fell under 95 % of what was published, its backlog grew past two seconds of traffic, its median"
                + " publish delay reached 10 ms, or publishes failed; saturated runs are shown but not fitted. The coefficients come from"
                + " ordinary least squares; their intervals from the residual variance and Student's t. The CPU per pod is the upper end of"
                + " the fitted mean's 95 % interval at the pod's share of the traffic, times the headroom, rounded up to 100 mc.");
    }

    private void p(String innerHtml) {
        raw("<p>" + innerHtml + "</p>");
    }

    private void raw(String text) {
        html.append(text).append('\n');
    }
}
