package io.sluice.filter.jwt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.records.ForgedBatches;
import io.sluice.filter.records.WireRecords;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.KafkaWire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * JwtAuth's key permissions against hostile record batches (raw Produce requests from an authenticated client) and
 * Fetch responses cut by the fetch size: unreadable records are refused before anything large is allocated and
 * never reach the broker, old formats are refused whatever their keys, and a key-restricted reader never receives a
 * byte of a record it may not read.
 */
@ExtendWith(KafkaClusterExtension.class)
class JwtHostileRecordsTest {

    private static final long MIB = 1024 * 1024;
    private static final Map<String, Object> LIVE_ONLY = Map.of(
            "keys", Map.of("jh-*", Map.of("read", List.of("live/*"), "write", List.of("live/*"))));

    static KafkaCluster cluster;
    static JwtProxy jwt;

    @BeforeAll
    static void start() throws Exception {
        jwt = JwtProxy.start(cluster);
    }

    @AfterAll
    static void stop() {
        jwt.close();
    }

    @Test
    void aBatchClaiming2To31RecordsIsCorrupt() throws Exception {
        refused("jh-claim", ForgedBatches.forge(CompressionType.GZIP, Integer.MAX_VALUE, ForgedBatches.record(0, "live/1", "v")),
                Errors.CORRUPT_MESSAGE, 16 * MIB);
    }

    @Test
    void aBatchWithMoreRecordsThanItsCountIsCorrupt() throws Exception {
        refused("jh-count", ForgedBatches.forge(CompressionType.LZ4, 1, ForgedBatches.record(0, "live/1", "a"), ForgedBatches.record(1, "secret/2", "b")),
                Errors.CORRUPT_MESSAGE, 16 * MIB);
    }

    @Test
    void aRecordBodyClaiming2GiBIsRefused() throws Exception {
        refused("jh-body", ForgedBatches.forge(CompressionType.ZSTD, 1, ForgedBatches.bodyLength(Integer.MAX_VALUE - 8), new byte[32]),
                Errors.MESSAGE_TOO_LARGE, 16 * MIB);
    }

    @Test
    void aDecompressionBombIsRefused() throws Exception {
        refused("jh-bomb", ForgedBatches.bomb(CompressionType.GZIP, "live/1", 64, (int) MIB), Errors.MESSAGE_TOO_LARGE, 48 * MIB);
    }

    @Test
    void anOldFormatBatchIsRefusedAsInvalidNotJudgedByItsKeys() throws Exception {
        refused("jh-old", ForgedBatches.oldFormat("secret/1", "not yours"), Errors.INVALID_RECORD, 16 * MIB);
    }

    @Test
    void aKeyRestrictedFetchCutByTheFetchSizeNeverCarriesAByteOfAForbiddenRecord() throws Exception {
        jwt.createTopics("jh-cut");
        WireRecords.produceBatches(cluster.getBootstrapServers(), "jh-cut", List.of(Map.entry("live/1", "fine"), Map.entry("secret/1", "SECRET-VALUE")));
        int firstBatch;
        try (KafkaWire broker = new KafkaWire(Integer.parseInt(cluster.getBootstrapServers().split(":")[1]))) {
            firstBatch = WireRecords.firstBatchBytes((MemoryRecords) WireRecords.fetch(broker, "jh-cut", 0, 1024 * 1024).records());
            assertThat(WireRecords.contains((MemoryRecords) WireRecords.fetch(broker, "jh-cut", 0, firstBatch + 80).records(), "secret/1"))
                    .as("the broker's own answer holds the cut batch's key").isTrue();
        }

        try (KafkaWire wire = authenticated()) {
            FetchResponseData.PartitionData partition = WireRecords.fetch(wire, "jh-cut", 0, firstBatch + 80);
            MemoryRecords records = (MemoryRecords) partition.records();
            assertThat(partition.errorCode()).isZero();
            assertThat(WireRecords.contains(records, "secret/1")).isFalse();
            assertThat(records.sizeInBytes()).isEqualTo(firstBatch);
        }
    }

    @Test
    void aKeyRestrictedConsumerWithASmallFetchSizeReadsAllItsRecords() throws Exception {
        jwt.createTopics("jh-small");
        List<Map.Entry<String, String>> written = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String key = i % 2 == 1 ? "secret/" + i : "live/" + i;
            String value = (i % 4 == 0 ? "x".repeat(4000) : "") + "v" + i;
            written.add(Map.entry(key, value));
            if (key.startsWith("live/")) {
                expected.add(key);
            }
        }
        WireRecords.produceBatches(cluster.getBootstrapServers(), "jh-small", written);

        Map<String, Object> config = jwt.clientConfig(token());
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 150);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        TopicPartition partition = new TopicPartition("jh-small", 0);
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while ((read.size() < expected.size() || consumer.position(partition) < 10) && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(r.key());
                }
            }
            assertThat(read).containsExactlyElementsOf(expected);
            assertThat(consumer.position(partition)).isEqualTo(10);
        }
    }

    /** Found by the mutation fuzzer: the refusal quoted the id, and a message over 32,767 characters was never sent. */
    @Test
    void aRefusedTransactionalIdOfTheLongestLengthIsStillAnswered() throws Exception {
        jwt.createTopics("jh-txn");
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("jh-txn").setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                .setIndex(0).setRecords(ForgedBatches.forge(CompressionType.NONE, 1, ForgedBatches.record(0, "live/1", "v"))))));
        try (KafkaWire wire = authenticated()) {
            ProduceResponseData response = wire.call(ApiKeys.PRODUCE, (short) 11, new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000)
                    .setTransactionalId("x".repeat(Short.MAX_VALUE)).setTopicData(topics));
            ProduceResponseData.PartitionProduceResponse partition = response.responses().iterator().next().partitionResponses().get(0);
            assertThat(Errors.forCode(partition.errorCode())).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            assertThat(partition.errorMessage()).startsWith("not permitted to use transactional id xxx").hasSizeLessThanOrEqualTo(1000);
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), "jh-txn")).isZero();
    }

    /** JwtAuth's own {@code records} limits, not the defaults, bound what it reads; what they refuse is counted. */
    @Test
    void aRecordOverTheConfiguredMaxRecordBytesIsRefusedAsTooLargeAndCounted() throws Exception {
        try (JwtProxy small = JwtProxy.withConfig(cluster, "records:\n  maxRecordBytes: 1024\n")) {
            small.createTopics("jh-limit");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(small.clientConfig(token()), new StringSerializer(), new StringSerializer())) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("jh-limit", "live/big", "x".repeat(4096))).get())
                        .hasCauseInstanceOf(RecordTooLargeException.class);
                producer.send(new ProducerRecord<>("jh-limit", "live/small", "fine")).get();
            }
            assertThat(small.metric("sluice_filter_records_unreadable_total", "reason=\"too_large\"")).isEqualTo(1);
            assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), "jh-limit")).as("written to the broker").isEqualTo(1);
        }
    }

    private static void refused(String topic, MemoryRecords records, Errors error, long maxAllocated) throws Exception {
        jwt.createTopics(topic);
        long before = ForgedBatches.proxyThreadsAllocated();
        try (KafkaWire wire = authenticated()) {
            ProduceResponseData.PartitionProduceResponse response = WireRecords.produce(wire, topic, records);
            assertThat(Errors.forCode(response.errorCode())).as(String.valueOf(response.errorMessage())).isEqualTo(error);
        }
        assertThat(ForgedBatches.proxyThreadsAllocated() - before).as("bytes the proxy allocated").isLessThan(maxAllocated);
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).as("written to the broker").isZero();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(jwt.clientConfig(token()), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "live/ok", "fine")).get();
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).isEqualTo(1);
    }

    private static KafkaWire authenticated() throws Exception {
        KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort());
        assertThat(wire.authenticate(token(), (short) 2).errorCode()).isZero();
        return wire;
    }

    private static String token() {
        return JwtProxy.token("mallory", Duration.ofMinutes(5), LIVE_ONLY);
    }
}
