package io.sluice.filter.masking;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.jwt.JwtProxy;
import io.sluice.format.AvroBinary;
import io.sluice.format.registry.RegistryStandIn;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * FieldMasking through a real proxy (JwtAuth, FieldMasking, RecordEncryption) in front of a real broker, with the
 * registry stand-in and kafka-clients producing and reading Avro in Confluent's wire format: a support token reads the
 * card number and the e-mail masked, a payments token (an unmask grant for the card) reads the card whole and the
 * e-mail still hashed, on a plain topic and on an encrypted one (masking sees the decrypted records; the broker holds
 * ciphertext); a record that cannot be masked is dropped (onFailure: drop) and the records around it arrive.
 */
@ExtendWith(KafkaClusterExtension.class)
class FieldMaskingEndToEndTest {

    static final String ORDER = """
            {"type": "record", "name": "Order", "namespace": "acme", "fields": [
              {"name": "id", "type": "long"},
              {"name": "card", "type": {"type": "record", "name": "Card", "fields": [{"name": "number", "type": "string"}]}},
              {"name": "email", "type": "string"},
              {"name": "note", "type": ["null", "string"], "default": null}]}""";
    private static final String PLAIN = "mask-e2e-orders";
    private static final String SECURE = "mask-e2e-secure-orders";
    private static final String CARD = "4111111111111111";

    @Test
    void eachTokenReadsItsViewOfPlainAndEncryptedTopicsAndBadRecordsAreDropped(KafkaCluster cluster, @TempDir Path dir) throws Exception {
        Path key = Files.writeString(dir.resolve("mask.key"), "e2e-secret-e2e-secret-e2e-secret-0123\n");
        Schema schema = new Schema.Parser().parse(ORDER);
        try (RegistryStandIn registry = RegistryStandIn.start()) {
            int plainId = registry.register(PLAIN + "-value", ORDER);
            int secureId = registry.register(SECURE + "-value", ORDER);
            JwtProxy proxy = JwtProxy.start(cluster, """
                    - name: mask
                      type: FieldMasking
                      config:
                        schemaRegistry: {url: "%s"}
                        formats:
                          - topics: "mask-e2e-.*"
                            value: {type: avro, registry: true}
                        masking:
                          hashKeyFile: "%s"
                          rules:
                            - topics: "mask-e2e-.*"
                              fields:
                                - {path: /card/number, mask: keepLast, chars: 4}
                                - {path: /email, mask: hash}
                                - {path: /note, mask: "null"}
                              onFailure: drop
                    - name: encrypt
                      type: RecordEncryption
                      config:
                        topics: ["%s"]
                        kek: mask-e2e
                        kms: InProcessKmsService
                        kmsConfig:
                          keys: [mask-e2e]
                    """.formatted(registry.url(), key, SECURE), List.of("jwt", "mask", "encrypt"));
            try {
                proxy.createTopics(PLAIN, SECURE);
                Map<String, Object> both = Map.of(PLAIN, List.of("read", "write"), SECURE, List.of("read", "write"));
                String support = JwtProxy.token("support", Duration.ofMinutes(10), Map.of("topics", both));
                String payments = JwtProxy.token("payments", Duration.ofMinutes(10), Map.of("topics", both, "unmask", List.of("mask-e2e-*:/card/number")));
                for (String topic : List.of(PLAIN, SECURE)) {
                    int id = topic.equals(PLAIN) ? plainId : secureId;
                    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(proxy.clientConfig(payments), new ByteArraySerializer(),
                            new ByteArraySerializer())) {
                        producer.send(new ProducerRecord<>(topic, "o-1".getBytes(), framed(id, order(schema, 1, "ada@example.com")))).get();
                        // Not Avro of the schema: a header naming the id, then bytes that do not decode.
                        producer.send(new ProducerRecord<>(topic, "o-2".getBytes(), framed(id, new byte[] {(byte) 0xff, 1}))).get();
                        producer.send(new ProducerRecord<>(topic, "o-3".getBytes(), framed(id, order(schema, 3, "ada@example.com")))).get();
                    }
                }

                for (String topic : List.of(PLAIN, SECURE)) {
                    int id = topic.equals(PLAIN) ? plainId : secureId;
                    List<ConsumerRecord<byte[], byte[]>> supportSees = read(proxy.clientConfig(support), topic, 2);
                    List<ConsumerRecord<byte[], byte[]>> paymentsSees = read(proxy.clientConfig(payments), topic, 2);

                    assertThat(supportSees).extracting(ConsumerRecord::offset).as("the bad record at offset 1 dropped").containsExactly(0L, 2L);
                    for (ConsumerRecord<byte[], byte[]> r : supportSees) {
                        GenericRecord order = decode(schema, id, r.value());
                        assertThat(order.get("card").toString()).isEqualTo("{\"number\": \"************1111\"}");
                        assertThat(order.get("email").toString()).hasSize(43).doesNotContain("ada");
                        assertThat(order.get("note")).isNull();
                    }
                    assertThat(decode(schema, id, supportSees.get(0).value()).get("email").toString())
                            .as("joinable").isEqualTo(decode(schema, id, supportSees.get(1).value()).get("email").toString());
                    assertThat(paymentsSees).extracting(ConsumerRecord::offset).containsExactly(0L, 2L);
                    GenericRecord whole = decode(schema, id, paymentsSees.get(0).value());
                    assertThat(whole.get("card").toString()).isEqualTo("{\"number\": \"" + CARD + "\"}");
                    assertThat(whole.get("email").toString()).as("no grant for the e-mail").hasSize(43);
                    assertThat(whole.get("id")).isEqualTo(1L);
                }

                // The broker: plaintext in the plain topic, ciphertext in the encrypted one.
                Map<String, Object> direct = new HashMap<>(cluster.getKafkaClientConfiguration());
                assertThat(new String(read(direct, PLAIN, 3).get(0).value(), StandardCharsets.ISO_8859_1)).contains(CARD);
                for (ConsumerRecord<byte[], byte[]> stored : read(direct, SECURE, 3)) {
                    assertThat(new String(stored.value(), StandardCharsets.ISO_8859_1)).doesNotContain(CARD).doesNotContain("ada@");
                }
                // Each reader dropped the bad record of each topic at least once (a consumer may fetch an offset twice).
                assertThat(proxy.metric("sluice_masking_records_total", "outcome=\"dropped\"")).isGreaterThanOrEqualTo(4.0);
            } finally {
                proxy.close();
            }
        }
    }

    /**
     * Share groups (KIP-932) read records by ShareFetch, which is masked as well. JwtAuth lets only admins use share
     * groups (docs/jwt.md), and admins see every field, so the chain here has no JwtAuth: a connection without a
     * principal gets every mask.
     */
    @Test
    void shareConsumersReadMaskedRecords(KafkaCluster cluster) throws Exception {
        String topic = "mask-e2e-share";
        String group = "mask-share-" + java.util.UUID.randomUUID();
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(cluster.getKafkaClientConfiguration())) {
            admin.incrementalAlterConfigs(Map.of(new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.GROUP, group),
                    List.of(new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry("share.auto.offset.reset", "earliest"),
                            org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
        }
        JwtProxy proxy = JwtProxy.start(cluster, """
                - name: mask
                  type: FieldMasking
                  config:
                    masking:
                      rules:
                        - topics: "mask-e2e-share"
                          fields: [{path: /card, mask: keepLast, chars: 4}]
                """, List.of("mask"));
        try {
            proxy.createTopics(topic);
            Map<String, Object> plain = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.bootstrapServers());
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(plain, new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(topic, "k".getBytes(), ("{\"card\":\"" + CARD + "\"}").getBytes(StandardCharsets.UTF_8))).get();
            }
            Map<String, Object> config = new HashMap<>(plain);
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            List<String> read = new ArrayList<>();
            try (org.apache.kafka.clients.consumer.KafkaShareConsumer<byte[], byte[]> consumer = new org.apache.kafka.clients.consumer.KafkaShareConsumer<>(
                    config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(topic));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (read.isEmpty() && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> read.add(new String(r.value(), StandardCharsets.UTF_8)));
                }
            }
            assertThat(read).containsExactly("{\"card\":\"************1111\"}");
        } finally {
            proxy.close();
        }
    }

    static byte[] order(Schema schema, long id, String email) {
        GenericRecord order = new GenericData.Record(schema);
        GenericRecord card = new GenericData.Record(schema.getField("card").schema());
        card.put("number", CARD);
        order.put("id", id);
        order.put("card", card);
        order.put("email", email);
        order.put("note", "call first");
        return AvroBinary.write(schema, order);
    }

    static byte[] framed(int id, byte[] body) {
        byte[] out = new byte[body.length + 5];
        out[1] = (byte) (id >>> 24);
        out[2] = (byte) (id >>> 16);
        out[3] = (byte) (id >>> 8);
        out[4] = (byte) id;
        System.arraycopy(body, 0, out, 5, body.length);
        return out;
    }

    /** A record as Confluent's deserializer reads it: magic byte 0, the schema id, Avro binary of that schema. */
    static GenericRecord decode(Schema schema, int id, byte[] value) {
        assertThat(value[0]).isZero();
        assertThat(((value[1] & 0xff) << 24) | ((value[2] & 0xff) << 16) | ((value[3] & 0xff) << 8) | (value[4] & 0xff)).isEqualTo(id);
        return AvroBinary.read(schema, Arrays.copyOfRange(value, 5, value.length));
    }

    static List<ConsumerRecord<byte[], byte[]>> read(Map<String, Object> config, String topic, int count) {
        Properties props = new Properties();
        props.putAll(config);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            // Until the end of the partition, whatever the count: a record too many must show.
            while (System.nanoTime() < deadline && consumer.position(partition) < 3) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        assertThat(out).as("records of %s", topic).hasSize(count);
        return out;
    }
}
