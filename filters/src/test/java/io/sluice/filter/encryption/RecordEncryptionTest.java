package io.sluice.filter.encryption;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Real clients through the proxy see plaintext; a consumer reading the broker directly sees only
 * ciphertext. The KMS is the in-process one, behind a switch that can take it down ({@link SwitchableKmsService}).
 */
@ExtendWith(KafkaClusterExtension.class)
class RecordEncryptionTest {

    static KafkaCluster cluster;
    static ProxyFixture proxy;
    static ProxyFixture headerProxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", config(false));
        headerProxy = ProxyFixture.start(cluster.getBootstrapServers(), "", config(true));
    }

    @AfterAll
    static void stop() {
        proxy.close();
        headerProxy.close();
        SwitchableKmsService.up();
    }

    private static String config(boolean encryptHeaders) {
        return EncryptedTopics.proxyConfig("unresolvedKek: REJECT\nencryptHeaders: " + encryptHeaders);
    }

    @ParameterizedTest
    @ValueSource(strings = { "none", "gzip", "snappy", "lz4", "zstd" })
    void everyCodecRoundTripsThroughTheProxyAndTheBrokerHoldsOnlyCiphertext(String codec) throws Exception {
        String topic = secureTopic(Map.of());
        List<String> values = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(proxy, Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, 10))) {
            for (int i = 0; i < 50; i++) {
                String value = "card-4111-1111-1111-" + i + "-" + codec;
                values.add(value);
                producer.send(new ProducerRecord<>(topic, "customer-" + i, value));
            }
            producer.flush();
        }
        assertThat(consume(proxy, topic, 50)).extracting(ConsumerRecord::value).containsExactlyElementsOf(values);

        List<ConsumerRecord<byte[], byte[]>> direct = consumeDirect(topic, 50);
        assertThat(direct).hasSize(50).allSatisfy(r -> {
            assertThat(new String(r.value(), StandardCharsets.ISO_8859_1)).doesNotContain("card-4111");
            assertThat(r.headers().lastHeader(RecordCipher.MARKER_HEADER)).isNotNull();
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).startsWith("customer-");
        });
    }

    @Test
    void transactionsCommitAndAbortWithEncryptedRecords() throws Exception {
        String topic = secureTopic(Map.of());
        try (KafkaProducer<String, String> producer = producer(proxy, Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "enc-tx-" + UUID.randomUUID()))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "aborted"));
            producer.flush();
            producer.abortTransaction();
        }
        assertThat(consume(proxy, topic, 1, Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")))
                .extracting(ConsumerRecord::value).containsExactly("committed");
    }

    @Test
    void tombstonesStayTombstonesOnACompactedTopic() throws Exception {
        String topic = secureTopic(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
        try (KafkaProducer<String, String> producer = producer(proxy, Map.of())) {
            producer.send(new ProducerRecord<>(topic, "user-1", "profile")).get();
            producer.send(new ProducerRecord<>(topic, "user-1", null)).get();
        }
        List<ConsumerRecord<String, String>> viaProxy = consume(proxy, topic, 2);
        assertThat(viaProxy).extracting(ConsumerRecord::value).containsExactly("profile", null);
        List<ConsumerRecord<byte[], byte[]>> direct = consumeDirect(topic, 2);
        assertThat(direct.get(1).value()).isNull();
        assertThat(direct.get(1).headers().lastHeader(RecordCipher.MARKER_HEADER)).isNull();
    }

    @Test
    void headersAreEncryptedWhenConfiguredAndRestoredForProxyClients() throws Exception {
        String topic = secureTopic(Map.of());
        try (KafkaProducer<String, String> producer = producer(headerProxy, Map.of())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, "k", "v");
            record.headers().add(new RecordHeader("ssn", "078-05-1120".getBytes(StandardCharsets.UTF_8)));
            producer.send(record).get();
        }
        ConsumerRecord<String, String> viaProxy = consume(headerProxy, topic, 1).get(0);
        assertThat(new String(viaProxy.headers().lastHeader("ssn").value(), StandardCharsets.UTF_8)).isEqualTo("078-05-1120");
        assertThat(viaProxy.headers().lastHeader(RecordCipher.MARKER_HEADER)).isNull();
        ConsumerRecord<byte[], byte[]> direct = consumeDirect(topic, 1).get(0);
        assertThat(direct.headers().lastHeader("ssn")).isNull();
        assertThat(new String(direct.value(), StandardCharsets.ISO_8859_1)).doesNotContain("078-05");
    }

    @Test
    void topicsNotSelectedPassInPlaintext() throws Exception {
        String topic = "plain-" + UUID.randomUUID();
        new EncryptedTopics(cluster).create(topic, Map.of());
        try (KafkaProducer<String, String> producer = producer(proxy, Map.of())) {
            producer.send(new ProducerRecord<>(topic, "k", "visible")).get();
        }
        assertThat(new String(consumeDirect(topic, 1).get(0).value(), StandardCharsets.UTF_8)).isEqualTo("visible");
    }

    @Test
    void aRecordReplayedIntoAnotherTopicOnTheBrokerFailsToDecryptWithAClearError() throws Exception {
        String source = secureTopic(Map.of());
        String target = secureTopic(Map.of());
        try (KafkaProducer<String, String> producer = producer(proxy, Map.of())) {
            producer.send(new ProducerRecord<>(source, "k", "original")).get();
        }
        ConsumerRecord<byte[], byte[]> ciphertext = consumeDirect(source, 1).get(0);
        try (KafkaProducer<byte[], byte[]> direct = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            ProducerRecord<byte[], byte[]> replay = new ProducerRecord<>(target, ciphertext.key(), ciphertext.value());
            ciphertext.headers().forEach(h -> replay.headers().add(h));
            direct.send(replay).get();
        }
        assertThatThrownBy(() -> consume(proxy, target, 1)).isInstanceOf(KafkaException.class).hasMessageContaining("corrupt");
        assertThat(proxy.metric("sluice_encryption_fetch_failures_total", "")).isGreaterThan(0);
    }

    @Test
    void produceToATopicWhoseKekDoesNotExistIsRejectedAndNothingIsWritten() throws Exception {
        String topic = "secure.nokek-" + UUID.randomUUID();
        new EncryptedTopics(cluster).create(topic, Map.of());
        try (ProxyFixture strict = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: encrypt
                    type: RecordEncryption
                    config:
                      topics: ["secure.nokek-*"]
                      kek: "missing-$(topic)"
                      kms: SwitchableKmsService
                      kmsConfig:
                        keys: [sluice-test]
                defaultFilters: [encrypt]
                """);
             KafkaProducer<String, String> producer = producer(strict, Map.of(ProducerConfig.RETRIES_CONFIG, 0))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "k", "secret")).get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("missing-" + topic);
        }
        assertThat(directEndOffset(topic)).isZero();
    }

    @Test
    void kmsOutageFailsProduceRetriablyWritesNothingAndRecoversByItself() throws Exception {
        String topic = secureTopic(Map.of());
        // Warm the cache with one record: cached data keys keep serving during the outage for known KEKs,
        // so the outage is observed on a KEK the cache has not seen.
        String other = secureTopic(Map.of());
        try (KafkaProducer<String, String> producer = producer(proxy, Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, ProducerConfig.LINGER_MS_CONFIG, 0))) {
            producer.send(new ProducerRecord<>(topic, "k", "before")).get();
            SwitchableKmsService.down();
            producer.send(new ProducerRecord<>(topic, "k", "cached-key-still-serves")).get();
            var blocked = producer.send(new ProducerRecord<>(other, "k", "during"));
            Thread.sleep(1500);
            assertThat(blocked).isNotDone();
            assertThat(directEndOffset(other)).isZero();
            SwitchableKmsService.up();
            assertThat(blocked.get().offset()).isZero();
        }
        assertThat(consume(proxy, other, 1)).extracting(ConsumerRecord::value).containsExactly("during");
    }

    @Test
    void afterKekRotationNewRecordsUseTheNewVersionAndOldOnesStillDecrypt() throws Exception {
        String topic = secureTopic(Map.of());
        // One record per data key, so the record after the rotation needs a new data key.
        try (ProxyFixture oneRecordPerKey = ProxyFixture.start(cluster.getBootstrapServers(), "",
                EncryptedTopics.proxyConfig("keyCache:\n  dataKeys:\n    maxRecords: 1"));
             KafkaProducer<String, String> producer = producer(oneRecordPerKey, Map.of(ProducerConfig.LINGER_MS_CONFIG, 0))) {
            producer.send(new ProducerRecord<>(topic, "k", "old")).get();
            SwitchableKmsService.rotate("kek-" + topic);
            producer.send(new ProducerRecord<>(topic, "k", "new")).get();
        }
        assertThat(consume(proxy, topic, 2)).extracting(ConsumerRecord::value).containsExactly("old", "new");
        List<ConsumerRecord<byte[], byte[]>> direct = consumeDirect(topic, 2);
        EncryptedValue first = EncryptedValue.parse(java.nio.ByteBuffer.wrap(direct.get(0).value()));
        EncryptedValue second = EncryptedValue.parse(java.nio.ByteBuffer.wrap(direct.get(1).value()));
        assertThat(new String(first.wrappedKey(), StandardCharsets.US_ASCII)).contains(":v1:");
        assertThat(new String(second.wrappedKey(), StandardCharsets.US_ASCII)).contains(":v2:");
    }

    // ---- helpers ----

    private static String secureTopic(Map<String, String> configs) throws Exception {
        return new EncryptedTopics(cluster).secure(configs);
    }

    private static KafkaProducer<String, String> producer(ProxyFixture through, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(through.clientConfig());
        config.putAll(extra);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static List<ConsumerRecord<String, String>> consume(ProxyFixture through, String topic, int expected) {
        return consume(through, topic, expected, Map.of());
    }

    private static List<ConsumerRecord<String, String>> consume(ProxyFixture through, String topic, int expected, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(through.clientConfig());
        config.putAll(extra);
        return KafkaReads.fromStart(config, topic, expected, new StringDeserializer(), new StringDeserializer());
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeDirect(String topic, int expected) {
        return new EncryptedTopics(cluster).readDirect(topic, expected);
    }

    private static long directEndOffset(String topic) throws Exception {
        return new EncryptedTopics(cluster).endOffset(topic);
    }
}
