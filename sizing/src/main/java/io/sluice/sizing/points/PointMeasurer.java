package io.sluice.sizing.points;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import io.sluice.results.RunRecord;
import io.sluice.results.read.MeasuredRun;
import io.sluice.results.read.RunInfo;

/** Turns a measured run into a {@link TrafficPoint}: its traffic, health, and the proxy's CPU over the window. */
public final class PointMeasurer {

    /** Below this share of the window covered by samples, an average CPU would describe some other period. */
    static final double MIN_WINDOW_COVERAGE = 0.5;

    private PointMeasurer() {
    }

    public static TrafficPoint measure(MeasuredRun run) {
        List<String> reasons = SaturationCheck.reasons(run.workload(), run.result());
        Optional<Double> cpu = Optional.empty();
        Optional<String> missing;
        OptionalLong rss = OptionalLong.empty();
        if (run.run().isEmpty()) {
            missing = Optional.of("no run.json beside the result");
        } else if (!run.run().get().hasProxy()) {
            missing = Optional.of("no proxy in this target");
        } else {
            RunInfo info = run.run().get();
            List<RunRecord.Sample> window = info.samples().stream()
                    .filter(s -> s.epochMs() >= info.measuredFromMs() && s.epochMs() <= info.measuredToMs())
                    .toList();
            long span = window.size() < 2 ? 0 : window.get(window.size() - 1).epochMs() - window.get(0).epochMs();
            if (span < MIN_WINDOW_COVERAGE * (info.measuredToMs() - info.measuredFromMs())) {
                missing = Optional.of(String.format("CPU samples cover %d of the %d ms measured", span, info.measuredToMs() - info.measuredFromMs()));
            } else {
                RunRecord.Sample first = window.get(0);
                RunRecord.Sample last = window.get(window.size() - 1);
                // CPU-nanoseconds per wall-millisecond / 1000 = cores; x 1000 = millicores.
                cpu = Optional.of((last.cpuNanos() - first.cpuNanos()) / (double) span / 1000.0);
                missing = Optional.empty();
                rss = OptionalLong.of(window.stream().mapToLong(RunRecord.Sample::rssBytes).max().orElse(0));
            }
        }
        return new TrafficPoint(run, run.workload().producerRate(), run.result().meanPublishRate(), run.result().meanConsumeRate(),
                cpu, missing, rss, !reasons.isEmpty(), reasons, run.run().flatMap(RunInfo::requests));
    }
}
