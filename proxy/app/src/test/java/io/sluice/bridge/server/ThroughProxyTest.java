package io.sluice.bridge.server;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bridge whose Kafka is a Sluice proxy: reading, recovering from the log and publishing all pass through it. It lives
 * in the app's tests, beside the distribution's, and not in the bridge's: a test there that needs the proxy's test-jar
 * made the whole bridge module wait for the proxy runtime's tests (three minutes of the suite's critical path). The
 * package is the bridge's, for its package-private test client.
 */
@ExtendWith(KafkaClusterExtension.class)
class ThroughProxyTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @Test
    void subscribeRecoverAndPublishThroughTheProxy() throws Exception {
        try (ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers());
             KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(1);
            String token = TestAuthenticator.token("jo", topic + "/*", topic + "/*");
            String smallCache = "topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 1\n";
            try (BridgeFixture bridge = BridgeFixture.start(proxy.bootstrapServers(), "node-p", smallCache)) {
                long first;
                try (WsClient client = WsClient.connected(bridge.port(), token)) {
                    client.subscribe("/" + topic + "/k");
                    client.request("publish", m -> m.put("endpoint", "/" + topic + "/k").put("payload", "via proxy"));
                    JsonNode ack = client.expectEach("ack", "message").get("ack");
                    first = ack.get("seq").asLong();
                }
                List<Long> missed = List.of(kafka.send(topic, "k", "m1"), kafka.send(topic, "k", "m2"), kafka.send(topic, "k", "m3"));
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                        .until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") >= 4);
                try (WsClient client = WsClient.connected(bridge.port(), token)) {
                    JsonNode subscribed = client.subscribe("/" + topic + "/k", m -> m.putArray("recover").addObject()
                            .put("epoch", "placeholder").put("seq", 0));
                    String epoch = subscribed.get("positions").get(0).get("epoch").asText();
                    client.expect("gap");
                    client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/k"));
                    client.expect("unsubscribed");
                    client.subscribe("/" + topic + "/k", m -> m.putArray("recover").addObject().put("epoch", epoch).put("seq", first));
                    assertThat(client.messages(3)).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(missed);
                }
                assertThat(bridge.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"")).isEqualTo(1);
            }
        }
    }
}
