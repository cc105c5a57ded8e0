package io.sluice.proxy.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import io.sluice.config.ConfigException;
import io.sluice.config.HostPort;
import io.sluice.config.ManagementConfig;

/** The examples shipped in config/examples must keep loading. */
class ExampleConfigTest {

    private static final Path PASSTHROUGH = Path.of("../../config/examples/passthrough.yaml");
    private static final Path SNI = Path.of("../../config/examples/sni.yaml");

    @TempDir
    Path dir;

    @Test
    void passthroughProxiesTheGivenClusterOnTheDefaultPorts() throws Exception {
        ProxyConfig config = ProxyConfigLoader.parse(Files.readString(PASSTHROUGH), Map.of("KAFKA_BOOTSTRAP", "kafka-1:9092,kafka-2:9092"));

        assertThat(config.management()).isEqualTo(new ManagementConfig(true, "127.0.0.1", 9190));
        assertThat(config.virtualClusters()).singleElement().satisfies(cluster -> {
            assertThat(cluster.targetCluster().bootstrapServersString()).isEqualTo("kafka-1:9092,kafka-2:9092");
            assertThat(cluster.targetCluster().tls()).isNull();
            assertThat(config.filtersFor(cluster)).isEmpty();
            PortIdentifiesNodeConfig ports = cluster.gateways().get(0).portIdentifiesNode();
            assertThat(ports.bootstrapAddress()).isEqualTo(new HostPort("127.0.0.1", 9192));
            assertThat(ports.portForNode(0)).isEqualTo(OptionalInt.of(9193));
            assertThat(cluster.gateways().get(0).tls()).isNull();
        });
    }

    @Test
    void passthroughBrokerPortsFollowAnOverriddenBootstrap() throws Exception {
        ProxyConfig config = ProxyConfigLoader.parse(Files.readString(PASSTHROUGH),
                Map.of("KAFKA_BOOTSTRAP", "localhost:9092", "SLUICE_BOOTSTRAP", "proxy.internal:29092"));

        PortIdentifiesNodeConfig ports = config.virtualClusters().get(0).gateways().get(0).portIdentifiesNode();
        assertThat(ports.bootstrapAddress()).isEqualTo(new HostPort("proxy.internal", 29092));
        assertThat(ports.advertisedAddress(1)).contains(new HostPort("proxy.internal", 29094));
    }

    @Test
    void sniServesEveryBrokerOnOnePortByName() throws Exception {
        String cert = Files.writeString(dir.resolve("tls.crt"), "x").toString();
        String key = Files.writeString(dir.resolve("tls.key"), "x").toString();
        ProxyConfig config = ProxyConfigLoader.parse(Files.readString(SNI), Map.of("KAFKA_BOOTSTRAP", "kafka-1:9092",
                "SLUICE_TLS_CERT", cert, "SLUICE_TLS_KEY", key, "SLUICE_SNI_DOMAIN", "kafka.acme.test"));

        GatewayConfig gateway = config.virtualClusters().get(0).gateways().get(0);
        assertThat(gateway.portIdentifiesNode()).isNull();
        SniHostIdentifiesNodeConfig sni = gateway.sniHostIdentifiesNode();
        assertThat(sni.listenAddress()).isEqualTo(new HostPort("0.0.0.0", 9092));
        assertThat(sni.bootstrapHost()).isEqualTo("bootstrap.kafka.acme.test");
        assertThat(HostPattern.parse(sni.brokerHostPattern()).host(2)).isEqualTo("broker-2.kafka.acme.test");
        assertThat(sni.effectiveAdvertisedPort()).isEqualTo(9092);
        assertThat(gateway.tls().key().certificateFile()).isEqualTo(cert);
        assertThatThrownBy(() -> ProxyConfigLoader.parse(Files.readString(SNI), Map.of("KAFKA_BOOTSTRAP", "kafka-1:9092")))
                .hasMessageContaining("SLUICE_TLS_CERT is not set");
    }

    @Test
    void passthroughNeedsKafkaBootstrap() {
        assertThatThrownBy(() -> ProxyConfigLoader.parse(Files.readString(PASSTHROUGH), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("virtualClusters[0].targetCluster.bootstrapServers: environment variable KAFKA_BOOTSTRAP is not set");
    }
}
