package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.jwt.JwtProxy;
import io.sluice.kms.DataKey;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What someone who can write records to the broker (directly, or through the proxy to another topic) can and cannot
 * do to readers of encrypted and unencrypted topics, with real clients through the proxy and records written to the
 * broker by a plain producer.
 */
@ExtendWith(KafkaClusterExtension.class)
class RecordEncryptionIntegrityTest {

    static KafkaCluster cluster;
    static EncryptedTopics topics;
    /** The default policy: an undecryptable record fails its partition. */
    static ProxyFixture failing;
    static ProxyFixture dropping;

    @BeforeAll
    static void start() {
        topics = new EncryptedTopics(cluster);
        failing = ProxyFixture.start(cluster.getBootstrapServers(), "", EncryptedTopics.proxyConfig(""));
        dropping = ProxyFixture.start(cluster.getBootstrapServers(), "", EncryptedTopics.proxyConfig("onUndecryptable: DROP"));
    }

    @AfterAll
    static void stop() {
        failing.close();
        dropping.close();
    }

    // ---- item 8: the marker means nothing outside encrypted topics ----

    @Test
    void aForgedMarkerOnAnUnencryptedTopicIsDeliveredAsIsAndTheRestOfThePartitionStaysReadable() throws Exception {
        String topic = "plain-" + UUID.randomUUID();
        topics.create(topic, Map.of());
        try (KafkaProducer<String, String> producer = producer(failing)) {
            producer.send(new ProducerRecord<>(topic, "a", "before")).get();
            ProducerRecord<String, String> forged = new ProducerRecord<>(topic, "b", "\u0002 not encrypted at all");
            forged.headers().add(RecordCipher.MARKER_HEADER, new byte[] { 2 });
            producer.send(forged).get();
            producer.send(new ProducerRecord<>(topic, "c", "after")).get();
        }

        for (ProxyFixture reader : List.of(failing, dropping)) {
            List<ConsumerRecord<String, String>> read = consume(reader.clientConfig(), topic, 3);
            assertThat(read).extracting(ConsumerRecord::value).containsExactly("before", "\u0002 not encrypted at all", "after");
            assertThat(read.get(1).headers().lastHeader(RecordCipher.MARKER_HEADER).value()).containsExactly(2);
        }
    }

    // ---- item 10: every field of a v2 envelope is authenticated ----

    @Test
    void tamperedVersion2EnvelopesAreDetectedNeverDelivered() throws Exception {
        String topic = secureTopic();
        produce(failing, topic, "k", "genuine-1");
        ConsumerRecord<byte[], byte[]> stored = consumeDirect(topic, 1).get(0);
        EncryptedValue genuine = EncryptedValue.parse(ByteBuffer.wrap(stored.value()));
        assertThat(genuine.version()).isEqualTo(2);
        byte[] otherWrappedKey = SwitchableKmsService.dataKey("kek-" + topic).wrapped().ciphertext();
        String otherKek = "kek-" + secureTopic();

        writeDirect(topic, stored.key(), envelope(genuine, v -> v.flags() ^ EncryptedValue.FLAG_HEADERS, null, null, null), stored.headers().toArray());
        writeDirect(topic, stored.key(), envelope(genuine, EncryptedValue::flags, null, otherKek, null), stored.headers().toArray());
        byte[] iv = genuine.iv().clone();
        iv[0] ^= 1;
        writeDirect(topic, stored.key(), envelope(genuine, EncryptedValue::flags, null, null, iv), stored.headers().toArray());
        writeDirect(topic, stored.key(), envelope(genuine, EncryptedValue::flags, otherWrappedKey, null, null), stored.headers().toArray());
        produce(failing, topic, "k", "genuine-2");

        double droppedBefore = dropping.metric("sluice_encryption_records_undecryptable_total", "action=\"drop\"");
        assertThat(consume(dropping.clientConfig(), topic, 2)).extracting(ConsumerRecord::value).containsExactly("genuine-1", "genuine-2");
        assertThat(dropping.metric("sluice_encryption_records_undecryptable_total", "action=\"drop\"") - droppedBefore).isEqualTo(4);

        assertThatThrownBy(() -> consume(failing.clientConfig(), topic, 2)).isInstanceOf(KafkaException.class).hasMessageContaining("corrupt");
        assertThat(failing.metric("sluice_encryption_records_undecryptable_total", "action=\"fail\"")).isPositive();
    }

    @Test
    void version1RecordsWrittenInTheOldFormatRemainReadable() throws Exception {
        String topic = secureTopic();
        DataKey dataKey = SwitchableKmsService.dataKey("kek-" + topic);
        byte[] key = "legacy-key".getBytes(StandardCharsets.UTF_8);
        byte[] value = version1Envelope(topic, key, "written by Sluice before format v2".getBytes(StandardCharsets.UTF_8), dataKey);
        writeDirect(topic, key, value, new Header[] { new RecordHeader(RecordCipher.MARKER_HEADER, new byte[] { 1 }) });
        produce(failing, topic, "new-key", "written in format v2");

        assertThat(consume(failing.clientConfig(), topic, 2)).extracting(ConsumerRecord::value)
                .containsExactly("written by Sluice before format v2", "written in format v2");
    }

    // ---- item 8: a bogus wrapped key costs one KMS call ----

    @Test
    void aBogusWrappedKeyCostsOneKmsUnwrapHoweverOftenConsumersRetry() throws Exception {
        String topic = secureTopic();
        produce(failing, topic, "k", "genuine");
        ConsumerRecord<byte[], byte[]> stored = consumeDirect(topic, 1).get(0);
        byte[] bogus = new byte[60];
        new SecureRandom().nextBytes(bogus);
        byte[] bogusWrapped = ("inprocess:v1:" + Base64.getEncoder().encodeToString(bogus)).getBytes(StandardCharsets.US_ASCII);
        writeDirect(topic, stored.key(), envelope(EncryptedValue.parse(ByteBuffer.wrap(stored.value())), EncryptedValue::flags, bogusWrapped, null, null),
                stored.headers().toArray());

        double failuresBefore = failing.metric("sluice_encryption_fetch_failures_total", "");
        int corruptPolls = 0;
        for (int consumer = 0; consumer < 2; consumer++) {
            Map<String, Object> config = new HashMap<>(failing.clientConfig());
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                c.assign(List.of(new TopicPartition(topic, 0)));
                long deadline = System.currentTimeMillis() + 20_000;
                int mine = 0;
                while (mine < 3 && System.currentTimeMillis() < deadline) {
                    try {
                        c.poll(Duration.ofMillis(200));
                    } catch (KafkaException corrupt) {
                        assertThat(corrupt).hasMessageContaining("corrupt");
                        mine++;
                    }
                }
                corruptPolls += mine;
            }
        }

        assertThat(corruptPolls).isEqualTo(6);
        assertThat(failing.metric("sluice_encryption_fetch_failures_total", "") - failuresBefore).isGreaterThanOrEqualTo(6);
        assertThat(SwitchableKmsService.unwrapCalls(bogusWrapped)).as("KMS unwrap calls for the bogus wrapped key").isEqualTo(1);
        assertThat(failing.metric("sluice_kms_cache_requests_total", "result=\"refused\"")).isPositive();
    }

    // ---- item 8: a record a key-restricted reader may not see cannot hurt it ----

    @Test
    void anUndecryptableRecordUnderAKeyTheReaderMayNotSeeDoesNotFailItsPartition() throws Exception {
        String topic = secureTopic();
        produce(failing, topic, "mine-1", "a");
        produce(failing, topic, "theirs", "x");
        List<ConsumerRecord<byte[], byte[]>> stored = consumeDirect(topic, 2);
        ConsumerRecord<byte[], byte[]> theirs = stored.get(1);
        byte[] iv = EncryptedValue.parse(ByteBuffer.wrap(theirs.value())).iv().clone();
        iv[5] ^= 1;
        writeDirect(topic, theirs.key(), envelope(EncryptedValue.parse(ByteBuffer.wrap(theirs.value())), EncryptedValue::flags, null, null, iv),
                theirs.headers().toArray());
        produce(failing, topic, "mine-2", "b");

        try (JwtProxy jwt = JwtProxy.start(cluster, EncryptedTopics.filterDefinition(""), List.of("jwt", "encrypt"))) {
            String restricted = JwtProxy.token("reader", Duration.ofMinutes(10), Map.of("keys", Map.of(topic, Map.of("read", List.of("mine-*")))));
            assertThat(consume(jwt.clientConfig(restricted), topic, 2)).extracting(ConsumerRecord::value).containsExactly("a", "b");

            String everything = JwtProxy.token("auditor", Duration.ofMinutes(10), Map.of("topics", Map.of(topic, List.of("read"))));
            assertThatThrownBy(() -> consume(jwt.clientConfig(everything), topic, 3)).isInstanceOf(KafkaException.class).hasMessageContaining("corrupt");
        }
    }

    // ---- share groups (KIP-932) get records by ShareFetch, which must be decrypted as well ----

    @Test
    void shareConsumersReadPlaintextNotCiphertext() throws Exception {
        String topic = secureTopic();
        String group = "share-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
        }
        produce(failing, topic, "k", "shared secret");

        Map<String, Object> config = new HashMap<>(failing.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        List<ConsumerRecord<String, String>> read = new ArrayList<>();
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30_000;
            while (read.isEmpty() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
        }
        assertThat(read).extracting(ConsumerRecord::value).containsExactly("shared secret");
        assertThat(read.get(0).headers().lastHeader(RecordCipher.MARKER_HEADER)).isNull();
    }

    // ---- item 9: a topic id that cannot be resolved is refused, not forwarded in plaintext ----

    @Test
    void aTopicIdTheProxyCannotResolveIsRefusedOnProduceV13AndWithheldOnFetchV13() throws Exception {
        String topic = "secure.hidden-" + UUID.randomUUID();
        topics.create(topic, Map.of());
        SwitchableKmsService.createKey("kek-" + topic);
        Uuid id;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()))) {
            id = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
        }
        // The Metadata lookup by id goes through HideTopics, nearer the broker: the id resolves to nothing.
        String definitions = EncryptedTopics.filterDefinition("") + """
                - name: hide
                  type: HideTopics
                  config:
                    prefix: "secure.hidden-"
                """;
        try (ProxyFixture hiding = ProxyFixture.start(cluster.getBootstrapServers(), "", "filterDefinitions:\n"
                + definitions.lines().map(line -> "  " + line + "\n").reduce("", String::concat) + "defaultFilters: [encrypt, hide]\n");
             KafkaWire wire = new KafkaWire(hiding.bootstrapPort())) {
            ProduceRequestData produce = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
            produce.topicData().add(new ProduceRequestData.TopicProduceData().setTopicId(id).setPartitionData(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(Compression.NONE,
                            new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "card 4111-1111-1111-1111".getBytes(StandardCharsets.UTF_8)))))));

            ProduceResponseData response = wire.call(ApiKeys.PRODUCE, (short) 13, produce);

            ProduceResponseData.PartitionProduceResponse partition = response.responses().iterator().next().partitionResponses().get(0);
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
            assertThat(hiding.metric("sluice_encryption_unknown_topic_ids_total", "")).isEqualTo(1);
            assertThat(topics.endOffset(topic)).as("records written to the broker").isZero();

            // The same on the way back: records of a topic id that cannot be resolved might be ciphertext.
            writeDirect(topic, "k".getBytes(StandardCharsets.UTF_8), "stored as it is".getBytes(StandardCharsets.UTF_8), new Header[0]);
            FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                    .setSessionId(0).setSessionEpoch(-1);
            fetch.topics().add(new FetchRequestData.FetchTopic().setTopicId(id).setPartitions(List.of(
                    new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));

            FetchResponseData fetched = wire.call(ApiKeys.FETCH, (short) 13, fetch);

            FetchResponseData.PartitionData fetchedPartition = fetched.responses().get(0).partitions().get(0);
            assertThat(Errors.forCode(fetchedPartition.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
            assertThat(fetchedPartition.records() == null || fetchedPartition.records().sizeInBytes() == 0).as("no records delivered").isTrue();
        }
    }

    // ---- helpers ----

    /** The envelope of {@code genuine} with some fields replaced (null: as they were), its ciphertext unchanged. */
    private static byte[] envelope(EncryptedValue genuine, java.util.function.ToIntFunction<EncryptedValue> flags, byte[] wrappedKey, String kekName,
                                   byte[] iv) {
        byte[] wrapped = wrappedKey != null ? wrappedKey : genuine.wrappedKey();
        byte[] kek = (kekName != null ? kekName : genuine.kekName()).getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(EncryptedValue.prefixSize(wrapped.length, kek.length) + genuine.ciphertext().remaining());
        EncryptedValue.writePrefix(out, (byte) genuine.version(), flags.applyAsInt(genuine), wrapped, kek, iv != null ? iv : genuine.iv());
        out.put(genuine.ciphertext().duplicate());
        return out.array();
    }

    /**
     * A value in format v1 as docs/encryption-format.md describes it and the code before v2 wrote it (the same
     * construction is checked against that code's output in {@link RecordCipherTest#V1_VECTOR}).
     */
    private static byte[] version1Envelope(String topic, byte[] key, byte[] plaintext, DataKey dataKey) throws Exception {
        byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        ByteBuffer aad = ByteBuffer.allocate(9 + 2 + topicBytes.length + 4 + key.length);
        aad.put("sluice.v1".getBytes(StandardCharsets.US_ASCII)).putShort((short) topicBytes.length).put(topicBytes).putInt(key.length).put(key);
        byte[] iv = new byte[12];
        new SecureRandom().nextBytes(iv);
        Cipher gcm = Cipher.getInstance("AES/GCM/NoPadding");
        gcm.init(Cipher.ENCRYPT_MODE, dataKey.key(), new GCMParameterSpec(128, iv));
        gcm.updateAAD(aad.array());
        byte[] ciphertext = gcm.doFinal(plaintext);
        byte[] wrapped = dataKey.wrapped().ciphertext();
        byte[] kek = dataKey.wrapped().kekName().getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(EncryptedValue.prefixSize(wrapped.length, kek.length) + ciphertext.length);
        EncryptedValue.writePrefix(out, EncryptedValue.VERSION_1, 0, wrapped, kek, iv);
        return out.put(ciphertext).array();
    }

    private static String secureTopic() throws Exception {
        return topics.secure(Map.of());
    }

    private static KafkaProducer<String, String> producer(ProxyFixture through) {
        Map<String, Object> config = new HashMap<>(through.clientConfig());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static void produce(ProxyFixture through, String topic, String key, String value) throws Exception {
        try (KafkaProducer<String, String> producer = producer(through)) {
            producer.send(new ProducerRecord<>(topic, key, value)).get();
        }
    }

    private static void writeDirect(String topic, byte[] key, byte[] value, Header[] headers) throws Exception {
        topics.writeDirect(topic, key, value, headers);
    }

    private static List<ConsumerRecord<String, String>> consume(Map<String, Object> clientConfig, String topic, int expected) {
        return KafkaReads.fromStart(clientConfig, topic, expected, new StringDeserializer(), new StringDeserializer());
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeDirect(String topic, int expected) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>(topics.readDirect(topic, expected));
        assertThat(records).hasSize(expected);
        return records;
    }
}
