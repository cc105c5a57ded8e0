package io.sluice.bridge.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a client learns of the registry when a publish needs it and it is down: a fixed reason, not its address or
 * why the connection failed (the node's log has that). The document's side is in {@link CatalogueHttpTest}.
 */
@ExtendWith(KafkaClusterExtension.class)
class RegistryLeaksTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    @Test
    void aPublishWhileTheRegistryRefusesConnectionsSaysNothingOfItsAddress() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("pat", topic + "/*", topic + "/*");
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a").start("""
                topics: %s
                schemaRegistry: {url: "http://127.0.0.1:1", timeout: 2s}
                formats:
                  - topics: %s
                    value: {type: avro}
                """.formatted(topic, topic))) {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + bridge.port() + "/ws/publish?endpoint=/" + topic + "/k")).header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"n\":1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            // The node cannot publish now (503 publish_failed, as when Kafka refuses), not a payload that does not fit (400).
            assertThat(answer.statusCode()).isEqualTo(503);
            assertThat(answer.body()).contains("publish_failed", "cannot be fetched from the schema registry");
            assertThat(answer.body()).doesNotContain("http://127.0.0.1:1", "cannot connect", "registry at");
            assertThat(kafka.readAll(topic)).isEmpty();
        }
    }
}
