package io.sluice.bridge.server;

import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge's registry formats judged by Confluent's own serializers (Python confluent-kafka's AvroSerializer,
 * ProtobufSerializer and JSONSerializer, src/test/python/sr_interop.py) against the registry stand-in: the JSON a
 * `websockets` client receives equals what was produced, and a JSON publish through the bridge is read back by
 * confluent-kafka's AvroDeserializer. Python's ProtobufSerializer registers its schema as a base64 descriptor, which
 * the bridge reads too.
 */
@ExtendWith(KafkaClusterExtension.class)
class SchemaRegistryInteropTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @Test
    void recordsWrittenByConfluentSerializersReachWebSocketClientsAsTheirJson() throws Exception {
        try (KafkaHelper kafka = new KafkaHelper(cluster.getBootstrapServers());
             RegistryStandIn registry = RegistryStandIn.start()) {
            String avro = kafka.createTopic(1);
            String protobuf = kafka.createTopic(1);
            String json = kafka.createTopic(1);
            String formats = "schemaRegistry:\n  url: " + registry.url() + "\nformats:\n"
                    + "  - topics: " + avro + "\n    value: {type: avro}\n    onDecodeFailure: gap\n"
                    + "  - topics: " + protobuf + "\n    value: {type: protobuf}\n    onDecodeFailure: gap\n"
                    + "  - topics: " + json + "\n    value: {type: json-schema}\n    onDecodeFailure: gap\n";
            try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-sr-interop",
                    "topics: " + avro + "," + protobuf + "," + json + "\n" + formats)) {
                String token = TestAuthenticator.token("py", avro + "/*," + protobuf + "/*," + json + "/*", avro + "/*");
                JsonNode result = PythonClients.run("sr_interop.py", TIMEOUT, Map.of("TOKEN", token),
                        "--bootstrap", cluster.getBootstrapServers(), "--registry", registry.url(),
                        "--url", "ws://127.0.0.1:" + bridge.port() + "/ws",
                        "--avro", avro, "--protobuf", protobuf, "--json", json).ok();
                for (String format : new String[] {"avro", "protobuf", "json"}) {
                    assertThat(result.path("received").path(format).path("format").asText()).as(format).isEqualTo("json");
                    assertThat(result.path("received").path(format).path("payload")).as(format)
                            .isEqualTo(result.path("expected").path(format));
                }
                assertThat(result.path("readBack")).as("the publish, read back by AvroDeserializer").isEqualTo(result.path("published"));
                assertThat(bridge.metric("sluice_bridge_decode_failures_total", "")).isZero();
            }
        }
    }
}
