package io.sluice.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JvmMetricsTest {

    @Test
    void jvmAndProcessMetersAreBound() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (AutoCloseable gcListeners = JvmMetrics.bind(registry)) {
            assertThat(registry.scrape())
                    .contains("jvm_memory_used_bytes")
                    .contains("jvm_threads_live_threads")
                    .contains("jvm_gc_")
                    .contains("process_uptime_seconds")
                    .contains("process_files_open_files")
                    .contains("system_cpu_count")
                    .contains("sluice_build_info");
        } finally {
            registry.close();
        }
    }
}
