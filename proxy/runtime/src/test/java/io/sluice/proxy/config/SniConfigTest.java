package io.sluice.proxy.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.config.ConfigException;
import io.sluice.config.HostPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code sniHostIdentifiesNode}: its host patterns, its fields' validation, and names shared on one port. */
class SniConfigTest {

    private static final String GW = "virtualClusters[0].gateways[0]";

    @TempDir
    Path dir;

    private String pem;

    @BeforeEach
    void files() throws Exception {
        pem = Files.writeString(dir.resolve("file.pem"), "x").toString();
    }

    @Test
    void aPatternNamesEachBrokerOnceInCanonicalDecimal() {
        HostPattern brokers = HostPattern.parse("Broker-$(nodeId).Kafka.Example.com");

        assertThat(brokers.host(7)).isEqualTo("broker-7.kafka.example.com");
        assertThat(brokers.nodeId("broker-7.kafka.example.com")).isEqualTo(OptionalInt.of(7));
        assertThat(brokers.nodeId("broker-0.kafka.example.com")).isEqualTo(OptionalInt.of(0));
        assertThat(brokers.nodeId("broker-2147483647.kafka.example.com")).isEqualTo(OptionalInt.of(Integer.MAX_VALUE));
        for (String notOne : List.of("broker-07.kafka.example.com", "broker-.kafka.example.com", "broker-2147483648.kafka.example.com",
                "broker-99999999999999999999.kafka.example.com", "broker-1x.kafka.example.com", "broker-1.kafka.example.com.evil",
                "xbroker-1.kafka.example.com", "broker--1.kafka.example.com", "bootstrap.kafka.example.com")) {
            assertThat(brokers.nodeId(notOne)).as(notOne).isEmpty();
        }
        assertThat(brokers.matches("broker-7.kafka.example.com")).isFalse();
        HostPattern bootstrap = HostPattern.parse("bootstrap.kafka.example.com");
        assertThat(bootstrap.matches("bootstrap.kafka.example.com")).isTrue();
        assertThat(bootstrap.nodeId("bootstrap.kafka.example.com")).isEmpty();
    }

    @Test
    void badPatternsSayWhy() {
        assertThatThrownBy(() -> HostPattern.parse("b-$(nodeId)-$(nodeId).x")).hasMessageContaining("more than once");
        assertThatThrownBy(() -> HostPattern.parse("b-$(node).x")).hasMessageContaining("only the $(nodeId) placeholder");
        assertThatThrownBy(() -> HostPattern.parse("b-$(NODEID).x")).hasMessageContaining("only the $(nodeId) placeholder");
        assertThatThrownBy(() -> HostPattern.parse("b_$(nodeId).x")).hasMessageContaining("is not a host name");
        assertThatThrownBy(() -> HostPattern.parse("b..x")).hasMessageContaining("is not a host name");
        assertThatThrownBy(() -> HostPattern.parse("b.x.")).hasMessageContaining("trailing dot");
        assertThatThrownBy(() -> HostPattern.parse("10.0.0.1")).hasMessageContaining("is an IP address");
        assertThatThrownBy(() -> HostPattern.parse("a".repeat(64) + ".x")).hasMessageContaining("label longer than 63");
        // 245 characters for node 0, fine, too long for the largest node id.
        String near = "a".repeat(60) + "." + "b".repeat(60) + "." + "c".repeat(60) + "." + "d".repeat(60) + ".$(nodeId)";
        assertThatThrownBy(() -> HostPattern.parse(near)).hasMessageContaining("longer than 253 characters for node id 2147483647");
    }

    @Test
    void overlapIsExact() {
        assertOverlap("broker-$(nodeId).a.example.com", "broker-$(nodeId).b.example.com", false);
        assertOverlap("broker-$(nodeId).a.example.com", "broker-$(nodeId).a.example.com", true);
        assertOverlap("broker-$(nodeId).example.com", "broker-1$(nodeId).example.com", true);   // broker-12
        assertOverlap("b$(nodeId).example.com", "b$(nodeId)1.example.com", true);             // b21
        assertOverlap("b$(nodeId).x.com", "b$(nodeId)x.x.com", false);
        assertOverlap("$(nodeId).x.com", "a$(nodeId).x.com", false);
        assertOverlap("broker-$(nodeId).kafka.example.com", "broker-3.kafka.example.com", true);
        assertOverlap("broker-$(nodeId).kafka.example.com", "broker-x.kafka.example.com", false);
        assertOverlap("bootstrap.kafka.example.com", "bootstrap.kafka.example.com", true);
        assertOverlap("bootstrap.kafka.example.com", "bootstrap.other.example.com", false);
        // A pattern whose digits run into a suffix of digits: a1b vs a$(nodeId)b, a$(nodeId)1b.
        assertOverlap("a$(nodeId)b", "a$(nodeId)1b", true);
        assertOverlap("a-$(nodeId)-b", "a-$(nodeId)b", false);
    }

    private static void assertOverlap(String a, String b, boolean expected) {
        assertThat(HostPattern.parse(a).overlaps(HostPattern.parse(b))).as(a + " / " + b).isEqualTo(expected);
        assertThat(HostPattern.parse(b).overlaps(HostPattern.parse(a))).as(b + " / " + a).isEqualTo(expected);
    }

    @Test
    void aValidSectionBindsWithTheListenPortAdvertisedByDefault() {
        ProxyConfig config = ProxyConfigLoader.parse(sni("demo", "0.0.0.0:9092", "bootstrap.kafka.example.com", "broker-$(nodeId).kafka.example.com", ""),
                Map.of());

        GatewayConfig gateway = config.virtualClusters().get(0).gateways().get(0);
        assertThat(gateway.portIdentifiesNode()).isNull();
        assertThat(gateway.listenAddress()).isEqualTo(new HostPort("0.0.0.0", 9092));
        assertThat(gateway.sniHostIdentifiesNode().effectiveAdvertisedPort()).isEqualTo(9092);
        SniHostIdentifiesNodeConfig lb = ProxyConfigLoader.parse(sni("demo", "0.0.0.0:9092", "b.x.com", "n-$(nodeId).x.com", "advertisedPort: 443"),
                Map.of()).virtualClusters().get(0).gateways().get(0).sniHostIdentifiesNode();
        assertThat(lb.effectiveAdvertisedPort()).isEqualTo(443);
    }

    @Test
    void eachBadFieldIsNamed() {
        String path = GW + ".sniHostIdentifiesNode.";
        assertThat(problems(sni("demo", "0.0.0.0:9092", "bootstrap.x.com", "broker.x.com", ""))).containsExactly(
                path + "brokerHostPattern: 'broker.x.com' must contain $(nodeId): every broker needs a name of its own");
        assertThat(problems(sni("demo", "0.0.0.0:9092", "b-$(nodeId).x.com", "n-$(nodeId).x.com", ""))).containsExactly(
                path + "bootstrapHost: 'b-$(nodeId).x.com' must not contain $(nodeId): it is the one name of the bootstrap (brokerHostPattern names the brokers)");
        assertThat(problems(sni("demo", "0.0.0.0:0", "b.x.com", "n-$(nodeId).x.com", "advertisedPort: 70000"))).containsExactly(
                path + "listenAddress: the port must be between 1 and 65535 (it is advertised to clients)",
                path + "advertisedPort: must be between 1 and 65535 (absent: the listen port)");
        assertThat(problems(sni("demo", "0.0.0.0:9092", "10.1.2.3", "n-$(nodeId).x_y.com", ""))).containsExactly(
                path + "bootstrapHost: '10.1.2.3' is an IP address: TLS clients send no server name for an address (RFC 6066)",
                path + "brokerHostPattern: 'n-$(nodeId).x_y.com' is not a host name (labels of letters, digits and '-' inside, separated by single dots)");
        String missing = sni("demo", "0.0.0.0:9092", "b.x.com", "n-$(nodeId).x.com", "")
                .replace("          listenAddress: \"0.0.0.0:9092\"\n", "").replace("          bootstrapHost: \"b.x.com\"\n", "");
        assertThat(problems(missing)).containsExactly(path + "listenAddress: is required", path + "bootstrapHost: is required");
    }

    @Test
    void sniNeedsTlsAndExcludesPortIdentifiesNode() {
        String noTls = sni("demo", "0.0.0.0:9092", "b.x.com", "n-$(nodeId).x.com", "").replaceAll("(?s)        tls:.*", "");
        assertThat(problems(noTls)).containsExactly(GW + ".tls: is required with sniHostIdentifiesNode: the server name that picks the broker "
                + "is part of the TLS handshake");

        String both = sni("demo", "0.0.0.0:9092", "b.x.com", "n-$(nodeId).x.com", "")
                .replace("        sniHostIdentifiesNode:", "        portIdentifiesNode: {bootstrapAddress: \"localhost:9192\"}\n        sniHostIdentifiesNode:");
        assertThat(problems(both)).containsExactly(GW + ".sniHostIdentifiesNode: not allowed together with portIdentifiesNode "
                + "(one scheme per gateway; add another gateway for the other)");
    }

    @Test
    void clustersShareAPortWithDistinctNamesOnly() {
        String distinct = "virtualClusters:\n"
                + item(sni("a", "0.0.0.0:9092", "bootstrap.a.example.com", "broker-$(nodeId).a.example.com", ""))
                + item(sni("b", "0.0.0.0:9092", "bootstrap.b.example.com", "broker-$(nodeId).b.example.com", ""));
        assertThat(problems(distinct)).isEmpty();

        String overlapping = "virtualClusters:\n"
                + item(sni("a", "0.0.0.0:9092", "bootstrap.example.com", "broker-$(nodeId).example.com", ""))
                + item(sni("b", "0.0.0.0:9092", "broker-1.example.com", "broker-1$(nodeId).example.com", ""));
        assertThat(problems(overlapping)).containsExactly(
                "virtualClusters[1].gateways[0].sniHostIdentifiesNode.bootstrapHost: 'broker-1.example.com' and brokerHostPattern "
                        + "'broker-$(nodeId).example.com' of virtualClusters[0].gateways[0] on port 9092 share a server name, so a client's SNI could not pick one of them",
                "virtualClusters[1].gateways[0].sniHostIdentifiesNode.brokerHostPattern: 'broker-1$(nodeId).example.com' and brokerHostPattern "
                        + "'broker-$(nodeId).example.com' of virtualClusters[0].gateways[0] on port 9092 share a server name, so a client's SNI could not pick one of them");

        // The same names on different ports are two listeners: no conflict.
        String otherPort = "virtualClusters:\n"
                + item(sni("a", "0.0.0.0:9092", "bootstrap.example.com", "broker-$(nodeId).example.com", ""))
                + item(sni("b", "0.0.0.0:9093", "bootstrap.example.com", "broker-$(nodeId).example.com", ""));
        assertThat(problems(otherPort)).isEmpty();

        String ownBootstrap = sni("a", "0.0.0.0:9092", "broker-0.example.com", "broker-$(nodeId).example.com", "");
        assertThat(problems(ownBootstrap)).singleElement().asString().startsWith(GW + ".sniHostIdentifiesNode.brokerHostPattern: "
                + "'broker-$(nodeId).example.com' and bootstrapHost 'broker-0.example.com' of this gateway on port 9092 share a server name");
    }

    @Test
    void aSharedPortNeedsTheSameListenAddressAndNoPortGateway() {
        String hosts = "virtualClusters:\n"
                + item(sni("a", "0.0.0.0:9092", "bootstrap.a.example.com", "broker-$(nodeId).a.example.com", ""))
                + item(sni("b", "127.0.0.1:9092", "bootstrap.b.example.com", "broker-$(nodeId).b.example.com", ""));
        assertThat(problems(hosts)).containsExactly("virtualClusters[1].gateways[0].sniHostIdentifiesNode.listenAddress: SNI listen port 9092 "
                + "overlaps SNI listen port 9092 of virtualClusters[0].gateways[0] listening on '0.0.0.0': SNI gateways share a port only with the same listenAddress");

        String withPorts = "virtualClusters:\n"
                + item(sni("a", "0.0.0.0:9193", "bootstrap.a.example.com", "broker-$(nodeId).a.example.com", ""))
                + """
                  - name: b
                    targetCluster: {bootstrapServers: "kafka:9092"}
                    gateways: [{name: g, portIdentifiesNode: {bootstrapAddress: "localhost:9192"}}]
                """;
        assertThat(problems(withPorts)).containsExactly("virtualClusters[1].gateways[0].portIdentifiesNode.nodeStartPort: node start port 9193 "
                + "overlaps SNI listen port 9193 of virtualClusters[0].gateways[0]");
    }

    private List<String> problems(String yaml) {
        try {
            ProxyConfigLoader.parse(yaml, Map.of());
            return List.of();
        }
        catch (ConfigException e) {
            return e.problems();
        }
    }

    private String sni(String cluster, String listen, String bootstrap, String brokers, String extra) {
        return """
                virtualClusters:
                  - name: "%s"
                    targetCluster:
                      bootstrapServers: kafka:9092
                    gateways:
                      - name: sni
                        sniHostIdentifiesNode:
                          listenAddress: "%s"
                          bootstrapHost: "%s"
                          brokerHostPattern: "%s"
                %s        tls:
                          key: {certificateFile: "%s", privateKeyFile: "%s"}
                """.formatted(cluster, listen, bootstrap, brokers, extra.isEmpty() ? "" : extra.indent(10), pem, pem);
    }

    private static String item(String single) {
        return single.substring(single.indexOf('\n') + 1);
    }
}
