package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.client.NodeTools;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * MQTT over WebSocket judged by MQTT.js (npm {@code mqtt} 5.x, pinned in {@code src/test/mqttjs}'s lock file) in
 * Node: MQTT 3.1.1 and 5.0 on {@code mqtt.websocketListen} with subprotocol {@code mqtt}. The latest value of each
 * permitted endpoint arrives retained on subscribe, the forbidden filter is refused, and a QoS 1 publish is
 * acknowledged and comes back through Kafka. Node and npm as for the JavaScript client's tests (fail under CI, skip
 * elsewhere).
 */
class MqttJsTest {

    private static final Path DIR = Path.of("src", "test", "mqttjs");

    // The test kit's one broker for this JVM: the MQTT classes need a broker, not one each.
    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(MqttNodes::sharedKafka);

    @BeforeAll
    static void install() throws Exception {
        NodeTools.requireNpmPackages();
        if (!Files.isRegularFile(DIR.resolve("node_modules/mqtt/package.json"))) {
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(DIR.toFile()).redirectErrorStream(true).start();
            String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                fail("npm ci in " + DIR + " failed:\n" + output);
            }
        }
    }

    @ParameterizedTest(name = "MQTT.js, protocol version {0}")
    @ValueSource(ints = {4, 5})
    void mqttJsOverWebSocketGetsRetainedValuesIsRefusedWhereForbiddenAndPublishesRoundTrip(int version) throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = MqttNodes.start(kafka, "node-mqttjs", topic, "websocketListen: \"127.0.0.1:0\"")) {
            kafka.send(topic, "live/a", "{\"n\":1}");
            kafka.send(topic, "secret", "{\"n\":2}");
            kafka.send(topic, "live/a", "{\"n\":3}");
            String url = "ws://127.0.0.1:" + bridge.server().mqttWebSocketPort() + "/mqtt";
            // The records are in the node's cache (its reader read them) before the client subscribes.
            org.awaitility.Awaitility.await().until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") >= 3);
            ProcessBuilder node = new ProcessBuilder("node", "round-trip.mjs", url, topic, Integer.toString(version))
                    .directory(DIR.toFile()).redirectErrorStream(true);
            node.environment().put("SLUICE_TOKEN", TestAuthenticator.token("js", topic + "/live/*", topic + "/live/*"));
            Process p = node.start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String line = output.lines().filter(l -> l.startsWith("RESULT ")).findFirst().orElseThrow(() -> new AssertionError(output));
            JsonNode result = new ObjectMapper().readTree(line.substring("RESULT ".length()));
            assertThat(result.has("error")).as(output).isFalse();
            assertThat(result.get("granted").toString()).isEqualTo(version == 5 ? "[1,135]" : "[1,128]");
            JsonNode received = result.get("received");
            assertThat(received).hasSize(2);
            // The endpoint's latest value, retained; then the client's own publish, live, through Kafka.
            assertThat(received.get(0).get("topic").asText()).isEqualTo(topic + "/live/a");
            assertThat(received.get(0).get("payload").asText()).isEqualTo("{\"n\":3}");
            assertThat(received.get(0).get("retain").asBoolean()).isTrue();
            assertThat(received.get(1).get("topic").asText()).isEqualTo(topic + "/live/js");
            assertThat(received.get(1).get("payload").asText()).isEqualTo("{\"from\":\"mqtt.js\"}");
            assertThat(received.get(1).get("retain").asBoolean()).isFalse();
            assertThat(received.get(1).get("qos").asInt()).isEqualTo(1);
            List<String> keys = kafka.readAll(topic).stream().map(r -> new String(r.key(), StandardCharsets.UTF_8)).toList();
            assertThat(keys).containsExactly("live/a", "secret", "live/a", "live/js");
        }
    }
}
