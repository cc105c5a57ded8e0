package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MQTT listener judged by a client the team did not write: Eclipse Paho's Python client, MQTT 3.1.1 and 5.0,
 * running {@code src/test/python/mqtt_paho.py} against a real node and real Kafka (the "other producer" is librdkafka,
 * the read-back kafka-clients and librdkafka). Wildcard subscriptions receive exactly the keys the token reads; forbidden filters
 * are refused in SUBACK; a QoS 1 publish is acknowledged and in Kafka once; a forbidden publish is refused (MQTT 5:
 * PUBACK 0x87; 3.1.1: the connection closes); an expired token is refused at CONNECT; a will is published when a
 * client's socket is cut.
 */
class PahoMqttTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    // The test kit's one broker for this JVM: the MQTT classes need a broker, not one each.
    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(MqttNodes::sharedKafka);

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {3, 5})
    void pahoSubscribesPublishesAndIsRefusedWhereTheTokenSaysSo(int version) throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = MqttNodes.start(kafka, "node-mqtt", topic, "")) {
            JsonNode result = PythonClients.run("mqtt_paho.py", TIMEOUT, Map.of(
                            "TOKEN", TestAuthenticator.token("device-" + version, topic + "/live/*", topic + "/in/*"),
                            "EXPIRED_TOKEN", "sub=late;exp=1000;read=" + topic + "/*;write="),
                    "scenario", "--host", "127.0.0.1", "--port", Integer.toString(bridge.server().mqttPort()),
                    "--version", Integer.toString(version), "--topic", topic, "--bootstrap", kafka.bootstrap()).ok();

            assertThat(result.get("connected").get("code").asInt()).isZero();
            int refused = version == 5 ? Reasons.NOT_AUTHORIZED : Reasons.UNSPECIFIED;
            assertThat(ints(result.get("subacks"))).containsExactly(1, 0, refused, refused);
            List<String> topics = new ArrayList<>();
            result.get("received").forEach(m -> {
                topics.add(m.get("topic").asText());
                // The record's value itself, not the WebSocket message around it; QoS 1, the highest matching filter's.
                assertThat(m.get("payload").asText()).isEqualTo("{\"key\": \"" + m.get("topic").asText().substring(topic.length() + 1) + "\"}");
                assertThat(m.get("qos").asInt()).isEqualTo(1);
                assertThat(m.get("retain").asBoolean()).isFalse();
                if (version == 5) {
                    assertThat(m.get("properties").get("sluice-format").asText()).isEqualTo("json");
                    assertThat(m.get("properties").has("sluice-seq")).isTrue();
                }
            });
            // Exactly the permitted keys, each once: not secret, not other/x.
            assertThat(topics).containsExactly(topic + "/live/a", topic + "/live/b", topic + "/live/deep/c");
            assertThat(result.get("publishAck").asInt()).isZero();
            // Acknowledged means in Kafka: librdkafka reads it back, once (kafka-clients below, too).
            assertThat(result.get("librdkafka")).hasSize(1);
            assertThat(result.get("librdkafka").get(0).asText()).isEqualTo("{\"from\": \"paho\", \"version\": " + version + "}");
            if (version == 5) {
                assertThat(result.get("forbiddenAck").asInt()).isEqualTo(Reasons.NOT_AUTHORIZED);
            }
            else {
                assertThat(result.get("closedOnForbidden").asBoolean()).isTrue();
            }
            // 3.1.1's CONNACK 5 (not authorized) is reported by Paho 2 as MQTT 5's 0x87, like 5.0's own.
            assertThat(result.get("expired").get("code").asInt()).isEqualTo(Reasons.NOT_AUTHORIZED);

            List<String> written = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                written.clear();
                for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic)) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    if (key.startsWith("in/")) {
                        written.add(key + "=" + new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
                return written.size() >= 2;
            });
            // Every session counted once in and once out, refused CONNECTs not at all.
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> bridge.metric("sluice_bridge_connections", "transport=\"mqtt\"") == 0);
            assertThat(bridge.metric("sluice_bridge_connections_opened_total", "transport=\"mqtt\"")).isEqualTo(2);
            assertThat(written).containsExactly(
                    "in/dev={\"from\": \"paho\", \"version\": " + version + "}",
                    "in/will={\"gone\": \"paho-will-" + version + "\"}");
        }
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asInt()));
        return values;
    }
}
