package io.sluice.proxy.server;

import java.io.UncheckedIOException;
import java.lang.ref.WeakReference;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.config.ConfigException;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.config.ManagementConfig;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.testkit.FreePorts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void aChainNamingAnUndefinedFilterInAConfigBuiltInCodeIsAConfigErrorNamingTheField() {
        // ConfigLoader validates references; a config built in code reaches the server unvalidated.
        ProxyConfig loaded = ProxyConfigLoader.parse("""
                management:
                  enabled: false
                virtualClusters:
                  - name: demo
                    targetCluster:
                      bootstrapServers: "127.0.0.1:1"
                    gateways:
                      - name: default
                        portIdentifiesNode:
                          bootstrapAddress: "127.0.0.1:%d"
                """.formatted(FreePorts.block(8)), Map.of());
        ProxyConfig config = new ProxyConfig(loaded.network(), loaded.management(), loaded.virtualClusters(), List.of(), List.of("missing"));

        assertThatThrownBy(() -> ProxyServer.start(config)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("defaultFilters: no filter definition named 'missing'");
    }

    @Test
    void aGatewayPortInUseFailsNamingThePortAndTheField() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            ProxyConfig config = ProxyConfigLoader.parse("""
                    management:
                      enabled: false
                    virtualClusters:
                      - name: demo
                        targetCluster:
                          bootstrapServers: "127.0.0.1:1"
                        gateways:
                          - name: free
                            portIdentifiesNode:
                              bootstrapAddress: "127.0.0.1:%d"
                          - name: taken
                            portIdentifiesNode:
                              bootstrapAddress: "127.0.0.1:%d"
                              nodeStartPort: %d
                    """.formatted(FreePorts.block(8), port, FreePorts.block(8)), Map.of());

            assertThatThrownBy(() -> ProxyServer.start(config))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageStartingWith("cannot bind virtualClusters[0].gateways[1].portIdentifiesNode.bootstrapAddress 127.0.0.1:" + port + ": ")
                    .hasMessageContaining("in use")
                    .hasCauseInstanceOf(IOException.class);
        }
    }
}
