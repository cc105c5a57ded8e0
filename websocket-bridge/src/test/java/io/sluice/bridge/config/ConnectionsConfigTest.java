package io.sluice.bridge.config;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectionsConfigTest {

    private static final String BASE = "kafka:\n  bootstrapServers: b:9092\ntopics: a\n";

    @Test
    void defaultsApplyWhenTheSectionIsAbsent() {
        BridgeConfig config = BridgeConfigLoader.parse(BASE, Map.of());
        assertThat(config.connections()).isEqualTo(ConnectionsConfig.defaults());
        assertThat(config.connections().handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.outbound().maxSlowTime()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.outbound().slowCloseGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.connections().maxConnectionsPerSubject()).as("no limit").isZero();
    }

    @Test
    void everyBadLimitIsReportedWithItsField() {
        String yaml = BASE + """
                outbound:
                  maxSlowTime: 0s
                  slowCloseGrace: 0s
                connections:
                  handshakeTimeout: 0s
                  maxRequestLineBytes: 10
                  maxHeaderBytes: 10
                  maxConnections: 0
                  maxConnectionsPerIp: 0
                  maxHandshakes: 0
                  maxHandshakesPerIp: 0
                  connectionsPerSecondPerIp: 0
                  connectionBurstPerIp: 0
                  maxConnectionsPerSubject: -1
                  trustedProxies: [10.0.0.0/8, proxy.example, 10.0.0.0/33]
                  allowedOrigins: ["https://app.example", "https://app.example/page", "null"]
                """;
        assertThatThrownBy(() -> BridgeConfigLoader.parse(yaml, Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "outbound.maxSlowTime: must be longer than 0",
                        "outbound.slowCloseGrace: must be longer than 0",
                        "connections.handshakeTimeout: must be longer than 0",
                        "connections.maxRequestLineBytes: must be at least 256",
                        "connections.maxHeaderBytes: must be at least 1024",
                        "connections.maxConnections: must be at least 1",
                        "connections.maxConnectionsPerIp: must be at least 1",
                        "connections.maxHandshakes: must be at least 1",
                        "connections.maxHandshakesPerIp: must be at least 1",
                        "connections.connectionsPerSecondPerIp: must be greater than 0",
                        "connections.connectionBurstPerIp: must be at least 1",
                        "connections.maxConnectionsPerSubject: must be at least 0",
                        "connections.trustedProxies[1]: 'proxy.example' is not an IP address or CIDR block (e.g. 10.0.0.0/8)",
                        "connections.trustedProxies[2]: '10.0.0.0/33': the prefix length must be between 0 and 32",
                        "connections.allowedOrigins[1]: 'https://app.example/page' is not an origin (scheme://host[:port], no path)",
                        "connections.allowedOrigins[2]: 'null' is not an origin (scheme://host[:port], no path)"));
    }

    @Test
    void addressBlocksMatchByPrefixAndNeverResolveNames() throws Exception {
        AddressBlock ten = AddressBlock.parse("10.0.0.0/8");
        assertThat(ten.contains(InetAddress.getByName("10.200.3.4"))).isTrue();
        assertThat(ten.contains(InetAddress.getByName("11.0.0.1"))).isFalse();
        assertThat(ten.contains(InetAddress.getByName("::1"))).isFalse();
        AddressBlock odd = AddressBlock.parse("192.168.0.0/23");
        assertThat(odd.contains(InetAddress.getByName("192.168.1.255"))).isTrue();
        assertThat(odd.contains(InetAddress.getByName("192.168.2.0"))).isFalse();
        AddressBlock v6 = AddressBlock.parse("fd00::/8");
        assertThat(v6.contains(InetAddress.getByName("fd12:3456::1"))).isTrue();
        assertThat(AddressBlock.parse("127.0.0.4").contains(InetAddress.getByName("127.0.0.5"))).isFalse();
        assertThat(AddressBlock.literal("localhost")).isNull();
        assertThat(AddressBlock.literal("[2001:db8::1]")).isEqualTo(InetAddress.getByName("2001:db8::1"));
        assertThat(List.of("1.2.3", "999.1.1.1", "", "::g")).allSatisfy(t -> assertThat(AddressBlock.literal(t)).isNull());
    }
}
