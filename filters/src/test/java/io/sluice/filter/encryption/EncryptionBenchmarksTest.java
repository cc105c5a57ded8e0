package io.sluice.filter.encryption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs the encryption JMH benchmarks when {@code -Dsluice.bench=true}; measurements, not tests. */
class EncryptionBenchmarksTest {

    /** Decides the AES-GCM provider: see docs/performance.md. */
    @Test
    @EnabledIfSystemProperty(named = "sluice.bench", matches = "true")
    void compareAesGcmProviders() throws Exception {
        run(AesGcmProvidersBenchmark.class);
    }

    /** What encrypting and decrypting a partition costs beyond rebuilding its batches. */
    @Test
    @EnabledIfSystemProperty(named = "sluice.bench", matches = "true")
    void measurePartitionCrypto() throws Exception {
        run(PartitionCryptoBenchmark.class);
    }

    /**
     * The same operations as {@link PartitionCryptoBenchmark}, measured as this thread's CPU time per MiB rather than
     * wall time: on a machine other work keeps busy, wall time measures the scheduler, while CPU time moves only with
     * what the code does (and, less, with caches shared with the neighbours). Compare two builds by running each in
     * turn, several times: docs/encryption.md, "Cost of encryption".
     */
    @Test
    @EnabledIfSystemProperty(named = "sluice.bench", matches = "true")
    void measurePartitionCryptoCpuTime() throws Exception {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        for (String compression : new String[] { "none", "lz4" }) {
            PartitionCryptoBenchmark bench = new PartitionCryptoBenchmark();
            bench.recordBytes = 1024;
            bench.compression = compression;
            bench.fetched = "direct";
            bench.setUp();
            for (String operation : new String[] { "encrypt", "decrypt", "rebuildOnly" }) {
                double best = Double.MAX_VALUE;
                // Five rounds of 3 s, the first two warm-up; the least CPU per MiB is the one least disturbed.
                for (int round = 0; round < 5; round++) {
                    long end = System.nanoTime() + 3_000_000_000L;
                    long cpu = threads.getCurrentThreadCpuTime();
                    int ops = 0;
                    while (System.nanoTime() < end) {
                        switch (operation) {
                            case "encrypt" -> bench.encrypt();
                            case "decrypt" -> bench.decrypt();
                            default -> bench.rebuildOnly();
                        }
                        ops++;
                    }
                    if (round >= 2) {
                        best = Math.min(best, (threads.getCurrentThreadCpuTime() - cpu) / 1e6 / ops);
                    }
                }
                System.out.printf("partition crypto, CPU time: %-11s %-4s %.3f ms per MiB%n", operation, compression, best);
            }
        }
    }

    private static void run(Class<?> benchmark) throws Exception {
        new Runner(new OptionsBuilder()
                .include(benchmark.getSimpleName())
                // Two forks and longer iterations: with one fork of 1 s iterations the error on a 2-core VM was ±50 %.
                .forks(2)
                .jvmArgs("-Xmx256m")
                .warmupIterations(5).warmupTime(TimeValue.seconds(1))
                .measurementIterations(5).measurementTime(TimeValue.seconds(2))
                .resultFormat(ResultFormatType.TEXT)
                .build()).run();
    }
}
