package io.sluice.proxy.server;

import java.lang.ref.WeakReference;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.proxy.config.ManagementConfig;
import io.sluice.proxy.config.ProxyConfig;

import static org.assertj.core.api.Assertions.assertThat;

/** What a stopped server leaves behind in the JVM, for applications that start and stop proxies in one process. */
class ProxyServerLifecycleTest {

    @Test
    void aStoppedServerLeavesNoGcListenerHoldingItsMeters() throws Exception {
        ProxyConfig config = new ProxyConfig(null, new ManagementConfig(false, null, 0), List.of(), List.of(), List.of());
        WeakReference<MeterRegistry> registry;
        try (ProxyServer server = ProxyServer.start(config)) {
            registry = new WeakReference<>(server.meterRegistry());
        }
        // The JVM metrics listen to GC notifications of the platform's GarbageCollectorMXBeans, which live as long as
        // the JVM: a listener left registered keeps the stopped server's registry, and every meter in it, reachable.
        for (int i = 0; i < 50 && registry.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(registry.get()).as("the stopped server's meter registry, collected").isNull();
    }
}
