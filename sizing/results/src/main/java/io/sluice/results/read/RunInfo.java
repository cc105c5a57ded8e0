package io.sluice.results.read;

import java.util.List;
import java.util.Optional;

import io.sluice.results.RunRecord;
import io.sluice.results.Workload;

/**
 * What a sizing needs from a {@code run.json}: who produced the run, against what, when it was measured, and the
 * proxy's CPU and memory samples (empty for a run against the broker directly).
 *
 * @param loadAverage the machine's one-minute load average as the run ended, where recorded
 * @param requests    the requests the proxy answered in the measured window; absent in older records
 */
public record RunInfo(String tool,
                      String target,
                      Workload workload,
                      long measuredFromMs,
                      long measuredToMs,
                      int cores,
                      Optional<Double> loadAverage,
                      Optional<Double> cpuLimitCores,
                      Optional<String> cpuSource,
                      List<String> proxyJvmOptions,
                      List<RunRecord.Sample> samples,
                      Optional<RunRecord.Gc> gc,
                      Optional<RunRecord.Requests> requests) {

    public boolean hasProxy() {
        return cpuSource.isPresent();
    }
}
