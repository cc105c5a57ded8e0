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
