package io.sluice.bridge.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;

/** {@code GET /asyncapi.json} and {@code /catalogue} on the WebSocket port: served when enabled, 404 when not. */
@ExtendWith(KafkaClusterExtension.class)
class CatalogueHttpTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HttpResponse<String> get(BridgeFixture bridge, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + bridge.port() + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theDocumentAndPageAreServedWhenEnabledEvenWithTheRegistryDown() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a").start("""
                topics: %s
                catalogue: {enabled: true}
                schemaRegistry: {url: "http://127.0.0.1:1", timeout: 1s}
                formats:
                  - topics: %s
                    value: {type: avro}
                """.formatted(topic, topic))) {
            HttpResponse<String> response = get(bridge, "/asyncapi.json");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
            JsonNode doc = new ObjectMapper().readTree(response.body());
            assertThat(doc.get("asyncapi").asText()).isEqualTo("3.0.0");
            assertThat(doc.at("/servers/bridge/host").asText()).isEqualTo("127.0.0.1:" + bridge.port());
            assertThat(doc.at("/components/schemas/" + topic + ".value/description").asText())
                    .startsWith("Schema unavailable");

            HttpResponse<String> page = get(bridge, "/catalogue");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(page.body()).contains("/catalogue.js");
            assertThat(get(bridge, "/catalogue.js").body()).contains("from '/sluice-bridge.js'");
            assertThat(get(bridge, "/sluice-bridge.js").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void nothingIsServedWhenDisabled() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a").start("topics: " + topic)) {
            assertThat(get(bridge, "/asyncapi.json").statusCode()).isEqualTo(404);
            assertThat(get(bridge, "/catalogue").statusCode()).isEqualTo(404);
        }
    }
}
