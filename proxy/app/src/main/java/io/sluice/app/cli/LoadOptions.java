package io.sluice.app.cli;


import picocli.CommandLine.Option;

/** The load both one-run proxy benchmarks ({@code bench proxy}, {@code bench encryption}) put through each target.
 * Only options: {@link LoadSettings} turns them into the harness's settings, which live in {@code lib-extra/}. */
final class LoadOptions {

    @Option(names = "--records", paramLabel = "N", defaultValue = "200000", description = "Records per round and target (default: ${DEFAULT-VALUE}).")
    int records;

    @Option(names = "--record-bytes", paramLabel = "BYTES", defaultValue = "1024", description = "Record value size (default: ${DEFAULT-VALUE}).")
    int recordBytes;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3", description = "Rounds; the summary shows medians (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--latency-rate", paramLabel = "MSGS_S", defaultValue = "1000",
            description = "Messages per second in the latency phase (default: ${DEFAULT-VALUE}).")
    int latencyRate;
}
