package io.sluice.bridge.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(KafkaClusterExtension.class)
class ManagementAndCommandTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @Test
    void metricsHealthAndReadinessAreServedOnTheManagementPort() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers())) {
            String topic = kafka.createTopic(2);
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-m", "topics: " + topic + ", not-there-yet");
                 WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("ivy", topic + "/*", ""))) {
                client.subscribe("/" + topic + "/k");
                long offset = kafka.send(topic, "k", "hello");
                assertThat(client.expect("message").get("seq").asLong()).isEqualTo(offset);

                HttpClient http = HttpClient.newHttpClient();
                String base = "http://127.0.0.1:" + bridge.server().managementPort();
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(ready.statusCode()).isEqualTo(200);
                assertThat(ready.body()).contains("reading 2 partition(s)").contains("not-there-yet");
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/healthz")).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                        .isEqualTo(200);
                String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
                assertThat(metrics).contains("sluice_bridge_connections{transport=\"websocket\"} 1.0",
                        "sluice_bridge_connections{transport=\"sse\"} 0.0", "sluice_bridge_subscriptions 1.0",
                        "sluice_bridge_messages_out_total", "sluice_bridge_bytes_out_total",
                        "sluice_bridge_end_to_end_latency_seconds_bucket", "jvm_memory_used_bytes",
                        "sluice_build_info{commit=\"" + io.sluice.build.BuildInfo.current().commit() + "\",version=\"");
                assertThat(bridge.metric("sluice_bridge_messages_out_total", "transport=\"websocket\"")).isEqualTo(1);
                assertThat(bridge.metric("sluice_bridge_messages_out_total", "transport=\"sse\"")).isZero();
            }
        }
    }
}
