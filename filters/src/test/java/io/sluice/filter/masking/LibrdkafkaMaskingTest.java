package io.sluice.filter.masking;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.jwt.JwtProxy;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 34's "done when" for masking, judged by clients we did not write: Python confluent-kafka's serializers write
 * Avro, Protobuf and JSON Schema records (and plain JSON) through a proxy running JwtAuth, FieldMasking and
 * RecordEncryption (the Avro topic encrypted), and confluent-kafka's AvroDeserializer, ProtobufDeserializer and
 * JSONDeserializer (which validates against the writer's schema) read them back through the proxy
 * (src/test/python/sr_masking.py): masked for a support token, whole for a payments token with an unmask grant.
 */
@ExtendWith(KafkaClusterExtension.class)
class LibrdkafkaMaskingTest {

    static KafkaCluster cluster;

    @Test
    void confluentDeserializersReadEachFormatMaskedForOneTokenAndWholeForAnother(@TempDir Path dir) throws Exception {
        String avro = "sm-orders";
        String protobuf = "sm-quotes";
        String jsonSchema = "sm-events";
        String json = "sm-cards";
        Path key = Files.writeString(dir.resolve("mask.key"), "librdkafka-masking-secret-0123456789");
        try (RegistryStandIn registry = RegistryStandIn.start()) {
            JwtProxy proxy = JwtProxy.start(cluster, """
                    - name: mask
                      type: FieldMasking
                      config:
                        schemaRegistry: {url: "%s"}
                        formats:
                          - {topics: %s, value: {type: avro, registry: true}}
                          - {topics: %s, value: {type: protobuf, registry: true}}
                          - {topics: %s, value: {type: json-schema, registry: true}}
                        masking:
                          hashKeyFile: "%s"
                          rules:
                            - topics: %s
                              fields: [{path: /card, mask: keepLast, chars: 4}, {path: /email, mask: hash}]
                            - topics: %s
                              fields: [{path: /sym, mask: keepFirst, chars: 2}]
                            - topics: %s
                              fields: [{path: /id, mask: fixed, value: hidden}]
                            - topics: %s
                              fields: [{path: /card, mask: keepLast, chars: 4}]
                    - name: encrypt
                      type: RecordEncryption
                      config:
                        topics: ["%s"]
                        kek: sm
                        kms: InProcessKmsService
                        kmsConfig:
                          keys: [sm]
                    """.formatted(registry.url(), avro, protobuf, jsonSchema, key, avro, protobuf, jsonSchema, json, avro),
                    List.of("jwt", "mask", "encrypt"));
            try {
                proxy.createTopics(avro, protobuf, jsonSchema, json);
                Map<String, Object> read = Map.of("sm-*", List.of("read"));
                Map<String, String> tokens = Map.of(
                        "SLUICE_WRITER_TOKEN", JwtProxy.token("writer", Duration.ofMinutes(10), Map.of("topics", Map.of("sm-*", List.of("write")))),
                        "SLUICE_SUPPORT_TOKEN", JwtProxy.token("support", Duration.ofMinutes(10), Map.of("topics", read, "groups", List.of("sr-masking-*"))),
                        "SLUICE_PAYMENTS_TOKEN", JwtProxy.token("payments", Duration.ofMinutes(10), Map.of("topics", read, "groups", List.of("sr-masking-*"),
                                "unmask", List.of("sm-*:*"))));
                JsonNode views = PythonClients.run("sr_masking.py", Duration.ofMinutes(3), tokens,
                        "--proxy", proxy.bootstrapServers(), "--registry", registry.url(),
                        "--avro", avro, "--protobuf", protobuf, "--json-schema", jsonSchema, "--json", json).ok();

                JsonNode support = views.get("support");
                assertThat(support.get(avro)).hasSize(2).allSatisfy(order -> {
                    assertThat(order.get("card").asText()).isEqualTo("************1111");
                    assertThat(order.get("email").asText()).hasSize(43).doesNotContain("ada");
                });
                assertThat(support.get(protobuf)).extracting(q -> q.get("sym").asText() + "/" + q.get("size").asLong())
                        .containsExactly("AC****/42", "AC****/42");
                assertThat(support.get(jsonSchema)).extracting(e -> e.get("id").asText() + "/" + e.get("n").asInt())
                        .containsExactly("hidden/0", "hidden/1");
                assertThat(support.get(json)).extracting(c -> c.get("card").asText()).containsExactly("************0004", "************0004");

                JsonNode payments = views.get("payments");
                assertThat(payments.get(avro)).extracting(o -> o.get("card").asText() + " " + o.get("email").asText())
                        .containsExactly("4111111111111111 ada@example.com", "4111111111111111 ada@example.com");
                assertThat(payments.get(protobuf)).extracting(q -> q.get("sym").asText()).containsExactly("ACME-0", "ACME-1");
                assertThat(payments.get(jsonSchema)).extracting(e -> e.get("id").asText()).containsExactly("event-0", "event-1");
                assertThat(payments.get(json)).extracting(c -> c.get("card").asText()).containsExactly("5500000000000004", "5500000000000004");
            } finally {
                proxy.close();
            }
        }
    }
}
