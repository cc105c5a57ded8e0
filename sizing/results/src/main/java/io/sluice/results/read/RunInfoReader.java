package io.sluice.results.read;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.results.RunRecord;

/** Reads the {@code run.json} that {@code sluice bench} and {@code sluice omb} write beside each result. */
public final class RunInfoReader {

    private RunInfoReader() {
    }

    public static RunInfo read(Path file) {
        JsonNode root = OmbResultReader.parse(file);
        JsonFields f = new JsonFields(file);
        long from = f.whole(root, "", "measuredFromMs");
        long to = f.whole(root, "", "measuredToMs");
        if (to <= from) {
            throw f.fail("measuredToMs", "must be after measuredFromMs (" + from + "), not " + to);
        }
        int cores = f.optional(root, "machine").map(m -> (int) f.whole(m, "machine", "cores")).orElse(0);
        Optional<Double> load = f.optional(root, "machine").flatMap(m -> f.optionalNumber(m, "machine", "loadAverage"));
        Optional<JsonNode> proxy = f.optional(root, "proxy");
        List<RunRecord.Sample> samples = new ArrayList<>();
        List<String> jvmOptions = new ArrayList<>();
        Optional<RunRecord.Gc> gc = Optional.empty();
        Optional<String> cpuSource = Optional.empty();
        Optional<Double> limit = Optional.empty();
        Optional<RunRecord.Requests> requests = Optional.empty();
        if (proxy.isPresent()) {
            JsonNode p = proxy.get();
            cpuSource = Optional.of(f.text(p, "proxy", "cpuSource"));
            limit = f.optionalNumber(p, "proxy", "cpuLimitCores");
            JsonNode array = f.array(p, "proxy", "samples");
            for (int i = 0; i < array.size(); i++) {
                String at = "proxy.samples[" + i + "]";
                JsonNode s = array.get(i);
                samples.add(new RunRecord.Sample(f.whole(s, at, "epochMs"), f.whole(s, at, "cpuNanos"), f.whole(s, at, "rssBytes")));
            }
            f.optional(p, "jvmOptions").ifPresent(options -> options.forEach(o -> jvmOptions.add(o.asText())));
            gc = f.optional(p, "gc").map(g -> new RunRecord.Gc(f.whole(g, "proxy.gc", "collections"),
                    f.number(g, "proxy.gc", "pauseSeconds"), f.whole(g, "proxy.gc", "heapUsedBytes")));
            // Counts are read and the rates recomputed from them: one source of truth if a file was edited by hand.
            requests = f.optional(p, "requests").map(r -> {
                double seconds = f.number(r, "proxy.requests", "seconds");
                if (!(seconds > 0)) {
                    throw f.fail("proxy.requests.seconds", "must be positive, not " + seconds);
                }
                return RunRecord.Requests.over(seconds, f.whole(r, "proxy.requests", "produce"), f.whole(r, "proxy.requests", "fetch"),
                        f.whole(r, "proxy.requests", "total"));
            });
        }
        return new RunInfo(f.text(root, "", "tool"), f.text(root, "", "target"),
                WorkloadParser.parse(f.required(root, "", "workload"), f, "workload"),
                from, to, cores, load, limit, cpuSource, jvmOptions, samples, gc, requests);
    }
}
