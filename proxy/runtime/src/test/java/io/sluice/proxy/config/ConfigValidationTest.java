package io.sluice.proxy.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import io.sluice.config.ConfigException;
import io.sluice.config.HostPort;

class ConfigValidationTest {

    private static final String SNI_GATEWAY = "virtualClusters[0].gateways[0]";

    @TempDir
    Path dir;

    private String pem;

    @BeforeEach
    void files() throws Exception {
        pem = Files.writeString(dir.resolve("file.pem"), "x").toString();
    }

    @Test
    void theMinimalConfigIsValid() {
        assertThat(ProxyConfigLoader.parse(cluster("demo", 9192, ""), Map.of())).isNotNull();
    }

    @Test
    void needsAVirtualCluster() {
        assertThat(problems("virtualClusters: []\n"))
                .containsExactly("virtualClusters: at least one virtual cluster is required");
        assertThat(problems("management: {port: 1}\n"))
                .containsExactly("virtualClusters: at least one virtual cluster is required");
    }

    @Test
    void clusterNamesAreRequiredWellFormedAndUnique() {
        String yaml = "virtualClusters:\n" + item(cluster("Bad_Name", 9192, ""))
                + item(cluster("demo", 9292, "")) + item(cluster("demo", 9392, "")) + item(cluster("-x", 9492, ""))
                + item(cluster("", 9592, ""));

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[0].name: 'Bad_Name' must be lower-case letters, digits and '-', starting and ending with a letter or digit",
                "virtualClusters[2].name: duplicate virtual cluster name 'demo' (also virtualClusters[1])",
                "virtualClusters[3].name: '-x' must be lower-case letters, digits and '-', starting and ending with a letter or digit",
                "virtualClusters[4].name: is required");
    }

    @Test
    void needsATargetClusterWithBootstrapServers() {
        String noTarget = """
                virtualClusters:
                  - name: a
                    gateways: [{name: g, portIdentifiesNode: {bootstrapAddress: "localhost:9192"}}]
                  - name: b
                    targetCluster: {}
                    gateways: [{name: g, portIdentifiesNode: {bootstrapAddress: "localhost:9292"}}]
                  - name: c
                    targetCluster: {bootstrapServers: ":9092,kafka:0"}
                    gateways: [{name: g, portIdentifiesNode: {bootstrapAddress: "localhost:9392"}}]
                """;

        assertThat(problems(noTarget)).containsExactly(
                "virtualClusters[0].targetCluster: is required",
                "virtualClusters[1].targetCluster.bootstrapServers: is required (one or more host:port)",
                "virtualClusters[2].targetCluster.bootstrapServers[0]: ':9092' needs a host and a port above 0",
                "virtualClusters[2].targetCluster.bootstrapServers[1]: 'kafka:0' needs a host and a port above 0");
    }

    @Test
    void needsUniquelyNamedGatewaysWithABootstrapAddress() {
        String yaml = """
                virtualClusters:
                  - name: a
                    targetCluster: {bootstrapServers: "kafka:9092"}
                    gateways: []
                  - name: b
                    targetCluster: {bootstrapServers: "kafka:9092"}
                    gateways:
                      - {name: g, portIdentifiesNode: {bootstrapAddress: "localhost:9192"}}
                      - {name: g, portIdentifiesNode: {bootstrapAddress: "localhost:9292"}}
                      - {portIdentifiesNode: {nodeStartPort: 9400}}
                      - {name: h}
                      - {name: i, portIdentifiesNode: {bootstrapAddress: "localhost:0"}}
                """;

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[0].gateways: at least one gateway is required",
                "virtualClusters[1].gateways[1].name: duplicate gateway name 'g' in this cluster",
                "virtualClusters[1].gateways[2].name: is required",
                "virtualClusters[1].gateways[2].portIdentifiesNode.bootstrapAddress: is required",
                "virtualClusters[1].gateways[3]: one of portIdentifiesNode or sniHostIdentifiesNode is required",
                "virtualClusters[1].gateways[4].portIdentifiesNode.bootstrapAddress: the port must be between 1 and 65535");
    }

    @Test
    void aWildcardBootstrapNeedsAnAdvertisedPattern() {
        for (String wildcard : List.of("0.0.0.0:9192", "\"[::]:9192\"", "\":9192\"")) {
            assertThat(problems(gateway("bootstrapAddress: " + wildcard))).singleElement().asString()
                    .startsWith("virtualClusters[0].gateways[0].portIdentifiesNode.advertisedBrokerAddressPattern: is required when");
        }
        assertThat(problems(gateway("bootstrapAddress: 0.0.0.0:9192\n  advertisedBrokerAddressPattern: proxy.local"))).isEmpty();
    }

    @Test
    void checksTheAdvertisedPattern() {
        String path = "virtualClusters[0].gateways[0].portIdentifiesNode.advertisedBrokerAddressPattern: ";

        assertThat(problems(gateway("bootstrapAddress: localhost:9192\n  advertisedBrokerAddressPattern: b-$(nodeID).x")))
                .containsExactly(path + "only the $(nodeId) placeholder is supported");
        assertThat(problems(gateway("bootstrapAddress: localhost:9192\n  advertisedBrokerAddressPattern: 'b x:1'")))
                .singleElement().asString().startsWith(path + "invalid host:port");
        assertThat(problems(gateway("bootstrapAddress: localhost:9192\n  advertisedBrokerAddressPattern: '0.0.0.0'")))
                .singleElement().asString().startsWith(path + "'0.0.0.0' is a wildcard address");
        assertThat(problems(gateway("bootstrapAddress: localhost:9192\n  advertisedBrokerAddressPattern: 'b-$(nodeId).x:0'")))
                .containsExactly(path + "the port must be between 1 and 65535");
        assertThat(problems(gateway("bootstrapAddress: localhost:9192\n  advertisedBrokerAddressPattern: 'b-$(nodeId).x:443'")))
                .isEmpty();
    }

    @Test
    void checksNodeIdRanges() {
        String yaml = gateway("""
                bootstrapAddress: localhost:9192
                  nodeIdRanges:
                    - {name: a, start: 5, end: 3}
                    - {name: b, start: 0, end: 10}
                    - {name: c, start: 10, end: 12}
                    - {name: d, start: -1, end: -1}
                """);

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[0].gateways[0].portIdentifiesNode.nodeIdRanges[0].end: must not be less than start (5)",
                "virtualClusters[0].gateways[0].portIdentifiesNode.nodeIdRanges[2]: c:[10..12] overlaps nodeIdRanges[1] b:[0..10]",
                "virtualClusters[0].gateways[0].portIdentifiesNode.nodeIdRanges[3].start: node ids are never negative");
    }

    @Test
    void nodePortsMustFitBelow65536() {
        assertThat(problems(gateway("bootstrapAddress: localhost:65530\n  nodeIdRanges: [{name: a, start: 0, end: 9}]")))
                .containsExactly("virtualClusters[0].gateways[0].portIdentifiesNode.nodeIdRanges: the 10 node ports from "
                        + "nodeStartPort 65531 would end at 65540, beyond 65535");
        assertThat(problems(gateway("bootstrapAddress: localhost:65535")))
                .containsExactly("virtualClusters[0].gateways[0].portIdentifiesNode.nodeStartPort: must be between 1 and 65535");
    }

    @Test
    void gatewaysMayNotShareBootstrapPorts() {
        String yaml = "virtualClusters:\n" + item(cluster("a", 9192, "")) + item(cluster("b", 9192, ""));

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[1].gateways[0].portIdentifiesNode.bootstrapAddress: bootstrap port 9192 overlaps "
                        + "bootstrap port 9192 of virtualClusters[0].gateways[0]",
                "virtualClusters[1].gateways[0].portIdentifiesNode.nodeStartPort: node start port 9193 overlaps "
                        + "node start port 9193 of virtualClusters[0].gateways[0]");
    }

    @Test
    void aBootstrapPortMayNotBeAnotherGatewaysNodeStartPort() {
        String yaml = "virtualClusters:\n" + item(cluster("a", 9192, "")) + item(cluster("b", 9193, ""));

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[1].gateways[0].portIdentifiesNode.bootstrapAddress: bootstrap port 9193 overlaps "
                        + "node start port 9193 of virtualClusters[0].gateways[0]");
    }

    @Test
    void rangedNodePortsMayNotOverlapOtherGatewaysPorts() {
        String yaml = "virtualClusters:\n"
                + item(cluster("a", 9192, "      nodeIdRanges: [{name: r, start: 0, end: 9}]\n"))
                + item(cluster("b", 9200, "      nodeStartPort: 9300\n"));

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[1].gateways[0].portIdentifiesNode.bootstrapAddress: bootstrap port 9200 overlaps "
                        + "node ports 9193..9202 of virtualClusters[0].gateways[0]");
    }

    @Test
    void aGatewaysOwnNodePortsMayNotCoverItsBootstrapPort() {
        String yaml = gateway("bootstrapAddress: localhost:9192\n  nodeStartPort: 9190\n  nodeIdRanges: [{name: r, start: 0, end: 5}]");

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[0].gateways[0].portIdentifiesNode.nodeIdRanges: node ports 9190..9195 overlaps "
                        + "bootstrap port 9192 of this gateway");
    }

    @Test
    void filterReferencesMustResolveAndDefinitionsBeComplete() {
        String yaml = cluster("demo", 9192, "").replace("    gateways:", "    filters: [audit, nope]\n    gateways:") + """
                defaultFilters: [missing]
                filterDefinitions:
                  - name: audit
                    type: Audit
                  - name: audit
                    type: Audit
                  - type: Other
                  - name: untyped
                """;

        assertThat(problems(yaml)).containsExactly(
                "filterDefinitions[1].name: duplicate filter name 'audit' (also filterDefinitions[0])",
                "filterDefinitions[2].name: is required",
                "filterDefinitions[3].type: is required",
                "defaultFilters[0]: unknown filter 'missing' (not in filterDefinitions: audit, untyped)",
                "virtualClusters[0].filters[1]: unknown filter 'nope' (not in filterDefinitions: audit, untyped)");
    }

    @Test
    void anEmptyFilterListMeansNoFilters() {
        String yaml = cluster("demo", 9192, "").replace("    gateways:", "    filters: []\n    gateways:") + """
                defaultFilters: [audit]
                filterDefinitions: [{name: audit, type: Audit}]
                """;

        ProxyConfig config = ProxyConfigLoader.parse(yaml, Map.of());

        assertThat(config.filtersFor(config.virtualClusters().get(0))).isEmpty();
    }

    @Test
    void checksNetworkAndManagementSettings() {
        String yaml = cluster("demo", 9192, "") + """
                network:
                  workerThreads: -1
                  maxFrameBytes: 0
                  filterTimeout: 0s
                  connectTimeout: 0
                  writeBufferHighWaterMark: 100
                  writeBufferLowWaterMark: 200
                  transport: kqueue
                management:
                  bindAddress: " "
                  port: 70000
                """;

        assertThat(problems(yaml)).containsExactly(
                "network.transport: must be one of auto, io_uring, epoll, nio (was 'kqueue')",
                "network.workerThreads: must be 0 (Netty default) or more",
                "network.maxFrameBytes: must be greater than 0",
                "network.filterTimeout: must be longer than 0",
                "network.connectTimeout: must be longer than 0",
                "network.writeBufferLowWaterMark: must not exceed writeBufferHighWaterMark (100)",
                "management.bindAddress: must not be empty",
                "management.port: must be between 0 and 65535 (0 picks a free port)");
    }

    @Test
    void aKeyIsEitherPemFilesOrAStore() {
        String path = "virtualClusters[0].gateways[0].tls.key";

        assertThat(problems(serverTls("key: {}"))).containsExactly(
                path + ": one of privateKeyFile and certificateFile (PEM) or storeFile is required");
        assertThat(problems(serverTls("key: {privateKeyFile: %s, storeFile: %s, storePassword: x}".formatted(pem, pem))))
                .containsExactly(path + ": set either privateKeyFile and certificateFile (PEM) or storeFile, not both");
        assertThat(problems(serverTls("key: {privateKeyFile: %s}".formatted(pem))))
                .containsExactly(path + ".certificateFile: is required");
        assertThat(problems(serverTls("key: {certificateFile: %s, storePassword: x, storeType: JKS}".formatted(pem))))
                .containsExactly(path + ".privateKeyFile: is required", path + ".storePassword: only applies to storeFile",
                        path + ".storeType: only applies to storeFile");
        assertThat(problems(serverTls("key: {storeFile: %s, storeType: PEM}".formatted(pem)))).containsExactly(
                path + ".storeType: 'PEM' is not supported; use one of [JKS, PKCS12]",
                path + ".storePassword: is required with storeFile");
        assertThat(problems(serverTls("key: {storeFile: %s, storePassword: x, storeType: jks}".formatted(pem)))).isEmpty();
    }

    @Test
    void namesEveryMissingFile() {
        String missing = dir.resolve("missing.pem").toString();
        String yaml = serverTls("""
                key: {privateKeyFile: %s, certificateFile: %s, keyPassword: {passwordFile: %s}}
                  trust: {storeFile: %s, storeType: PEM}
                """.formatted(missing, dir, missing, missing));
        String path = "virtualClusters[0].gateways[0].tls";

        assertThat(problems(yaml)).containsExactly(
                path + ".key.privateKeyFile: file '" + missing + "' does not exist",
                path + ".key.certificateFile: '" + dir + "' is not a regular file",
                path + ".key.keyPassword.passwordFile: file '" + missing + "' does not exist",
                path + ".trust.storeFile: file '" + missing + "' does not exist");
    }

    @Test
    void checksPasswordsAndTrust() {
        String yaml = serverTls("""
                key: {storeFile: %s, storePassword: {password: a, passwordFile: %s}}
                  trust: {storeFile: %s, storeType: PEM, storePassword: x}
                  protocols: [""]
                """.formatted(pem, pem, pem));
        String path = "virtualClusters[0].gateways[0].tls";

        assertThat(problems(yaml)).containsExactly(
                path + ".key.storePassword: set either password or passwordFile, not both",
                path + ".trust.storePassword: only applies to PKCS12 or JKS stores",
                path + ".protocols[0]: must not be empty");
        assertThat(problems(serverTls("key: {storeFile: %s, storePassword: {}}".formatted(pem))))
                .containsExactly(path + ".key.storePassword: one of password or passwordFile is required");
        assertThat(problems(serverTls("key: {storeFile: %s, storePassword: x}\n  trust: {storeFile: %s, storeType: P12}".formatted(pem, pem))))
                .containsExactly(path + ".trust.storeType: 'P12' is not supported; use one of [JKS, PEM, PKCS12]");
    }

    @Test
    void clientAuthNeedsATrustStore() {
        assertThat(problems(serverTls("key: {storeFile: %s, storePassword: x}\n  clientAuth: REQUIRED".formatted(pem))))
                .containsExactly("virtualClusters[0].gateways[0].tls.trust: is required when clientAuth is REQUIRED, "
                        + "to say which client certificates to accept");
    }

    @Test
    void checksTheClientTlsTowardsBrokers() {
        String yaml = cluster("demo", 9192, "").replace("bootstrapServers: kafka:9092", """
                bootstrapServers: kafka:9092
                      tls:
                        insecure: true
                        trust: {storeFile: %s, storeType: PEM}
                        key: {privateKeyFile: %s}""".formatted(pem, pem));

        assertThat(problems(yaml)).containsExactly(
                "virtualClusters[0].targetCluster.tls.key.certificateFile: is required",
                "virtualClusters[0].targetCluster.tls.trust: cannot be combined with insecure: true, which trusts every certificate");
    }

    @Test
    void reportsProblemsFromAllSectionsAtOnce() {
        String yaml = "virtualClusters:\n" + item(cluster("A", 9192, "")) + "network: {maxFrameBytes: -1}\n";

        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ProxyConfigLoader.parse(yaml, Map.of()));

        assertThat(e.problems()).hasSize(2);
        assertThat(e.getMessage()).startsWith("Invalid configuration (2 problems):")
                .contains("  - network.maxFrameBytes: must be greater than 0")
                .contains("  - virtualClusters[0].name: 'A' must be");
    }

    @Test
    void checksPreAuthenticationLimitsAndConnectionLimits() {
        String yaml = """
                virtualClusters:
                  - name: demo
                    connectionLimits:
                      maxConnections: 0
                      maxConnectionsPerClientIp: -1
                    targetCluster:
                      bootstrapServers: kafka:9092
                    gateways:
                      - name: default
                        portIdentifiesNode:
                          bootstrapAddress: localhost:9192
                network:
                  preAuthentication:
                    maxFrameBytes: 0
                    timeout: 0s
                    maxQueuedRequests: -1
                """;

        assertThat(problems(yaml)).containsExactly(
                "network.preAuthentication.maxFrameBytes: must be greater than 0",
                "network.preAuthentication.timeout: must be longer than 0",
                "network.preAuthentication.maxQueuedRequests: must not be negative",
                "virtualClusters[0].connectionLimits.maxConnections: must be greater than 0",
                "virtualClusters[0].connectionLimits.maxConnectionsPerClientIp: must be greater than 0");
    }

    @Test
    void preAuthenticationLimitsAndConnectionLimitsHaveDefaults() {
        ProxyConfig config = ProxyConfigLoader.parse(cluster("demo", 9192, ""), Map.of());

        assertThat(config.network().preAuthentication()).isEqualTo(new PreAuthenticationConfig(512 * 1024, java.time.Duration.ofSeconds(20), 8));
        assertThat(config.virtualClusters().get(0).connectionLimits()).isEqualTo(new ConnectionLimitsConfig(10_000, 1_000));
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
        String path = SNI_GATEWAY + ".sniHostIdentifiesNode.";
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
        assertThat(problems(noTls)).containsExactly(SNI_GATEWAY + ".tls: is required with sniHostIdentifiesNode: the server name that picks the broker "
                + "is part of the TLS handshake");

        String both = sni("demo", "0.0.0.0:9092", "b.x.com", "n-$(nodeId).x.com", "")
                .replace("        sniHostIdentifiesNode:", "        portIdentifiesNode: {bootstrapAddress: \"localhost:9192\"}\n        sniHostIdentifiesNode:");
        assertThat(problems(both)).containsExactly(SNI_GATEWAY + ".sniHostIdentifiesNode: not allowed together with portIdentifiesNode "
                + "(one scheme per gateway; add another gateway for the other)");
    }

    @Test
    void clustersShareAPortWithDistinctNamesOnly() {
        String distinct = sniClusters("0.0.0.0:9092 bootstrap.a.example.com broker-$(nodeId).a.example.com",
                "0.0.0.0:9092 bootstrap.b.example.com broker-$(nodeId).b.example.com");
        assertThat(problems(distinct)).isEmpty();

        String overlapping = sniClusters("0.0.0.0:9092 bootstrap.example.com broker-$(nodeId).example.com",
                "0.0.0.0:9092 broker-1.example.com broker-1$(nodeId).example.com");
        assertThat(problems(overlapping)).containsExactly(
                "virtualClusters[1].gateways[0].sniHostIdentifiesNode.bootstrapHost: 'broker-1.example.com' and brokerHostPattern "
                        + "'broker-$(nodeId).example.com' of virtualClusters[0].gateways[0] on port 9092 share a server name, so a client's SNI could not pick one of them",
                "virtualClusters[1].gateways[0].sniHostIdentifiesNode.brokerHostPattern: 'broker-1$(nodeId).example.com' and brokerHostPattern "
                        + "'broker-$(nodeId).example.com' of virtualClusters[0].gateways[0] on port 9092 share a server name, so a client's SNI could not pick one of them");

        // The same names on different ports are two listeners: no conflict.
        String otherPort = sniClusters("0.0.0.0:9092 bootstrap.example.com broker-$(nodeId).example.com",
                "0.0.0.0:9093 bootstrap.example.com broker-$(nodeId).example.com");
        assertThat(problems(otherPort)).isEmpty();

        String ownBootstrap = sni("a", "0.0.0.0:9092", "broker-0.example.com", "broker-$(nodeId).example.com", "");
        assertThat(problems(ownBootstrap)).singleElement().asString().startsWith(SNI_GATEWAY + ".sniHostIdentifiesNode.brokerHostPattern: "
                + "'broker-$(nodeId).example.com' and bootstrapHost 'broker-0.example.com' of this gateway on port 9092 share a server name");
    }

    @Test
    void aSharedPortNeedsTheSameListenAddressAndNoPortGateway() {
        String hosts = sniClusters("0.0.0.0:9092 bootstrap.a.example.com broker-$(nodeId).a.example.com",
                "127.0.0.1:9092 bootstrap.b.example.com broker-$(nodeId).b.example.com");
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

    /** A one-cluster config with one gateway; {@code extra} is added to its portIdentifiesNode section. */
    private static String cluster(String name, int bootstrapPort, String extra) {
        return withGateway(name, "default") + """
                        portIdentifiesNode:
                          bootstrapAddress: localhost:%d
                %s""".formatted(bootstrapPort, extra.indent(4));
    }

    /** A one-cluster config up to its one gateway's name; the gateway's sections follow at 8 spaces. */
    private static String withGateway(String cluster, String gateway) {
        return """
                virtualClusters:
                  - name: "%s"
                    targetCluster:
                      bootstrapServers: kafka:9092
                    gateways:
                      - name: %s
                """.formatted(cluster, gateway);
    }

    /** The single cluster entry of {@link #cluster}, for building a list of several. */
    private static String item(String single) {
        return single.substring(single.indexOf('\n') + 1);
    }

    /** A one-cluster config whose gateway's portIdentifiesNode section is {@code body} (continuation lines at 2). */
    private static String gateway(String body) {
        return """
                virtualClusters:
                  - name: demo
                    targetCluster:
                      bootstrapServers: kafka:9092
                    gateways:
                      - name: default
                        portIdentifiesNode:
                """ + body.strip().indent(10).replace("\n            ", "\n          ");
    }

    /** A one-cluster config whose gateway has TLS {@code body} (continuation lines at 2). */
    private static String serverTls(String body) {
        return cluster("demo", 9192, "").stripTrailing() + "\n        tls:\n"
                + body.strip().indent(10).replace("\n            ", "\n          ");
    }

    /** Virtual clusters a, b, ... with one SNI gateway each, given as "listenAddress bootstrapHost brokerHostPattern". */
    private String sniClusters(String... gateways) {
        StringBuilder yaml = new StringBuilder("virtualClusters:\n");
        for (int i = 0; i < gateways.length; i++) {
            String[] fields = gateways[i].split(" ");
            yaml.append(item(sni(String.valueOf((char) ('a' + i)), fields[0], fields[1], fields[2], "")));
        }
        return yaml.toString();
    }

    private String sni(String cluster, String listen, String bootstrap, String brokers, String extra) {
        return withGateway(cluster, "sni") + """
                        sniHostIdentifiesNode:
                          listenAddress: "%s"
                          bootstrapHost: "%s"
                          brokerHostPattern: "%s"
                %s        tls:
                          key: {certificateFile: "%s", privateKeyFile: "%s"}
                """.formatted(listen, bootstrap, brokers, extra.isEmpty() ? "" : extra.indent(10), pem, pem);
    }
}
