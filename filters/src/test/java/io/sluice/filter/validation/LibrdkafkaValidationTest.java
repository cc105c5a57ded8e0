package io.sluice.filter.validation;

import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.format.registry.RegistryStandIn;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.Topics;
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 34's "done when", judged by clients we did not write: Python confluent-kafka's AvroSerializer,
 * ProtobufSerializer and JSONSerializer produce through a proxy running RecordValidation against the registry stand-in
 * (src/test/python/sr_validation.py). Valid records land; a record with an unregistered id, an id of another subject,
 * a truncated payload, no header or a JSON Schema violation is refused, and librdkafka's delivery reports name which
 * records of each batch were refused (INVALID_RECORD) and which failed for their company (_INVALID_DIFFERENT_RECORD).
 * librdkafka 2.16 cannot hand over each record's reason (its per-record message points into a freed answer, against a
 * broker's own record_errors too), so kafka-clients sends the same bytes and its callbacks are asserted to carry each
 * reason. Nothing of a refused batch reaches the broker: the script reads the topics from the broker with Confluent's
 * deserializers, and the broker's end offsets count only the valid records.
 */
@ExtendWith(KafkaClusterExtension.class)
class LibrdkafkaValidationTest {

    static KafkaCluster cluster;

    /** Each record's outcome by label: null when written, else the message of its callback's exception. */
    private static Map<String, String> sendWithKafkaClients(String bootstrap, JsonNode batches) throws Exception {
        Map<String, String> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 1000, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.RETRIES_CONFIG, 0,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (JsonNode batch : batches) {
                for (JsonNode record : batch.get("records")) {
                    String label = record.get("label").asText();
                    producer.send(new ProducerRecord<>(batch.get("topic").asText(), 0, null, Base64.getDecoder().decode(record.get("value").asText())),
                            (metadata, error) -> outcomes.put(label, error == null ? "written" : String.valueOf(error.getMessage())));
                }
                producer.flush();
            }
        }
        return outcomes;
    }

    @Test
    void confluentSerializersRecordsLandAndEveryNonConformingRecordIsRefusedWithItsReason() throws Exception {
        String avro = "sv-orders";
        String protobuf = "sv-quotes";
        String json = "sv-events";
        Topics.createTopics(cluster.getKafkaClientConfiguration(), avro, protobuf, json, "sv-payments");
        try (RegistryStandIn registry = RegistryStandIn.start();
             ProxyFixture proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                     filterDefinitions:
                       - name: validate
                         type: RecordValidation
                         config:
                           schemaRegistry: {url: "%s"}
                           rules:
                             - topics: [%s]
                               value: {format: avro}
                             - topics: [%s]
                               value: {format: protobuf}
                             - topics: [%s]
                               value: {format: json-schema}
                     defaultFilters: [validate]
                     """.formatted(registry.url(), avro, protobuf, json))) {
            JsonNode result = PythonClients.run("sr_validation.py", Duration.ofMinutes(3), Map.of(),
                    "--proxy", proxy.bootstrapServers(), "--broker", cluster.getBootstrapServers(), "--registry", registry.url(),
                    "--avro", avro, "--protobuf", protobuf, "--json", json, "--other", "sv-payments").ok();

            Map<String, JsonNode> reports = new HashMap<>();
            result.get("reports").forEach(r -> reports.put(r.get("label").asText(), r));
            for (String valid : List.of("avro-valid-0", "avro-valid-1", "protobuf-valid", "json-valid", "json-valid-1")) {
                assertThat(reports.get(valid).get("error").isNull()).as(valid + ": " + reports.get(valid)).isTrue();
            }
            // librdkafka names the refused records by their index in the batch: INVALID_RECORD for them, and for the
            // valid records of the same batches its own _INVALID_DIFFERENT_RECORD.
            for (String refused : List.of("avro-unregistered", "avro-truncated", "avro-wrong-subject", "avro-wrong-subject-2",
                    "protobuf-truncated", "protobuf-no-header", "json-violation", "json-not-json")) {
                assertThat(reports.get(refused).get("error").asText()).as(refused).isEqualTo("INVALID_RECORD");
                assertThat(reports.get(refused).get("text").asText()).as(refused).isEqualTo("Broker: Broker failed to validate record");
            }
            for (String batchMate : List.of("avro-batch-valid", "avro-batch-valid-2", "protobuf-batch-valid", "json-batch-valid")) {
                assertThat(reports.get(batchMate).get("error").asText()).as(batchMate).isEqualTo("_INVALID_DIFFERENT_RECORD");
                assertThat(reports.get(batchMate).get("text").asText()).as(batchMate)
                        .isEqualTo("Local: an invalid record in the same batch caused the failure of this message too");
            }
            // Read from the broker itself with Confluent's deserializers: the valid records, nothing of a refused batch.
            JsonNode landed = result.get("landed");
            assertThat(landed.get(avro)).extracting(r -> r.get("id").asLong()).containsExactly(0L, 2L);
            assertThat(landed.get(protobuf)).extracting(r -> r.get("sym").asText() + r.get("size").asLong()).containsExactly("ACME42");
            assertThat(landed.get(json)).extracting(r -> r.get("id").asText()).containsExactly("e0", "e1");

            // The same refused batches from kafka-clients, whose callbacks carry each record's reason.
            Map<String, String> reasons = sendWithKafkaClients(proxy.bootstrapServers(), result.get("refusedBatches"));
            assertThat(reasons.get("avro-unregistered")).isEqualTo("value unknown schema id 999999");
            assertThat(reasons.get("avro-truncated")).startsWith("value bytes do not match the Avro schema: ");
            assertThat(reasons.get("avro-wrong-subject")).matches("value schema id \\d+ is not registered under subject sv-orders-value");
            assertThat(reasons.get("avro-wrong-subject-2")).matches("value schema id \\d+ is not registered under subject sv-orders-value");
            assertThat(reasons.get("protobuf-truncated")).startsWith("value bytes do not match Protobuf type acme.Quote: ");
            assertThat(reasons.get("protobuf-no-header")).isEqualTo("value no schema registry header (first byte 10, expected 0)");
            assertThat(reasons.get("json-violation")).matches("value does not conform to JSON Schema id \\d+: /n: .*100.*");
            assertThat(reasons.get("json-not-json")).isEqualTo("value not exactly one JSON value");
            for (String batchMate : List.of("avro-batch-valid", "avro-batch-valid-2", "protobuf-batch-valid", "json-batch-valid")) {
                assertThat(reasons.get(batchMate)).as(batchMate)
                        .isEqualTo("Failed to append record because it was part of a batch which had one more more invalid records");
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()))) {
                Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
                for (String topic : List.of(avro, protobuf, json)) {
                    ends.put(new TopicPartition(topic, 0), OffsetSpec.latest());
                }
                Map<String, Long> endOffsets = new HashMap<>();
                admin.listOffsets(ends).all().get().forEach((tp, info) -> endOffsets.put(tp.topic(), info.offset()));
                assertThat(endOffsets).as("nothing refused reached the broker").containsExactlyInAnyOrderEntriesOf(
                        Map.of(avro, 2L, protobuf, 1L, json, 2L));
            }
        }
    }
}
