package io.sluice.filter.encryption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/** Runs {@link AesGcmProvidersBenchmark} with JMH when {@code -Dsluice.bench=true}; a measurement, not a test. */
class AesGcmProvidersBenchmarkTest {

    @Test
    @EnabledIfSystemProperty(named = "sluice.bench", matches = "true")
    void compareJceAndBouncyCastle() throws Exception {
        new Runner(new OptionsBuilder()
                .include(AesGcmProvidersBenchmark.class.getSimpleName())
                .forks(1)
                .jvmArgs("-Xmx256m")
                .warmupIterations(3).warmupTime(TimeValue.seconds(1))
                .measurementIterations(5).measurementTime(TimeValue.seconds(1))
                .resultFormat(ResultFormatType.TEXT)
                .build()).run();
    }
}
