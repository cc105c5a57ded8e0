package io.sluice.filter.encryption;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.clients.Librdkafka;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.ProxyFixture;

import static io.sluice.filter.clients.Librdkafka.each;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * RecordEncryption judged by librdkafka (confluent-kafka): it produces compressed batches through the proxy and reads
 * them back in plaintext through it, while the broker, read directly by kafka-clients and by librdkafka, holds only
 * ciphertext. The KMS is the in-process one, configured as config/examples/encryption-inprocess.yaml configures it.
 */
@ExtendWith(KafkaClusterExtension.class)
class LibrdkafkaEncryptionTest {

    static KafkaCluster cluster;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: encrypt
                    type: RecordEncryption
                    config:
                      topics: ["secure.*"]
                      kek: sluice-py
                      kms: InProcessKmsService
                      kmsConfig:
                        keys: [sluice-py]
                defaultFilters: [encrypt]
                """);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @ParameterizedTest
    @ValueSource(strings = { "lz4", "zstd" })
    void compressedBatchesFromLibrdkafkaAreReadBackInPlaintextAndTheBrokerHoldsOnlyCiphertext(String codec) throws Exception {
        String topic = "secure.librdkafka-" + codec;
        io.sluice.testkit.Topics.createTopics(cluster.getKafkaClientConfiguration(), List.of(new NewTopic(topic, 1, (short) 1)));
        List<Map.Entry<String, String>> records = IntStream.range(0, 30)
                .mapToObj(i -> Map.entry("customer-" + i, "card-4111-1111-1111-" + i + "-" + codec)).toList();
        List<String> values = records.stream().map(Map.Entry::getValue).toList();

        JsonNode produced = Librdkafka.of(proxy.bootstrapServers()).with("compression.type", codec).with("linger.ms", 200).produce(topic, records);
        assertThat(each(produced, "deliveries", "error")).hasSize(30).containsOnlyNulls();
        assertThat(produced.get("deliveries").get(29).get("offset").asLong()).isEqualTo(29);

        JsonNode throughProxy = Librdkafka.of(proxy.bootstrapServers()).consume(topic, "enc-" + codec, 30, 30);
        assertThat(each(throughProxy, "records", "value")).containsExactlyElementsOf(values);
        assertThat(each(throughProxy, "records", "key")).containsExactlyElementsOf(records.stream().map(Map.Entry::getKey).toList());
        assertThat(throughProxy.get("fetchErrors")).isEmpty();

        List<ConsumerRecord<byte[], byte[]>> direct = KafkaReads.fromStart(cluster.getKafkaClientConfiguration(), topic, 30,
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        assertThat(direct).hasSize(30).allSatisfy(r -> {
            assertThat(new String(r.value(), StandardCharsets.ISO_8859_1)).doesNotContain("card-4111");
            assertThat(r.headers().lastHeader(RecordCipher.MARKER_HEADER)).isNotNull();
        });
        JsonNode directByLibrdkafka = Librdkafka.of(cluster.getBootstrapServers()).consume(topic, "enc-direct-" + codec, 30, 30);
        assertThat(each(directByLibrdkafka, "records", "value")).hasSize(30).noneMatch(v -> v.contains("card-4111"));
    }
}
