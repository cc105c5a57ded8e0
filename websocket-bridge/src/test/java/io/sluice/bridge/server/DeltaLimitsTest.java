package io.sluice.bridge.server;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.protocol.CloseCodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 20: one user with read and write on one key subscribed with deltas and published two large JSON arrays that
 * differ everywhere (here: the same numbers in reverse order). Diffing them is quadratic in their lengths (minutes for these sizes), and it ran on the Kafka
 * reader thread under the hub's lock: live delivery stopped for the whole node, and SIGTERM could not stop it. Now the
 * pair is sent whole, and nothing a delta costs holds up other endpoints or the shutdown.
 */
@ExtendWith(KafkaClusterExtension.class)
class DeltaLimitsTest {

    // 30,000 seven-digit numbers: about 240 KB each, as in the report.
    private static final int ELEMENTS = 30_000;

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    /**
     * The same 30,000 numbers, ascending or descending: the two arrays differ at every index but the middle, and their
     * longest common subsequence is one element long, the worst case of the diff's search (and, with move detection,
     * of matching every removal against every addition).
     */
    private static String numbers(boolean descending) {
        StringBuilder out = new StringBuilder(ELEMENTS * 8 + 2).append('[');
        for (int i = 0; i < ELEMENTS; i++) {
            out.append(i == 0 ? "" : ",").append(1_000_000 + (descending ? ELEMENTS - 1 - i : i));
        }
        return out.append(']').toString();
    }

    @Test
    void aPathologicalPairGoesWholeAndOtherEndpointsKeepReceiving() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("mallory", topic + "/*", topic + "/*");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-delta", "topics: " + topic);
             WsClient attacker = WsClient.connected(bridge.port(), token);
             WsClient watcher = WsClient.connected(bridge.port(), token)) {
            attacker.subscribe("/" + topic + "/attack", m -> m.put("delta", true));
            watcher.subscribe("/" + topic + "/live");

            String first = numbers(false);
            String second = numbers(true);
            assertThat(second.length()).isGreaterThan(200_000);
            long firstSeq = kafka.send(topic, "attack", first);
            long secondSeq = kafka.send(topic, "attack", second);
            long[] live = new long[5];
            for (int i = 0; i < live.length; i++) {
                live[i] = kafka.send(topic, "live", "{\"tick\":" + i + "}");
            }

            // The other endpoint's messages arrive while (before: instead of) the pair is handled. WsClient waits at
            // most 30 s for each; the old code held every endpoint for minutes.
            for (long seq : live) {
                assertThat(watcher.expect("message").get("seq").asLong()).isEqualTo(seq);
            }

            JsonNode one = attacker.expect("message");
            assertThat(one.get("seq").asLong()).isEqualTo(firstSeq);
            JsonNode two = attacker.next();
            assertThat(two.get("type").asText()).as("over the limits: the full value, not a delta").isEqualTo("message");
            assertThat(two.get("seq").asLong()).isEqualTo(secondSeq);
            assertThat(two.get("payload")).isEqualTo(WsClient.JSON.readTree(second));

            // The delta stream resyncs on full messages: a small document after the large one goes whole (its base
            // is over the limits), the next one as a delta against it.
            long small = kafka.send(topic, "attack", "{\"home\":1}");
            long smaller = kafka.send(topic, "attack", "{\"home\":2}");
            JsonNode three = attacker.next();
            assertThat(three.get("type").asText()).isEqualTo("message");
            assertThat(three.get("seq").asLong()).isEqualTo(small);
            JsonNode four = attacker.next();
            assertThat(four.get("type").asText()).isEqualTo("delta");
            assertThat(four.get("seq").asLong()).isEqualTo(smaller);
            assertThat(four.get("base").asLong()).isEqualTo(small);
            assertThat(four.get("patch")).isEqualTo(WsClient.JSON.readTree("[{\"op\":\"replace\",\"path\":\"/home\",\"value\":2}]"));
        }
    }

    @Test
    void theNodeStopsWhileAPathologicalPairIsBeingHandled() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("mallory", topic + "/*", topic + "/*");
        BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-delta-stop",
                "shutdownTimeout: 2s", "topics: " + topic);
        try (WsClient attacker = WsClient.connected(bridge.port(), token)) {
            attacker.subscribe("/" + topic + "/attack", m -> m.put("delta", true));
            kafka.send(topic, "attack", numbers(false));
            // The first one is in the cache: the second has a base to be diffed against.
            attacker.expect("message");
            double read = bridge.metric("sluice_bridge_kafka_records_total", "");
            kafka.send(topic, "attack", numbers(true));
            // The reader has taken the second record (counted before it is handled): SIGTERM now.
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") > read);

            CompletableFuture<Void> closing = CompletableFuture.runAsync(bridge::close);
            // Well within a pod's 30 s grace period; before, the shutdown waited for the diff (minutes).
            closing.get(25, TimeUnit.SECONDS);
            assertThat(attacker.awaitClose()).isEqualTo(CloseCodes.GOING_AWAY);
        }
    }
}
