package io.sluice.proxy.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.config.ClientAuthMode;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.HostPort;
import io.sluice.config.KeyConfig;
import io.sluice.config.ManagementConfig;
import io.sluice.config.PasswordSource;
import io.sluice.config.TlsClientConfig;
import io.sluice.config.TlsServerConfig;
import io.sluice.config.TrustConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class ProxyConfigLoaderTest {

    static final String MINIMAL = """
            virtualClusters:
              - name: demo
                targetCluster:
                  bootstrapServers: kafka:9092
                gateways:
                  - name: default
                    portIdentifiesNode:
                      bootstrapAddress: localhost:9192
            """;

    @TempDir
    Path dir;

    @Test
    void appliesDefaultsToAMinimalConfig() {
        ProxyConfig config = ProxyConfigLoader.parse(MINIMAL, Map.of());

        assertThat(config.network()).isEqualTo(NetworkConfig.defaults());
        assertThat(config.network().maxFrameBytes()).isEqualTo(104_857_600);
        assertThat(config.network().filterTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.network().connectTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.network().writeBufferHighWaterMark()).isEqualTo(1024 * 1024);
        assertThat(config.network().writeBufferLowWaterMark()).isEqualTo(512 * 1024);
        assertThat(config.management()).isEqualTo(new ManagementConfig(true, "127.0.0.1", 9190));
        assertThat(config.filterDefinitions()).isEmpty();
        assertThat(config.defaultFilters()).isEmpty();

        VirtualClusterConfig cluster = config.virtualClusters().get(0);
        assertThat(cluster.filters()).isNull();
        assertThat(cluster.targetCluster().bootstrapServers()).containsExactly(new HostPort("kafka", 9092));
        assertThat(cluster.targetCluster().tls()).isNull();
        assertThat(cluster.targetCluster().discovery()).isTrue();
        assertThat(cluster.targetCluster().discoveryProperties()).isEmpty();
        GatewayConfig gateway = cluster.gateways().get(0);
        assertThat(gateway.tls()).isNull();
        assertThat(gateway.portIdentifiesNode().nodeStartPort()).isEqualTo(9193);
        assertThat(gateway.portIdentifiesNode().advertisedBrokerAddressPattern()).isNull();
        assertThat(gateway.portIdentifiesNode().nodeIdRanges()).isEmpty();
        assertThat(config.filtersFor(cluster)).isEmpty();
    }

    @Test
    void readsAFullExample() throws Exception {
        Path cert = Files.writeString(dir.resolve("cert.pem"), "x");
        Path key = Files.writeString(dir.resolve("key.pem"), "x");
        Path ca = Files.writeString(dir.resolve("ca.pem"), "x");
        Path store = Files.writeString(dir.resolve("client.p12"), "x");
        Path secret = Files.writeString(dir.resolve("secret"), "s3cret\n");
        String yaml = """
                network:
                  workerThreads: 4
                  maxFrameBytes: 1048576
                  filterTimeout: 1500ms
                  connectTimeout: PT3S
                  writeBufferHighWaterMark: 65536
                  writeBufferLowWaterMark: 32768
                  transport: nio
                  maxUnwritableTime: 20s
                  maxFetchBytes: 2097152
                  clientOutboundBudgetBytes: 268435456
                  connectionsMaxIdle: 5m
                management:
                  enabled: false
                  bindAddress: 0.0.0.0
                  port: 0
                filterDefinitions:
                  - name: audit
                    type: AuditFilter
                    config:
                      topics: [a, b]
                  - name: noop
                    type: NoopFilter
                defaultFilters: [audit]
                virtualClusters:
                  - name: orders
                    targetCluster:
                      bootstrapServers:
                        - broker-1:9093
                        - "[::1]:9094"
                      discovery: false
                      discoveryProperties:
                        security.protocol: SSL
                        request.timeout.ms: 5000
                      tls:
                        key:
                          storeFile: %s
                          storePassword:
                            passwordFile: %s
                        trust:
                          storeFile: %s
                          storeType: pem
                        verifyHostname: false
                        protocols: [TLSv1.3]
                    gateways:
                      - name: public
                        portIdentifiesNode:
                          bootstrapAddress: 0.0.0.0:19092
                          advertisedBrokerAddressPattern: broker-$(nodeId).example.com
                          nodeStartPort: 19100
                          nodeIdRanges:
                            - name: brokers
                              start: 0
                              end: 2
                            - name: more
                              start: 10
                              end: 11
                        tls:
                          key:
                            privateKeyFile: %s
                            certificateFile: %s
                            keyPassword: hunter2
                          trust:
                            storeFile: %s
                            storeType: PEM
                          clientAuth: required
                          cipherSuites: [TLS_AES_128_GCM_SHA256]
                    filters: [noop, audit]
                """.formatted(store, secret, ca, key, cert, ca);

        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of());

        assertThat(config.network()).isEqualTo(new NetworkConfig(4, 1048576, Duration.ofMillis(1500),
                Duration.ofSeconds(3), 65536, 32768, PreAuthenticationConfig.defaults(), NetworkConfig.DEFAULT_SHUTDOWN_TIMEOUT, "nio",
                Duration.ofSeconds(20), 2097152, 268435456L, Duration.ofMinutes(5)));
        assertThat(config.management()).isEqualTo(new ManagementConfig(false, "0.0.0.0", 0));
        assertThat(config.defaultFilters()).containsExactly("audit");
        assertThat(config.filterDefinitions()).extracting(FilterDefinition::name).containsExactly("audit", "noop");
        assertThat(config.filterDefinitions().get(0).config().get("topics").get(1).asText()).isEqualTo("b");
        assertThat(config.filterDefinitions().get(1).config()).isNull();

        VirtualClusterConfig cluster = config.virtualClusters().get(0);
        assertThat(config.filtersFor(cluster)).extracting(FilterDefinition::name).containsExactly("noop", "audit");
        TargetClusterConfig target = cluster.targetCluster();
        assertThat(target.bootstrapServers()).containsExactly(new HostPort("broker-1", 9093), new HostPort("::1", 9094));
        assertThat(target.bootstrapServersString()).isEqualTo("broker-1:9093,[::1]:9094");
        assertThat(target.discovery()).isFalse();
        assertThat(target.discoveryProperties()).containsEntry("security.protocol", "SSL")
                .containsEntry("request.timeout.ms", "5000");
        TlsClientConfig clientTls = target.tls();
        assertThat(clientTls.key()).isEqualTo(KeyConfig.store(store.toString(), PasswordSource.fromFile(secret.toString()), "PKCS12"));
        assertThat(clientTls.key().storePassword().resolve()).isEqualTo("s3cret");
        assertThat(clientTls.trust()).isEqualTo(TrustConfig.pem(ca.toString()));
        assertThat(clientTls.verifyHostname()).isFalse();
        assertThat(clientTls.insecure()).isFalse();
        assertThat(clientTls.protocols()).containsExactly("TLSv1.3");
        assertThat(clientTls.cipherSuites()).isEmpty();

        GatewayConfig gateway = cluster.gateways().get(0);
        PortIdentifiesNodeConfig ports = gateway.portIdentifiesNode();
        assertThat(ports.bootstrapAddress()).isEqualTo(new HostPort("0.0.0.0", 19092));
        assertThat(ports.nodeStartPort()).isEqualTo(19100);
        assertThat(ports.nodeIdRanges()).containsExactly(new NodeIdRange("brokers", 0, 2), new NodeIdRange("more", 10, 11));
        assertThat(ports.portForNode(11)).isEqualTo(OptionalInt.of(19104));
        TlsServerConfig serverTls = gateway.tls();
        assertThat(serverTls.key()).isEqualTo(KeyConfig.pem(key.toString(), cert.toString(), PasswordSource.of("hunter2")));
        assertThat(serverTls.clientAuth()).isEqualTo(ClientAuthMode.REQUIRED);
        assertThat(serverTls.protocols()).isEmpty();
        assertThat(serverTls.cipherSuites()).containsExactly("TLS_AES_128_GCM_SHA256");
    }

    @Test
    void acceptsBootstrapServersAsACommaSeparatedString() {
        ProxyConfig config = ProxyConfigLoader.parse(MINIMAL.replace("kafka:9092", "\"k1:9092, k2:9093,[::1]:9094\""), Map.of());

        assertThat(config.virtualClusters().get(0).targetCluster().bootstrapServers())
                .containsExactly(new HostPort("k1", 9092), new HostPort("k2", 9093), new HostPort("::1", 9094));
    }

    @Test
    void acceptsBootstrapServersAsAList() {
        ProxyConfig config = ProxyConfigLoader.parse(MINIMAL.replace("kafka:9092", "[k1:9092, k2:9093]"), Map.of());

        assertThat(config.virtualClusters().get(0).targetCluster().bootstrapServers())
                .containsExactly(new HostPort("k1", 9092), new HostPort("k2", 9093));
    }

    @Test
    void namesTheBadEntryOfABootstrapServerList() {
        assertThatThrownBy(() -> ProxyConfigLoader.parse(MINIMAL.replace("kafka:9092", "[k1:9092, k2]"), Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("virtualClusters[0].targetCluster.bootstrapServers[1]: invalid host:port 'k2': the port is missing");
    }

    @Test
    void namesTheBadBootstrapServerInAString() {
        assertThatThrownBy(() -> ProxyConfigLoader.parse(MINIMAL.replace("kafka:9092", "k1:9092,k2:x"), Map.of()))
                .hasMessageContaining("virtualClusters[0].targetCluster.bootstrapServers: invalid host:port 'k2:x'");
    }

    @Test
    void reportsEveryUnknownFieldWithItsPath() {
        String yaml = MINIMAL.replace("    gateways:", "    gatways: []\n    gateways:")
                .replace("bootstrapAddress: localhost:9192", "bootstrapAddress: localhost:9192\n          nodeStrtPort: 1")
                + "colour: blue\n";

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ProxyConfigLoader.parse(yaml, Map.of()));

        assertThat(e.problems()).containsExactlyInAnyOrder(
                "virtualClusters[0].gatways: unknown field",
                "virtualClusters[0].gateways[0].portIdentifiesNode.nodeStrtPort: unknown field",
                "colour: unknown field");
    }

    @Test
    void namesTheUnknownFieldWhoseValueIsAnObject() {
        String yaml = MINIMAL + "managment:\n  port: 1\n";

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid configuration: managment: unknown field");
    }

    @Test
    void translatesTypeErrorsToPathAndMessage() {
        String yaml = MINIMAL + "management:\n  port: lots\n";

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of()))
                .hasMessage("Invalid configuration: management.port: invalid value 'lots' (expected an integer)");
    }

    @Test
    void namesTheBadHostPortWithItsFullPath() {
        String yaml = MINIMAL.replace("localhost:9192", "localhost");

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of()))
                .hasMessage("Invalid configuration: virtualClusters[0].gateways[0].portIdentifiesNode.bootstrapAddress: "
                        + "invalid host:port 'localhost': the port is missing");
    }

    @Test
    void rejectsAnUnknownEnumValueListingTheChoices() {
        String yaml = MINIMAL + """
                        tls:
                          key: {storeFile: x, storePassword: y}
                          clientAuth: sometimes
                """;

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of()))
                .hasMessageContaining("virtualClusters[0].gateways[0].tls.clientAuth: invalid value 'sometimes' "
                        + "(expected one of NONE, REQUESTED, REQUIRED)");
    }

    @Test
    void rejectsAMissingRangeBound() {
        String yaml = MINIMAL.replace("bootstrapAddress: localhost:9192",
                "bootstrapAddress: localhost:9192\n          nodeIdRanges: [{name: a, start: 1}]");

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of()))
                .hasMessage("Invalid configuration: virtualClusters[0].gateways[0].portIdentifiesNode.nodeIdRanges[0].end: is required");
    }

    @Test
    void rejectsNullListEntries() {
        String yaml = MINIMAL.replace("    gateways:", "    filters: [a, ~]\n    gateways:");

        assertThatThrownBy(() -> ProxyConfigLoader.parse(yaml, Map.of()))
                .hasMessage("Invalid configuration: virtualClusters[0].filters[1]: must not be null");
    }

    @Test
    void rejectsAFractionWhereAnIntegerIsExpected() {
        assertThatThrownBy(() -> ProxyConfigLoader.parse(MINIMAL + "network:\n  maxFrameBytes: 1.5\n", Map.of()))
                .hasMessageContaining("network.maxFrameBytes:");
    }

    @Test
    void loadsFromAFile() throws Exception {
        Path file = Files.writeString(dir.resolve("proxy.yaml"), MINIMAL);

        assertThat(ProxyConfigLoader.load(file).virtualClusters()).hasSize(1);
    }

    record AuditSettings(List<String> topics, Duration flushInterval, int batchSize) {
    }

    @Test
    void bindsAFilterConfigWithTheSharedRules() {
        JsonNode node = ProxyConfigLoader.parse(MINIMAL + """
                filterDefinitions:
                  - name: audit
                    type: Audit
                    config: {topics: [a], flushInterval: 5m, batchSize: 10}
                """, Map.of()).filterDefinitions().get(0).config();

        AuditSettings settings = ConfigLoader.bind(node, AuditSettings.class, "filterDefinitions[0].config");

        assertThat(settings).isEqualTo(new AuditSettings(List.of("a"), Duration.ofMinutes(5), 10));
    }
}
