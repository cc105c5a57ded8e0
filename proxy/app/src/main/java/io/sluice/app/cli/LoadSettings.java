package io.sluice.app.cli;


import java.time.Duration;

import io.sluice.bench.ProxyBenchmark;

/** {@link LoadOptions} as the benchmark harness's settings; apart from the options so picocli never sees the harness's types. */
final class LoadSettings {

    private LoadSettings() {
    }

    static ProxyBenchmark.Settings of(LoadOptions load, int latencySeconds) {
        return new ProxyBenchmark.Settings(load.records, load.recordBytes, load.rounds, load.latencyRate, Duration.ofSeconds(latencySeconds));
    }
}
