package io.sluice.bridge.server;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.config.ConfigException;
import io.sluice.tls.TestPki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** wss://: the listener with the proxy's TLS configuration and material loading, against real Kafka. */
@ExtendWith(KafkaClusterExtension.class)
class TlsListenerTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static TestPki pki;

    @BeforeAll
    static void pki() throws Exception {
        pki = new TestPki(dir);
    }

    private String tlsSection() throws Exception {
        return """
                tls:
                  key:
                    privateKeyFile: "%s"
                    certificateFile: "%s"
                """.formatted(pki.privateKeyPem(pki.server, "server"), pki.certificatePem(pki.server, "server"));
    }

    @Test
    void clientsTrustingTheCaSubscribeOverWssAndPlainWebSocketsAreRefused() throws Exception {
        String topic = kafka.createTopic(1);
        SslContext trusting = SslContextBuilder.forClient().trustManager(pki.caPem(pki.ca, "ca").toFile()).build();
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-tls").server(tlsSection()).start("topics: " + topic);
             WsClient client = WsClient.connectTls(bridge.port(), trusting)) {
            client.request("connect", m -> m.put("token", TestAuthenticator.token("alice", topic + "/*", "")));
            client.expect("connected");
            client.subscribe("/" + topic + "/a");
            long seq = kafka.send(topic, "a", "{\"over\": \"tls\"}");
            assertThat(client.messages(1).get(0).get("seq").asLong()).isEqualTo(seq);

            assertThatThrownBy(() -> WsClient.connect(bridge.port()).close()).isInstanceOf(CompletionException.class);
        }
    }

    @Test
    void tlsProblemsAreReportedUnderServerTlsAtStartUp() {
        String yaml = """
                server:
                  tls:
                    key:
                      privateKeyFile: /nonexistent/server.key
                      certificateFile: /nonexistent/server.crt
                    clientAuth: REQUIRED
                kafka:
                  bootstrapServers: b:9092
                topics: a
                """;
        assertThatThrownBy(() -> BridgeConfigLoader.parse(yaml, Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> {
                    List<String> problems = ((ConfigException) e).problems();
                    assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("server.tls.key.privateKeyFile:"));
                    assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("server.tls.trust: is required when clientAuth is REQUIRED"));
                });
    }
}
