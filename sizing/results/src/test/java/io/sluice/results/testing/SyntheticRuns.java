package io.sluice.results.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;

import io.sluice.results.OmbResultJson;
import io.sluice.results.ResultFiles;
import io.sluice.results.RunRecord;
import io.sluice.results.Workload;

/**
 * Writes result sets as the benchmarks do (through the proxy module's own writer), with traffic and proxy CPU
 * chosen by the test: what a sizing reads back must be what was written.
 */
public final class SyntheticRuns {

    private static final long START = 1_700_000_000_000L;

    private SyntheticRuns() {
    }

    /**
     * One run of {@code seconds} at {@code produceRate} msg/s, achieving {@code achieved} of it, with the proxy
     * using {@code millicores} throughout (samples every second).
     */
    public static Path write(Path out, String target, String workloadName, int messageBytes, double produceRate, double achieved,
                             double millicores, long rssBytes) throws IOException {
        return write(out, target, workloadName, messageBytes, produceRate, achieved, millicores, rssBytes, null);
    }

    /** As {@link #write(Path, String, String, int, double, double, double, long)}, the proxy having answered these requests per second. */
    public static Path writeWithRequests(Path out, String target, String workloadName, int messageBytes, double produceRate,
                                         double millicores, double produceRequestsPerSecond, double fetchRequestsPerSecond) throws IOException {
        // Metadata and the like come on top of Produce and Fetch; the sizing does not count them.
        RunRecord.Requests requests = RunRecord.Requests.over(60, Math.round(produceRequestsPerSecond * 60), Math.round(fetchRequestsPerSecond * 60),
                Math.round((produceRequestsPerSecond + fetchRequestsPerSecond) * 60) + 120);
        return write(out, target, workloadName, messageBytes, produceRate, 1.0, millicores, 250L << 20, requests);
    }

    private static Path write(Path out, String target, String workloadName, int messageBytes, double produceRate, double achieved,
                              double millicores, long rssBytes, RunRecord.Requests requests) throws IOException {
        int seconds = 60;
        Workload workload = new Workload(workloadName, 1, 1, messageBytes, null, 1, 1, 1, produceRate, 0, 1, 0.25);
        List<OmbResultJson.Interval> intervals = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            double rate = produceRate * achieved;
            intervals.add(new OmbResultJson.Interval(rate, 0, rate, 10, latency(3_000), latency(100), latency(5_000)));
        }
        List<RunRecord.Sample> samples = new ArrayList<>();
        for (int s = -15; s <= seconds + 1; s++) {
            // millicores = CPU-ms per second: cumulative CPU-ns grows by millicores × 10^6 each second.
            samples.add(new RunRecord.Sample(START + s * 1000L, (long) ((s + 15) * millicores * 1e6), rssBytes));
        }
        RunRecord.Proxy proxy = target.equals("direct") ? null
                : new RunRecord.Proxy(4242, "/proc/4242/stat (utime+stime)", null, List.of("-Xmx512m"), "virtualClusters: []", samples,
                        new RunRecord.Gc(3, 0.01, 50 << 20), requests);
        RunRecord run = new RunRecord(RunRecord.TOOL_BENCH, "test", target, workload, produceRate * messageBytes / 1e6, 15, seconds,
                START, START + seconds * 1000L, new RunRecord.Machine(2, "test CPU", 1L << 34, "Linux", "synthetic", 1.0), proxy, Map.of("sluice", "test"));
        Histogram latency = latency(3_000);
        return ResultFiles.write(out, run, OmbResultJson.of(workload, "synthetic " + target, intervals, latency, latency(100), latency(5_000)));
    }

    private static Histogram latency(long micros) {
        Histogram h = new Histogram(3_600_000_000L, 3);
        h.recordValue(micros);
        return h;
    }
}
