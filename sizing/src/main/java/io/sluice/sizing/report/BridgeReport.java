package io.sluice.sizing.report;

import java.util.List;
import java.util.Locale;

import io.sluice.sizing.bridge.BridgeFit;
import io.sluice.sizing.bridge.BridgePlan;
import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.deploy.DeploymentYaml;
import io.sluice.sizing.deploy.DeployedComponent;
import io.sluice.sizing.deploy.HelmValues;
import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.fit.LinearFit;

/**
 * The bridge's sizing as text, as Deployment YAML, and as a self-contained HTML page (per scenario the chart, then the
 * sizing and its YAML, then the points).
 */
public final class BridgeReport {

    private BridgeReport() {
    }

    public static String text(BridgeFit fit, BridgePlan plan) {
        StringBuilder out = new StringBuilder();
        line(out, "== bridge scenario %s: %d healthy points ==", fit.scenario(), fit.points().size());
        line(out, "  CPU:    millicores = a + b x (1000 connections) + c x (1000 msg/s delivered); R² %.3f", fit.cpu().rSquared());
        terms(out, fit.cpu(), "mc");
        line(out, "  memory: MiB = m0 + m1 x (1000 connections); R² %.3f", fit.memory().rSquared());
        terms(out, fit.memory(), "");
        line(out, "  (± is the two-sided 95 %% interval, Student's t)");
        long largest = fit.points().stream().mapToLong(BridgePoint::connections).max().orElse(0);
        line(out, "  assumes: CPU linear in connections and in messages delivered, memory linear in connections (the model above);");
        line(out, "           the CPU per message of the machine and network measured (on loopback the bridge is also charged its");
        line(out, "           subscribers' TCP input, about a third of its CPU); beyond %,d connections, the largest measured, extrapolated",
                largest);
        double rate = plan.audience().messagesPerUser();
        Estimate users = fit.usersPerCore(rate);
        line(out, "  => one core serves %s users at %s msg/s each, i.e. %s msg/s delivered", Figures.estimate(users), Figures.number(rate, 2),
                Figures.estimate(new Estimate(users.value() * rate, users.halfWidth95() * rate)));
        line(out, "  => %s KiB of memory per connection", Figures.estimate(fit.kibPerConnection()));
        line(out, "  => for %,d users at %s msg/s (%,.0f msg/s): %d pod(s) at %dm CPU and %s memory each, replicas %d (N+1)",
                plan.audience().users(), Figures.number(rate, 2), plan.audience().messagesPerSecond(), plan.podsForLoad(),
                plan.millicoresPerPod(), Figures.mib(plan.memoryBytesPerPod()), plan.replicas());
        plan.warnings().forEach(w -> line(out, "     warning: %s", w));
        return out.toString();
    }

    public static String yaml(BridgeFit fit, BridgePlan plan) {
        return DeploymentYaml.of(DeployedComponent.BRIDGE, header(fit, plan), plan.replicas(), plan.millicoresPerPod(), plan.memoryBytesPerPod(),
                plan.jvm());
    }

    /** The chart's {@code bridge.replicas}, {@code bridge.javaOpts} and {@code bridge.resources} for the same plan. */
    public static String helmValues(BridgeFit fit, BridgePlan plan) {
        return HelmValues.of(DeployedComponent.BRIDGE, header(fit, plan), plan.replicas(), plan.millicoresPerPod(), plan.memoryBytesPerPod(),
                plan.jvm());
    }

    private static List<String> header(BridgeFit fit, BridgePlan plan) {
        return List.of(
                String.format(Locale.ROOT, "sluice size bridge, scenario %s: %,d users at %s msg/s each, headroom x%.2f", fit.scenario(),
                        plan.audience().users(), Figures.number(plan.audience().messagesPerUser(), 2), plan.audience().headroom()),
                plan.podsForLoad() + " pod(s) carry the audience; +1 so any one can fail (N+1)",
                "memory: the fit's upper bound x headroom, holding the JVM's budget: " + plan.jvm().formula());
    }

    public static String html(List<BridgeFit> fits, List<BridgePlan> plans) {
        StringBuilder html = new StringBuilder("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Sluice bridge sizing</title>
                <style>body{font-family:system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em}
                table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right;font-size:13px}
                tr.saturated td{color:#cf222e}pre{background:#f6f8fa;padding:10px}</style></head><body>
                <h1>Sluice bridge sizing</h1>
                """);
        if (fits.isEmpty()) {
            html.append("<p>No scenario could be sized: <code>sluice size bridge</code> printed why. Each scenario's measurements are charted"
                    + " beside this file, in <code>bridge-chart-SCENARIO.svg</code>.</p>\n");
        }
        for (int i = 0; i < fits.size(); i++) {
            BridgeFit fit = fits.get(i);
            html.append("<h2>").append(Html.escape(fit.scenario())).append("</h2>\n");
            BridgeChart.of(fit.scenario(), fit.points()).ifPresent(svg -> html.append(svg));
            html.append("<pre>")
                    .append(Html.escape(text(fit, plans.get(i)))).append("</pre>\n<pre class=\"resources\">")
                    .append(Html.escape(yaml(fit, plans.get(i)))).append("</pre>\n");
            html.append("<table><tr><th>connections</th><th>target msg/s</th><th>delivered msg/s</th><th>CPU mc</th><th>RSS</th></tr>\n");
            for (BridgePoint p : fit.points()) {
                html.append(String.format(Locale.ROOT, "<tr><td>%,d</td><td>%,.0f</td><td>%,.0f</td><td>%.0f</td><td>%s</td></tr>%n",
                        p.connections(), p.targetMessagesPerSecond(), p.deliveredMessagesPerSecond(), p.cpuMillicores(), p.rssBytes().isPresent() ? Figures.mib(p.rssBytes().getAsLong()) : "—"));
            }
            html.append("</table>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    private static void terms(StringBuilder out, LinearFit fit, String unit) {
        for (int i = 0; i < fit.names().size(); i++) {
            line(out, "    %-26s %16s %s", fit.names().get(i), Figures.estimate(new Estimate(fit.coefficient(i), fit.halfWidth95(i))), unit);
        }
    }

    private static void line(StringBuilder out, String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}
