package io.sluice.sizing.report;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import io.sluice.sizing.bridge.BridgePoint;

/**
 * A bridge scenario's measurements as an SVG: delivery latency (mean and p99, log scale: they span milliseconds to
 * seconds) above the bridge's CPU, both against connections. Points sent the same messages per second per connection
 * form a series, joined by lines, so a reader sees what connections cost at one load shape and what a busier shape
 * adds. Saturated points are hollow red. Elements carry classes ({@code point latency-mean}, {@code point
 * latency-p99}, {@code point cpu}, {@code saturated}) so the chart can be checked by a machine as well as read.
 * Like {@link SvgChart}, the text depends only on the points (fixed decimals, {@link Locale#ROOT}, no time of day).
 */
public final class BridgeChart {

    private static final int WIDTH = 760;
    private static final int HEIGHT = 540;
    private static final int LEFT = 72;
    private static final int RIGHT = 24;
    private static final int LATENCY_TOP = 56;
    private static final int LATENCY_BOTTOM = 266;
    private static final int CPU_TOP = 300;
    private static final int CPU_BOTTOM = 490;
    private static final String[] SERIES_COLOURS = { "#1f6feb", "#8250df", "#1a7f37", "#bf8700", "#57606a" };
    private static final String SATURATED = "#cf222e";

    private final StringBuilder svg = new StringBuilder();
    private final double xMax;
    private final double latencyMinLog;
    private final double latencyMaxLog;
    private final double cpuMax;

    private BridgeChart(double xMax, double latencyMinLog, double latencyMaxLog, double cpuMax) {
        this.xMax = xMax;
        this.latencyMinLog = latencyMinLog;
        this.latencyMaxLog = latencyMaxLog;
        this.cpuMax = cpuMax;
    }

    /** The name of a scenario's chart file in the report directory, e.g. {@code bridge-chart-fanout-512b.svg}. */
    public static String fileName(String scenario) {
        return "bridge-chart-" + SvgChart.id(scenario) + ".svg";
    }

    /** The chart of one scenario's points (saturated ones included); empty when there are none. */
    public static Optional<String> of(String scenario, List<BridgePoint> points) {
        if (points.isEmpty()) {
            return Optional.empty();
        }
        double xMax = SvgChart.nice(points.stream().mapToLong(BridgePoint::connections).max().getAsLong() * 1.1);
        List<Double> latencies = points.stream().flatMap(p -> p.deliveryLatencyMeanMs().stream()).toList();
        List<Double> p99s = points.stream().flatMap(p -> p.deliveryLatencyP99Ms().stream()).toList();
        double low = min(latencies, p99s);
        double high = max(latencies, p99s);
        // Whole decades, at least one: 1, 10, 100 ms ... as tick marks.
        double minLog = StrictMath.floor(StrictMath.log10(low));
        double maxLog = Math.max(minLog + 1, StrictMath.ceil(StrictMath.log10(high)));
        double cpuMax = SvgChart.nice(points.stream().mapToDouble(BridgePoint::cpuMillicores).max().getAsDouble() * 1.1);
        BridgeChart chart = new BridgeChart(xMax, minLog, maxLog, cpuMax);
        chart.draw(scenario, points, !latencies.isEmpty() || !p99s.isEmpty());
        return Optional.of(chart.svg.toString());
    }

    private void draw(String scenario, List<BridgePoint> points, boolean hasLatency) {
        add("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bridge-chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\""
                + " font-family=\"sans-serif\" aria-label=\"%s: bridge delivery latency and CPU against connections\">", WIDTH, HEIGHT, WIDTH, HEIGHT,
                Html.escape(scenario));
        add("<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>", WIDTH, HEIGHT);
        Map<Long, List<BridgePoint>> series = series(points);
        legend(series, points.stream().anyMatch(BridgePoint::saturated));
        latencyAxes(hasLatency);
        cpuAxes();
        int colour = 0;
        for (List<BridgePoint> s : series.values()) {
            String stroke = SERIES_COLOURS[colour++ % SERIES_COLOURS.length];
            line(s, p -> p.deliveryLatencyMeanMs().map(this::yLatency), stroke, "");
            line(s, p -> p.deliveryLatencyP99Ms().map(this::yLatency), stroke, " stroke-dasharray=\"5 4\"");
            line(s, p -> Optional.of(yCpu(p.cpuMillicores())), stroke, "");
            for (BridgePoint p : s) {
                String fill = p.saturated() ? "none" : stroke;
                String edge = p.saturated() ? SATURATED : stroke;
                String state = p.saturated() ? " saturated" : "";
                String title = Html.escape(title(p));
                p.deliveryLatencyMeanMs().ifPresent(ms -> add("<circle class=\"point latency-mean%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\""
                        + " stroke=\"%s\" stroke-width=\"2\"><title>%s</title></circle>", state, x(p.connections()), yLatency(ms), fill, edge, title));
                p.deliveryLatencyP99Ms().ifPresent(ms -> add("<rect class=\"point latency-p99%s\" x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\""
                        + " fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"><title>%s</title></rect>", state, x(p.connections()) - 4.5,
                        yLatency(ms) - 4.5, fill, edge, title));
                add("<circle class=\"point cpu%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"><title>%s</title></circle>",
                        state, x(p.connections()), yCpu(p.cpuMillicores()), fill, edge, title);
            }
        }
        add("<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">WebSocket connections</text>", LEFT + (WIDTH - LEFT - RIGHT) / 2,
                CPU_BOTTOM + 36);
        add("</svg>");
    }

    /** Points grouped by messages per second per connection (to the hundredth), idle first, each by connections. */
    private static Map<Long, List<BridgePoint>> series(List<BridgePoint> points) {
        Map<Long, List<BridgePoint>> series = new LinkedHashMap<>();
        points.stream().sorted(Comparator.comparingLong(BridgeChart::rateKey).thenComparingLong(BridgePoint::connections)
                        .thenComparingDouble(BridgePoint::deliveredMessagesPerSecond))
                .forEach(p -> series.computeIfAbsent(rateKey(p), k -> new ArrayList<>()).add(p));
        return series;
    }

    private static long rateKey(BridgePoint p) {
        return Math.round(p.targetMessagesPerConnection() * 100);
    }

    private static String rate(long key) {
        return key == 0 ? "idle connections" : BigDecimal.valueOf(key, 2).stripTrailingZeros().toPlainString() + " msg/s per connection";
    }

    private static String title(BridgePoint p) {
        StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "%,d connections, %s: %,.0f msg/s delivered, %.0f mc", p.connections(),
                rate(rateKey(p)), p.deliveredMessagesPerSecond(), p.cpuMillicores()));
        p.deliveryLatencyMeanMs().ifPresent(ms -> t.append(String.format(Locale.ROOT, ", latency mean %.1f ms", ms)));
        p.deliveryLatencyP99Ms().ifPresent(ms -> t.append(String.format(Locale.ROOT, ", p99 %.1f ms", ms)));
        if (p.saturated()) {
            t.append("; saturated: ").append(String.join("; ", p.reasons()));
        }
        return t.toString();
    }

    private void line(List<BridgePoint> series, Function<BridgePoint, Optional<Double>> y, String stroke, String style) {
        StringBuilder d = new StringBuilder();
        int n = 0;
        for (BridgePoint p : series) {
            Optional<Double> value = y.apply(p);
            if (value.isPresent()) {
                d.append(String.format(Locale.ROOT, "%s%.1f,%.1f ", n++ == 0 ? "M" : "L", x(p.connections()), value.get()));
            }
        }
        if (n > 1) {
            add("<path class=\"series\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s/>", d.toString().strip(), stroke, style);
        }
    }

    private void legend(Map<Long, List<BridgePoint>> series, boolean anySaturated) {
        int lx = LEFT;
        int colour = 0;
        for (long key : series.keySet()) {
            String label = rate(key);
            add("<rect x=\"%d\" y=\"12\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"22\" font-size=\"11\">%s</text>", lx,
                    SERIES_COLOURS[colour++ % SERIES_COLOURS.length], lx + 16, Html.escape(label));
            lx += 24 + 6 * label.length();
        }
        add("<circle cx=\"%d\" cy=\"38\" r=\"4\" fill=\"#57606a\"/><text x=\"%d\" y=\"42\" font-size=\"11\">latency mean</text>", LEFT + 4, LEFT + 12);
        add("<rect x=\"%d\" y=\"34\" width=\"8\" height=\"8\" fill=\"#57606a\"/><text x=\"%d\" y=\"42\" font-size=\"11\">latency p99 (dashed)</text>",
                LEFT + 100, LEFT + 112);
        if (anySaturated) {
            add("<circle cx=\"%d\" cy=\"38\" r=\"4\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/><text x=\"%d\" y=\"42\" font-size=\"11\">saturated</text>",
                    LEFT + 244, SATURATED, LEFT + 252);
        }
    }

    private void latencyAxes(boolean hasLatency) {
        frame(LATENCY_TOP, LATENCY_BOTTOM);
        xGrid(LATENCY_TOP, LATENCY_BOTTOM, false);
        for (double decade = latencyMinLog; decade <= latencyMaxLog; decade++) {
            double ms = StrictMath.pow(10, decade);
            add("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>", LEFT, yLatency(ms), WIDTH - RIGHT, yLatency(ms));
            add("<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>", LEFT - 6, yLatency(ms) + 4,
                    ms >= 1 ? String.format(Locale.ROOT, "%,.0f", ms) : BigDecimal.valueOf(ms).stripTrailingZeros().toPlainString());
        }
        yTitle(LATENCY_TOP, LATENCY_BOTTOM, hasLatency ? "delivery latency, ms (log)" : "delivery latency: not recorded");
    }

    private void cpuAxes() {
        frame(CPU_TOP, CPU_BOTTOM);
        xGrid(CPU_TOP, CPU_BOTTOM, true);
        for (int i = 0; i <= 4; i++) {
            double mc = cpuMax * i / 4;
            add("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eaeef2\"/>", LEFT, yCpu(mc), WIDTH - RIGHT, yCpu(mc));
            add("<text x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>", LEFT - 6, yCpu(mc) + 4, SvgChart.tick(mc));
        }
        yTitle(CPU_TOP, CPU_BOTTOM, "bridge CPU, millicores");
    }

    private void frame(int top, int bottom) {
        add("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#d0d7de\"/>", LEFT, top, WIDTH - LEFT - RIGHT, bottom - top);
    }

    private void xGrid(int top, int bottom, boolean labels) {
        for (int i = 0; i <= 5; i++) {
            double connections = xMax * i / 5;
            add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eaeef2\"/>", x(connections), top, x(connections), bottom);
            if (labels) {
                add("<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s</text>", x(connections), bottom + 16, SvgChart.tick(connections));
            }
        }
    }

    private void yTitle(int top, int bottom, String title) {
        add("<text transform=\"rotate(-90)\" x=\"%d\" y=\"16\" font-size=\"12\" text-anchor=\"middle\">%s</text>", -(top + bottom) / 2, title);
    }

    private double x(double connections) {
        return LEFT + connections / xMax * (WIDTH - LEFT - RIGHT);
    }

    private double yLatency(double ms) {
        double log = StrictMath.log10(Math.max(ms, StrictMath.pow(10, latencyMinLog)));
        return LATENCY_BOTTOM - (log - latencyMinLog) / (latencyMaxLog - latencyMinLog) * (LATENCY_BOTTOM - LATENCY_TOP);
    }

    private double yCpu(double millicores) {
        return CPU_BOTTOM - millicores / cpuMax * (CPU_BOTTOM - CPU_TOP);
    }

    private static double min(List<Double> a, List<Double> b) {
        return Stream.concat(a.stream(), b.stream()).mapToDouble(Double::doubleValue).filter(v -> v > 0).min().orElse(1);
    }

    private static double max(List<Double> a, List<Double> b) {
        return Stream.concat(a.stream(), b.stream()).mapToDouble(Double::doubleValue).max().orElse(10);
    }

    private void add(String format, Object... args) {
        svg.append(String.format(Locale.ROOT, format, args)).append('\n');
    }
}
