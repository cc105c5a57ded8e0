package io.sluice.kms.endtoend;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * RecordEncryption through a real proxy in front of a real broker, with each cloud KMS provider against a KMS it
 * really talks to over HTTP ({@link KmsUnderTest}: AWS against moto, Azure against the Key Vault stand-in, Google
 * against the Cloud KMS stand-in): the tests RecordEncryptionTest runs with the in-process KMS, provider by provider.
 * Each provider's KMS and proxy are started on its first test and kept for the class.
 */
@ExtendWith(KafkaClusterExtension.class)
class RecordEncryptionEndToEndTest {

    private static final int RECORDS = 20;
    /** What every value and header value carries, and what the broker must never hold. */
    private static final String CARD = "4111 1111 1111 1111";
    private static final String SSN = "078-05-1120";
    private static final String HEADER = "x-social-security-number";

    static KafkaCluster cluster;
    @TempDir
    static Path dir;

    private static final Map<String, KmsUnderTest> KMSES = new HashMap<>();
    private static final Map<String, ProxyFixture> PROXIES = new HashMap<>();

    @AfterAll
    static void stop() throws Exception {
        for (ProxyFixture proxy : PROXIES.values()) {
            proxy.close();
        }
        for (KmsUnderTest kms : KMSES.values()) {
            kms.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "aws", "azure", "gcp" })
    void theBrokerHoldsOnlyCiphertextAndClientsOfTheProxyReadEveryRecordBack(String provider) throws Exception {
        KmsUnderTest kms = kms(provider);
        String topic = secureTopic(kms);
        List<Plain> sent = produce(proxy(kms), topic);

        List<ConsumerRecord<byte[], byte[]>> direct = KafkaReads.fromStart(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()),
                topic, RECORDS, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        assertThat(direct).hasSize(RECORDS).allSatisfy(r -> {
            String stored = stored(r);
            assertThat(stored).doesNotContain(CARD).doesNotContain(SSN).doesNotContain(HEADER);
            // Keys are not encrypted (a partitioner and compaction need them): they are what was sent.
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).startsWith("customer-");
        });

        assertThat(consume(proxy(kms), topic)).containsExactlyElementsOf(sent);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "aws", "azure", "gcp" })
    void aNewProxyWithAnEmptyKeyCacheDecryptsEveryRecordFromTheKms(String provider) throws Exception {
        KmsUnderTest kms = kms(provider);
        String topic = secureTopic(kms);
        List<Plain> sent;
        try (ProxyFixture first = startProxy(kms)) {
            sent = produce(first, topic);
        }
        try (ProxyFixture second = startProxy(kms)) {
            assertThat(consume(second, topic)).containsExactlyElementsOf(sent);
            // Its keys came from the KMS, not from a cache the first proxy filled.
            assertThat(second.metric("sluice_kms_calls_seconds_count", "operation=\"unwrap\",outcome=\"success\"")).isGreaterThanOrEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "aws", "azure", "gcp" })
    void aKekTheKmsRefusesFailsTheProduceWithPolicyViolationAndNothingReachesTheBroker(String provider) throws Exception {
        KmsUnderTest kms = kms(provider);
        String topic = secureTopic(kms);
        kms.refuse(kms.kekOf(topic));
        Map<String, Object> config = new HashMap<>(proxy(kms).clientConfig());
        config.put(ProducerConfig.RETRIES_CONFIG, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(record(topic, 0)).get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(PolicyViolationException.class)
                    .hasMessageContaining("KEK '" + kms.kekOf(topic) + "'");
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).isZero();
    }

    // ---- helpers ----

    /** A record as a client sees it. */
    record Plain(String key, String value, List<String> headers) {
        static Plain of(String key, String value, Iterable<Header> headers) {
            List<String> named = new ArrayList<>();
            headers.forEach(h -> named.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8)));
            return new Plain(key, value, named);
        }
    }

    private static synchronized KmsUnderTest kms(String provider) throws Exception {
        KmsUnderTest kms = KMSES.get(provider);
        if (kms == null) {
            kms = KmsUnderTest.start(provider, dir);
            KMSES.put(provider, kms);
        }
        return kms;
    }

    private static synchronized ProxyFixture proxy(KmsUnderTest kms) {
        return PROXIES.computeIfAbsent(kms.provider(), p -> startProxy(kms));
    }

    /** A proxy with RecordEncryption on {@code secure-*}, headers encrypted too, its KMS as a user configures it. */
    private static ProxyFixture startProxy(KmsUnderTest kms) {
        String config = """
                topics: ["secure-*"]
                kek: "%s"
                encryptHeaders: true
                """.formatted(kms.kekTemplate()) + kms.kmsYaml();
        return ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: encrypt
                    type: RecordEncryption
                    config:
                """ + config.lines().map(line -> "      " + line + "\n").reduce("", String::concat) + """
                defaultFilters: [encrypt]
                """);
    }

    /** A new topic that RecordEncryption encrypts, and its KEK in the KMS. */
    private static String secureTopic(KmsUnderTest kms) throws Exception {
        String topic = "secure-" + UUID.randomUUID();
        Topics.createTopics(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()), List.of(new NewTopic(topic, 1, (short) 1)));
        kms.createKek(kms.kekOf(topic));
        return topic;
    }

    private static ProducerRecord<String, String> record(String topic, int i) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, "customer-" + i, "card " + CARD + " of customer " + i);
        record.headers().add(new RecordHeader(HEADER, (SSN + " of customer " + i).getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("trace", ("trace-" + i).getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /** Writes {@link #RECORDS} records through {@code proxy}, each acknowledged; what was sent. */
    private static List<Plain> produce(ProxyFixture proxy, String topic) throws Exception {
        List<Plain> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(proxy.clientConfig(), new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                ProducerRecord<String, String> record = record(topic, i);
                acks.add(producer.send(record));
                sent.add(Plain.of(record.key(), record.value(), record.headers()));
            }
            for (java.util.concurrent.Future<?> ack : acks) {
                ack.get();
            }
        }
        return sent;
    }

    private static List<Plain> consume(ProxyFixture proxy, String topic) {
        return KafkaReads.fromStart(proxy.clientConfig(), topic, RECORDS, new StringDeserializer(), new StringDeserializer()).stream()
                .map(r -> Plain.of(r.key(), r.value(), r.headers())).toList();
    }

    /** A record's value and headers, names and values, as the broker stores them. */
    private static String stored(ConsumerRecord<byte[], byte[]> record) {
        StringBuilder stored = new StringBuilder(new String(record.value(), StandardCharsets.ISO_8859_1));
        for (Header h : record.headers()) {
            stored.append('\n').append(h.key()).append('=').append(new String(h.value(), StandardCharsets.ISO_8859_1));
        }
        return stored.toString();
    }
}
