package io.sluice.sizing.report;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.plan.ScenarioSizing;
import io.sluice.sizing.points.TrafficPoint;

/**
 * A scenario's evidence as an inline SVG: measured CPU against total traffic (filled: healthy, hollow red:
 * saturated), the fit with its 95 % band for each message size measured, the region where runs saturated, and
 * Kroxylicious's published 10 and 25 mc per MB/s for comparison. Elements carry classes ({@code point healthy},
 * {@code point saturated}, {@code fit-line}, {@code fit-band}, {@code saturation-region}, {@code reference}) so the
 * chart can be checked by a machine as well as read.
 */
public final class SvgChart {

    private static final int WIDTH = 760;
    private static final int HEIGHT = 440;
    private static final int LEFT = 72;
    private static final int RIGHT = 24;
    private static final int TOP = 24;
    private static final int BOTTOM = 58;
    private static final String[] SIZE_COLOURS = { "#1f6feb", "#8250df", "#1a7f37", "#bf8700" };

    private final StringBuilder svg = new StringBuilder();
    private final double xMax;
    private final double yMax;

    private SvgChart(double xMax, double yMax) {
        this.xMax = xMax;
        this.yMax = yMax;
    }

    /** The name of a scenario's chart file in the report directory, e.g. {@code chart-passthrough.svg}. */
    public static String fileName(String scenario) {
        return "chart-" + id(scenario) + ".svg";
    }

    /**
     * The chart, or empty when no point has a CPU figure to plot. The text is the same for the same runs and traffic,
     * on any machine (fixed decimals, {@link Locale#ROOT}, no time of day), so a chart committed to the docs can be
     * checked against a regenerated one.
     */
    public static Optional<String> of(ScenarioSizing scenario) {
        return Extent.of(scenario).map(extent -> {
            SvgChart chart = new SvgChart(extent.xMax(), extent.yMax());
            chart.draw(scenario, extent.plotted(), extent.fit(), extent.sizes());
            return chart.svg.toString();
        });
    }

    /**
     * What a scenario's chart shows and the ends of its axes, shared by the SVG and the text summary's sketch so both
     * draw the same picture.
     *
     * @param plotted the points with a CPU figure
     * @param sizes   the message sizes measured, each with its own fit line
     */
    record Extent(List<TrafficPoint> plotted, double xMax, double yMax, Optional<CpuFit> fit, List<Integer> sizes) {

        /** Empty when no point has a CPU figure to plot. */
        static Optional<Extent> of(ScenarioSizing scenario) {
            List<TrafficPoint> plotted = scenario.points().stream().filter(p -> p.cpuMillicores().isPresent()).toList();
            if (plotted.isEmpty()) {
                return Optional.empty();
            }
            double xMax = plotted.stream().mapToDouble(TrafficPoint::totalMBps).max().orElse(1);
            // Show where the sized traffic falls, even when it lies beyond the measurements.
            xMax = Math.max(xMax, scenario.plan().map(p -> p.trafficPerPodMBps()).orElse(0.0));
            double yMax = plotted.stream().mapToDouble(p -> p.cpuMillicores().get()).max().orElse(1);
            Optional<CpuFit> fit = scenario.fits().primary();
            List<Integer> sizes = plotted.stream().map(TrafficPoint::messageBytes).distinct().sorted().toList();
            xMax = nice(xMax * 1.1);
            if (fit.isPresent()) {
                for (int size : sizes) {
                    yMax = Math.max(yMax, fit.get().millicores(xMax, size).upper());
                }
            }
            return Optional.of(new Extent(plotted, xMax, nice(yMax * 1.1), fit, sizes));
        }
    }

    private void draw(ScenarioSizing scenario, List<TrafficPoint> plotted, Optional<CpuFit> fit, List<Integer> sizes) {
        add("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sizing-chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\""
                + " font-family=\"sans-serif\" aria-label=\"%s: proxy CPU against total traffic\">", WIDTH, HEIGHT, WIDTH, HEIGHT,
                Html.escape(scenario.scenario()));
        // Opaque, so the chart stays readable where it is shown on a dark page (a repository browser's dark theme).
        add("<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>", WIDTH, HEIGHT);
        add("<defs><clipPath id=\"plot-%s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath></defs>", id(scenario),
                LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        axes();
        scenario.saturated().stream().mapToDouble(TrafficPoint::totalMBps).min().ifPresent(from -> {
            add("<rect class=\"saturation-region\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#cf222e\" fill-opacity=\"0.08\"/>",
                    x(from), TOP, x(xMax) - x(from), HEIGHT - TOP - BOTTOM);
            add("<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#cf222e\">saturated runs from here</text>", x(from) + 4, HEIGHT - BOTTOM - 8);
        });
        scenario.plan().ifPresent(plan -> {
            add("<line class=\"sized-traffic\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#1a7f37\" stroke-width=\"1.5\"/>",
                    x(plan.trafficPerPodMBps()), TOP, x(plan.trafficPerPodMBps()), HEIGHT - BOTTOM);
            add("<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#1a7f37\" text-anchor=\"end\">sized: %.1f MB/s per pod</text>",
                    // Mid-height: the reference lines' labels sit near the top.
                    x(plan.trafficPerPodMBps()) - 4, TOP + (HEIGHT - TOP - BOTTOM) / 2, plan.trafficPerPodMBps());
        });
        add("<g clip-path=\"url(#plot-%s)\">", id(scenario));
        reference(PublishedRule.MEASURED_MC_PER_MBPS, "kroxylicious-10");
        reference(PublishedRule.CONSERVATIVE_MC_PER_MBPS, "kroxylicious-25");
        if (fit.isPresent()) {
            for (int i = 0; i < sizes.size(); i++) {
                fitLine(fit.get(), sizes.get(i), SIZE_COLOURS[i % SIZE_COLOURS.length]);
            }
        }
        add("</g>");
        for (TrafficPoint p : plotted) {
            String colour = SIZE_COLOURS[sizes.indexOf(p.messageBytes()) % SIZE_COLOURS.length];
            String title = String.format(Locale.ROOT, "%s (%s): %.2f MB/s, %.0f mc, %d-byte messages%s", p.workload(), p.run().tool(),
                    p.totalMBps(), p.cpuMillicores().get(), p.messageBytes(), p.saturated() ? "; saturated: " + String.join("; ", p.reasons()) : "");
            add("<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"><title>%s</title></circle>",
                    p.saturated() ? "saturated" : "healthy", x(p.totalMBps()), y(p.cpuMillicores().get()),
                    p.saturated() ? "none" : colour, p.saturated() ? "#cf222e" : colour, Html.escape(title));
        }
        legend(fit.isPresent(), sizes);
        add("</svg>");
    }

    private void fitLine(CpuFit fit, int size, String colour) {
        int steps = 40;
        StringBuilder upper = new StringBuilder();
        StringBuilder lower = new StringBuilder();
        StringBuilder line = new StringBuilder();
        for (int i = 0; i <= steps; i++) {
            double mbps = xMax * i / steps;
            Estimate e = fit.millicores(mbps, size);
            upper.append(String.format(Locale.ROOT, "%s%.1f,%.1f ", i == 0 ? "M" : "L", x(mbps), y(e.upper())));
            lower.insert(0, String.format(Locale.ROOT, "L%.1f,%.1f ", x(mbps), y(e.lower())));
            line.append(String.format(Locale.ROOT, "%s%.1f,%.1f ", i == 0 ? "M" : "L", x(mbps), y(e.value())));
        }
        add("<path class=\"fit-band\" d=\"%s%sZ\" fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\"/>", upper, lower, colour);
        add("<path class=\"fit-line\" data-message-bytes=\"%d\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>", size, line, colour);
    }

    private void reference(double millicoresPerMBps, String name) {
        double end = Math.min(xMax, yMax / millicoresPerMBps);
        add("<line class=\"reference %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#57606a\" stroke-dasharray=\"6 4\"/>",
                name, x(0), y(0), x(end), y(end * millicoresPerMBps));
        // Beside the line's end, left of it when there is room, right of it when the line ends near the axis; the
        // steeper reference's label sits lower so the two never overlap.
        boolean roomLeft = x(end) - 160 > LEFT;
        double labelY = y(end * millicoresPerMBps) + (millicoresPerMBps > PublishedRule.MEASURED_MC_PER_MBPS ? 26 : 12);
        add("<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#57606a\" text-anchor=\"%s\">Kroxylicious %.0f mc per MB/s</text>",
                roomLeft ? x(end) - 6 : x(end) + 6, labelY, roomLeft ? "end" : "start", millicoresPerMBps);
    }

    private void axes() {
        add("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#d0d7de\"/>", LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        for (int i = 0; i <= 5; i++) {
            double xv = xMax * i / 5;
            double yv = yMax * i / 5;
            add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eaeef2\"/>", x(xv), TOP, x(xv), HEIGHT - BOTTOM);
            add("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>", LEFT, y(yv), WIDTH - RIGHT, y(yv));
            add("<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>", x(xv), HEIGHT - BOTTOM + 16, tick(xv));
            add("<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>", LEFT - 6, y(yv) + 4, tick(yv));
        }
        add("<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">total traffic through the proxy, MB/s (produced + consumed)</text>",
                LEFT + (WIDTH - LEFT - RIGHT) / 2, HEIGHT - 22);
        add("<text transform=\"rotate(-90)\" x=\"%d\" y=\"16\" font-size=\"12\" text-anchor=\"middle\">proxy CPU, millicores</text>",
                -(TOP + (HEIGHT - TOP - BOTTOM) / 2));
    }

    private void legend(boolean fit, List<Integer> sizes) {
        int lx = LEFT + 12;
        int ly = HEIGHT - 8;
        add("<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">healthy run</text>", lx, ly - 4, SIZE_COLOURS[0], lx + 8, ly);
        add("<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"none\" stroke=\"#cf222e\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">saturated run</text>",
                lx + 100, ly - 4, lx + 108, ly);
        if (fit) {
            StringBuilder label = new StringBuilder("fit and 95 % band");
            if (sizes.size() > 1) {
                label.append(" (").append(String.join(", ", sizes.stream().map(s -> s + " B").toList())).append(")");
            }
            add("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>",
                    lx + 210, ly - 4, lx + 230, ly - 4, SIZE_COLOURS[0], lx + 236, ly, Html.escape(label.toString()));
        }
    }

    private double x(double mbps) {
        return LEFT + mbps / xMax * (WIDTH - LEFT - RIGHT);
    }

    private double y(double millicores) {
        return HEIGHT - BOTTOM - millicores / yMax * (HEIGHT - TOP - BOTTOM);
    }

    static String tick(double value) {
        return value >= 10 || value == 0 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.1f", value);
    }

    private static String id(ScenarioSizing scenario) {
        return id(scenario.scenario());
    }

    /** A scenario's name made safe for an element id or a file name. */
    static String id(String scenario) {
        return scenario.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    /** The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten at or above the value: round axis ends. */
    static double nice(double value) {
        if (!(value > 0)) {
            return 1;
        }
        // StrictMath: the same axis on every JVM and CPU, since committed charts are compared byte for byte.
        double power = StrictMath.pow(10, StrictMath.floor(StrictMath.log10(value)));
        for (double step : new double[] { 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 }) {
            if (step * power >= value) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private void add(String format, Object... args) {
        svg.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}
