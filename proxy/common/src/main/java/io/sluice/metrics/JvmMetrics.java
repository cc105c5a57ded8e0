package io.sluice.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

import io.sluice.build.BuildInfo;

/** The process meters every Sluice server publishes on {@code /metrics}, so dashboards read the proxy and the bridge alike. */
public final class JvmMetrics {

    private JvmMetrics() {
    }

    /**
     * Binds JVM and process meters, and {@code sluice_build_info}. The returned handle unregisters the GC notification
     * listeners; a server closes it when it stops.
     */
    public static AutoCloseable bind(MeterRegistry registry) {
        BuildInfo.current().register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // A proxy holds two sockets per client connection; running out of descriptors is its most likely resource failure.
        new FileDescriptorMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        return gc;
    }
}
