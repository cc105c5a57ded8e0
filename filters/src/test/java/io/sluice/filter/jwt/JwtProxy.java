package io.sluice.filter.jwt;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;

import com.nimbusds.jose.jwk.JWKSet;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.proxy.testing.ProxyFixture;

/**
 * A proxy with the JwtAuth filter in front of a test cluster, a JWKS server with the RSA and EC test keys,
 * and kafka-clients settings for SASL_PLAINTEXT + OAUTHBEARER with tokens minted by the test. Other filters'
 * tests put JwtAuth in a chain with theirs through {@link #start(KafkaCluster, String, List)}.
 */
public final class JwtProxy implements AutoCloseable {

    final KafkaCluster cluster;
    final JwksServer jwks;
    final ProxyFixture proxy;

    private JwtProxy(KafkaCluster cluster, JwksServer jwks, ProxyFixture proxy) {
        this.cluster = cluster;
        this.jwks = jwks;
        this.proxy = proxy;
    }

    static JwtProxy start(KafkaCluster cluster) throws Exception {
        return start(cluster, "", List.of("jwt"));
    }

    /**
     * @param moreDefinitions YAML items of {@code filterDefinitions} after JwtAuth's (written at column 0)
     * @param chain           the filters in order, JwtAuth being {@code jwt}
     */
    public static JwtProxy start(KafkaCluster cluster, String moreDefinitions, List<String> chain) throws Exception {
        return start(cluster, moreDefinitions, chain, "");
    }

    /** @param moreTopLevel more top-level YAML, {@code network:} say (written at column 0) */
    public static JwtProxy start(KafkaCluster cluster, String moreDefinitions, List<String> chain, String moreTopLevel) throws Exception {
        return start(cluster, "", moreDefinitions, chain, moreTopLevel);
    }

    /** @param moreJwtConfig more fields of JwtAuth's own config, {@code records:} say (written at column 0) */
    static JwtProxy withConfig(KafkaCluster cluster, String moreJwtConfig) throws Exception {
        return start(cluster, moreJwtConfig, "", List.of("jwt"), "");
    }

    private static JwtProxy start(KafkaCluster cluster, String moreJwtConfig, String moreDefinitions, List<String> chain, String moreTopLevel)
            throws Exception {
        JwksServer jwks = new JwksServer(new JWKSet(List.of(TestIssuer.rsa().key().toPublicJWK(), TestIssuer.ec().key().toPublicJWK())).toString());
        try {
            String more = moreDefinitions.lines().map(line -> "  " + line + "\n").collect(java.util.stream.Collectors.joining());
            String jwtMore = moreJwtConfig.lines().map(line -> "      " + line + "\n").collect(java.util.stream.Collectors.joining());
            ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                    filterDefinitions:
                      - name: jwt
                        type: JwtAuth
                        config:
                          jwks: "%s"
                          issuer: %s
                          audience: %s
                          clockSkew: 0s
                          allowHttpJwks: true
                    %s%sdefaultFilters: [%s]
                    %s""".formatted(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, jwtMore, more, String.join(", ", chain), moreTopLevel));
            return new JwtProxy(cluster, jwks, proxy);
        } catch (RuntimeException e) {
            jwks.close();
            throw e;
        }
    }

    /** Client settings that authenticate with whatever {@code tokens} supplies at each (re-)login. */
    Map<String, Object> clientConfig(Supplier<String> tokens) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        config.put(SaslConfigs.SASL_MECHANISM, "OAUTHBEARER");
        config.put(SaslConfigs.SASL_JAAS_CONFIG, TestTokenCallbackHandler.jaasConfig(tokens));
        config.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, TestTokenCallbackHandler.class.getName());
        // Fetch a new token half way through the old one's life, well before the client re-authenticates (85-95%).
        config.put(SaslConfigs.SASL_LOGIN_REFRESH_WINDOW_FACTOR, 0.5);
        config.put(SaslConfigs.SASL_LOGIN_REFRESH_WINDOW_JITTER, 0.0);
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG, 100);
        config.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }

    /** Client settings that always authenticate with {@code token}. */
    public Map<String, Object> clientConfig(String token) {
        return clientConfig(() -> token);
    }

    /** An RSA-signed token for {@code subject} with these permissions. */
    public static String token(String subject, Duration lifetime, Map<String, Object> permissions) {
        return TestIssuer.rsa().token(subject, lifetime, permissions);
    }

    /** Creates topics directly on the cluster, not through the proxy. */
    public void createTopics(String... topics) throws Exception {
        io.sluice.testkit.Topics.createTopics(cluster.getKafkaClientConfiguration(), java.util.Arrays.stream(topics).map(t -> new NewTopic(t, 1, (short) 1)).toList());
    }

    /** The proxy's bootstrap address, for clients that do not take {@link #clientConfig} (librdkafka). */
    public String bootstrapServers() {
        return proxy.bootstrapServers();
    }

    /** The sum of the proxy's Prometheus samples of {@code name} whose labels contain {@code labels}. */
    public double metric(String name, String labels) {
        return proxy.metric(name, labels);
    }

    @Override
    public void close() {
        proxy.close();
        jwks.close();
    }
}
