package io.sluice.app.cli;

import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.proxy.EncryptionBench;

/**
 * {@code sluice bench encryption}: one broker, two proxies in their own JVMs (passthrough, and
 * RecordEncryption on every topic with the in-process KMS), the same load through each, alternating, in
 * one run. Reports the throughput ratio and each proxy's CPU per MB of total traffic.
 */
@Command(name = "encryption", description = "A passthrough proxy against a RecordEncryption proxy (in-process KMS), the same load"
        + " through each, alternating, in one run: throughput ratio and each proxy's CPU per MB.")
public final class BenchEncryptionCommand implements Callable<Integer> {

    @Mixin
    LoadOptions load;

    @Option(names = "--latency-seconds", paramLabel = "S", defaultValue = "5", description = "Length of the latency phase (default: ${DEFAULT-VALUE}).")
    int latencySeconds;

    @Override
    public Integer call() throws Exception {
        return EncryptionBench.run(LoadSettings.of(load, latencySeconds), Main.class.getName());
    }
}
