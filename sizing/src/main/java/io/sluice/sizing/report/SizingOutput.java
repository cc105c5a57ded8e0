package io.sluice.sizing.report;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.sizing.bridge.AudienceSpec;
import io.sluice.sizing.bridge.BridgeFit;
import io.sluice.sizing.bridge.BridgeFitter;
import io.sluice.sizing.bridge.BridgePlan;
import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.plan.ScenarioSizing;
import io.sluice.sizing.plan.Sizing;

/**
 * Everything {@code sluice size} and {@code sluice size bridge} write into their report directory and print, in one
 * place, so the commands only parse their options and the tests check exactly what users get.
 */
public final class SizingOutput {

    private SizingOutput() {
    }

    /**
     * The proxy's sizing: {@code summary.txt}, the HTML report and charts, and {@code resources-SCENARIO.yaml} (printed
     * as well) with {@code values-SCENARIO.yaml} (the same numbers for the Helm chart) for every scenario that could be sized.
     *
     * @param runs where the runs were read, named in the Deployments' evidence comment
     */
    public static void writeProxy(Sizing sizing, Path runs, Path out, PrintStream console) throws IOException {
        Files.createDirectories(out);
        String summary = TextSummary.of(sizing, out);
        console.print(summary);
        Files.writeString(out.resolve("summary.txt"), summary);
        ReportFiles.write(sizing, out);
        for (ScenarioSizing scenario : sizing.scenarios()) {
            if (scenario.plan().isPresent()) {
                String evidence = scenario.healthy().size() + " healthy runs under " + runs + ", report " + out.resolve(ReportFiles.HTML);
                String yaml = ResourcesYaml.of(scenario.scenario(), scenario.plan().get(), evidence);
                Files.writeString(out.resolve("resources-" + scenario.scenario() + ".yaml"), yaml);
                Files.writeString(out.resolve("values-" + scenario.scenario() + ".yaml"),
                        ResourcesYaml.helmValues(scenario.scenario(), scenario.plan().get(), evidence));
                console.println();
                console.print(yaml);
            }
        }
        console.println();
        console.println("wrote " + out.resolve("summary.txt") + ", " + out.resolve(ReportFiles.HTML) + " and, per scenario, resources-<scenario>.yaml (a Deployment) and values-<scenario>.yaml (for the Helm chart: -f)");
    }

    /**
     * The bridge's sizing: each scenario's chart (drawn before any fit), its fit, plan and
     * {@code bridge-resources-SCENARIO.yaml} with {@code bridge-values-SCENARIO.yaml} (for the Helm chart), and
     * {@code bridge-report.html}.
     *
     * @return 0, or 2 if a scenario could not be sized (said on {@code errors})
     */
    public static int writeBridge(List<BridgePoint> points, AudienceSpec audience, Path out, PrintStream console, PrintStream errors)
            throws IOException {
        Map<String, List<BridgePoint>> byScenario = new LinkedHashMap<>();
        points.forEach(p -> byScenario.computeIfAbsent(p.scenario(), s -> new ArrayList<>()).add(p));
        List<BridgeFit> fits = new ArrayList<>();
        List<BridgePlan> plans = new ArrayList<>();
        Files.createDirectories(out);
        ReportFiles.writeBridgeCharts(byScenario, out);
        int status = 0;
        for (var entry : byScenario.entrySet()) {
            try {
                BridgeFit fit = BridgeFitter.fit(entry.getKey(), entry.getValue());
                BridgePlan plan = BridgePlan.plan(fit, audience);
                fits.add(fit);
                plans.add(plan);
                console.print(BridgeReport.text(fit, plan));
                String yaml = BridgeReport.yaml(fit, plan);
                console.print(yaml);
                Files.writeString(out.resolve("bridge-resources-" + entry.getKey() + ".yaml"), yaml);
                Files.writeString(out.resolve("bridge-values-" + entry.getKey() + ".yaml"), BridgeReport.helmValues(fit, plan));
            } catch (IllegalArgumentException e) {
                errors.println("sluice size bridge: " + e.getMessage());
                status = 2;
            }
        }
        Files.writeString(out.resolve("bridge-report.html"), BridgeReport.html(fits, plans));
        console.println("wrote " + out.resolve("bridge-report.html") + " and, per scenario, bridge-resources-<scenario>.yaml and bridge-values-<scenario>.yaml");
        return status;
    }
}
