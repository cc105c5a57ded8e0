package io.sluice.adversarial;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;

import com.nimbusds.jose.jwk.JWKSet;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.filter.jwt.TestTokenCallbackHandler;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.testkit.FreePorts;
import io.sluice.proxy.server.ProxyServer;

/**
 * The proxy under attack: every filter this module has, in the order docs/key-routing.md recommends (JwtAuth →
 * KeyRouting → RecordEncryption with the in-process KMS), in front of a test cluster, and a second virtual cluster
 * without KeyRouting (see {@link Cluster}). Each advertises a {@link FrameRelay}'s ports as its brokers, so a real
 * kafka-clients session through it can be recorded; the fuzzer itself talks to the proxy's own ports.
 */
final class FuzzTarget implements AutoCloseable {

    /** A real topic with virtual topics over its keys, stored encrypted. */
    static final String ROUTED = "fz-scores";
    static final String VIRTUAL = "fz-scores.live.football";
    static final String VIRTUAL_KEY = "live/football";
    /** Encrypted, readable by key for the restricted principal. */
    static final String SECURE = "fz-secure";
    /** Neither routed nor encrypted. */
    static final String PLAIN = "fz-plain";
    /** Where the healthy clients round-trip, encrypted. */
    static final String HEALTH = "fz-health";

    private static final int RELAYED_NODES = 3;

    /**
     * One virtual cluster of the proxy and the relay in front of it. {@code routed} has KeyRouting in its chain, which
     * offers clients only the API versions it can route (names, not topic ids; no KIP-848, share or streams groups, no
     * DescribeTopicPartitions); {@code direct} has JwtAuth and RecordEncryption only, so clients use the newest
     * versions. Both are fuzzed with requests recorded on either, as a client that ignores ApiVersions would send.
     */
    record Cluster(String name, int proxyPort, int relayPort) {
    }

    private final KafkaCluster cluster;
    private final JwksServer jwks;
    private final ProxyServer proxy;
    private final List<FrameRelay> relays;
    private final List<Cluster> clusters;

    private FuzzTarget(KafkaCluster cluster, JwksServer jwks, ProxyServer proxy, List<FrameRelay> relays, List<Cluster> clusters) {
        this.cluster = cluster;
        this.jwks = jwks;
        this.proxy = proxy;
        this.relays = relays;
        this.clusters = clusters;
    }

    static FuzzTarget start(KafkaCluster cluster, java.util.function.Consumer<FrameRelay.Frame> recorder) throws Exception {
        JwksServer jwks = new JwksServer(new JWKSet(List.of(TestIssuer.rsa().key().toPublicJWK())).toString());
        ProxyServer proxy = null;
        List<FrameRelay> relays = new ArrayList<>();
        try {
            List<Cluster> clusters = List.of(new Cluster("routed", FreePorts.block(8), FreePorts.block(8)),
                    new Cluster("direct", FreePorts.block(8), FreePorts.block(8)));
            StringBuilder virtualClusters = new StringBuilder();
            for (Cluster c : clusters) {
                virtualClusters.append("""
                          - name: %s
                            targetCluster:
                              bootstrapServers: "%s"
                            filters: %s
                            gateways:
                              - name: default
                                portIdentifiesNode:
                                  bootstrapAddress: "127.0.0.1:%d"
                                  advertisedBrokerAddressPattern: "127.0.0.1:%d"
                        """.formatted(c.name(), cluster.getBootstrapServers(), c.name().equals("routed") ? "[jwt, routing, encrypt]" : "[jwt, encrypt]",
                        c.proxyPort(), c.relayPort() + 1));
            }
            String yaml = """
                    management:
                      port: 0
                    virtualClusters:
                    %sfilterDefinitions:
                      - name: jwt
                        type: JwtAuth
                        config:
                          jwks: "%s"
                          issuer: %s
                          audience: %s
                          clockSkew: 0s
                          allowHttpJwks: true
                      - name: routing
                        type: KeyRouting
                        config:
                          hideRealTopics: true
                          routes:
                            - { virtual: "fz-scores.results", topic: fz-scores, key: results }
                            - { virtual: "fz-scores.live.$(sport)", topic: fz-scores, key: "live/$(sport)" }
                      - name: encrypt
                        type: RecordEncryption
                        config:
                          topics: ["%s", "%s", "%s"]
                          kek: fuzz
                          kms: InProcessKmsService
                          kmsConfig:
                            keys: [fuzz]
                    """.formatted(virtualClusters, jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, ROUTED, SECURE, HEALTH);
            proxy = ProxyServer.start(ProxyConfigLoader.parse(yaml, Map.of()));
            for (Cluster c : clusters) {
                List<Integer> targets = new ArrayList<>();
                for (int i = 0; i <= RELAYED_NODES; i++) {
                    targets.add(c.proxyPort() + i);
                }
                relays.add(new FrameRelay(c.relayPort(), targets, recorder));
            }
            FuzzTarget target = new FuzzTarget(cluster, jwks, proxy, relays, clusters);
            target.createTopics(ROUTED, SECURE, PLAIN, HEALTH);
            return target;
        } catch (Exception | Error e) {
            relays.forEach(FrameRelay::close);
            if (proxy != null) {
                proxy.close();
            }
            jwks.close();
            throw e;
        }
    }

    /** The virtual clusters: the routed one first. */
    List<Cluster> clusters() {
        return clusters;
    }

    /** kafka-clients settings for the routed cluster through its relay, authenticating with {@code token}. */
    Map<String, Object> clientConfig(String token) {
        return clientConfig(clusters.get(0), token);
    }

    Map<String, Object> clientConfig(Cluster through, String token) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + through.relayPort());
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        config.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, TestTokenCallbackHandler.jaasConfig(() -> token));
        config.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, TestTokenCallbackHandler.class.getName());
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG, 100);
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }

    /** Everything: the capture session creates topics and changes configs. */
    static String adminToken() {
        return TestIssuer.rsa().token("fuzz-admin", Duration.ofHours(2), Map.of("admin", true));
    }

    /**
     * A principal whose requests take the filters' non-admin paths: whole topics, key-restricted reads of an
     * encrypted topic, virtual topics, its own groups and transactional ids.
     */
    static String restrictedToken() {
        return TestIssuer.rsa().token("fuzz-user", Duration.ofHours(2), Map.of(
                "topics", Map.of(PLAIN, List.of("read", "write"), "fz-scores.live.*", List.of("read", "write"),
                        HEALTH, List.of("read", "write")),
                "keys", Map.of(SECURE, Map.of("read", List.of("a*"), "write", List.of("a*", "b*"))),
                "groups", List.of("fz-*"),
                "transactionalIds", List.of("fz-*")));
    }

    /** An Admin straight to the broker, not through the proxy. */
    Admin brokerAdmin() {
        return Admin.create(cluster.getKafkaClientConfiguration());
    }

    void createTopics(String... topics) throws Exception {
        io.sluice.testkit.Topics.createTopics(cluster.getKafkaClientConfiguration(), java.util.Arrays.stream(topics).map(t -> new NewTopic(t, 2, (short) 1)).toList());
    }

    @Override
    public void close() {
        relays.forEach(FrameRelay::close);
        proxy.close();
        jwks.close();
    }
}
