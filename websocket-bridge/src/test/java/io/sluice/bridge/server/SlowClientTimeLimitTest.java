package io.sluice.bridge.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.protocol.CloseCodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client that stops reading but subscribes to few endpoints never reaches {@code outbound.maxBytes}: conflation keeps
 * its memory at one message per endpoint. {@code outbound.maxSlowTime} bounds how long it may hold its connection
 * above the high-water mark; a fast client on the same node is unaffected.
 */
@ExtendWith(KafkaClusterExtension.class)
class SlowClientTimeLimitTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    static KafkaHelper kafka;

    private static final String PAD = "x".repeat(2000);

    @BeforeAll
    static void helper() {
        kafka = new KafkaHelper(cluster.getBootstrapServers());
    }

    @AfterAll
    static void closeHelper() {
        kafka.close();
    }

    @Test
    void aClientAboveTheHighWaterMarkForMaxSlowTimeIsClosedWith4008ThoughConflationKeepsItUnderMaxBytes() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("hal", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "socketSendBufferBytes: 8192", """
                topics: %s
                outbound:
                  highWaterMarkBytes: 32768
                  lowWaterMarkBytes: 16384
                  maxBytes: 67108864
                  maxSlowTime: 3s
                """.formatted(topic));
             WsClient fast = WsClient.connected(bridge.port(), token);
             WsClient slow = WsClient.connect(bridge.port(), 4096)) {
            slow.request("connect", m -> m.put("token", token));
            slow.expect("connected");
            slow.subscribe("/" + topic + "/*");
            slow.pauseReading();
            fast.subscribe("/" + topic + "/*");

            List<Long> sent = new ArrayList<>();
            long started = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                sent.add(kafka.send(topic, i % 2 == 0 ? "a" : "b", "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}"));
            }
            assertThat(fast.messages(200)).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(sent);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_messages_conflated_total", "") > 0);

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"") == 1);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("not before maxSlowTime").isGreaterThanOrEqualTo(Duration.ofSeconds(3));
            assertThat(bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_bytes\"")).isZero();

            slow.resumeReading();
            assertThat(slow.awaitClose()).isEqualTo(CloseCodes.SLOW_CLIENT);
            long live = kafka.send(topic, "after", "still serving");
            assertThat(fast.expect("message").get("seq").asLong()).isEqualTo(live);
        }
    }
}
