package io.sluice.filter.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
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
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * KeyRouting against hostile record batches, as raw Produce requests, and against Fetch responses cut by the
 * fetch size: nothing is allocated from a header's claims, nothing unreadable reaches the broker, and a virtual
 * topic's reader never receives a byte of a record that is not its own.
 */
@ExtendWith(KafkaClusterExtension.class)
class KeyRoutingHostileRecordsTest {

    private static final long MIB = 1024 * 1024;

    static KafkaCluster cluster;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: routing
                    type: KeyRouting
                    config:
                      routes:
                        - { virtual: "hr-$(t).live", topic: "hr-$(t)", key: "live/*" }
                defaultFilters: [routing]
                """);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aBatchClaiming2To31RecordsIsCorruptAndNothingIsWritten() throws Exception {
        refused("hr-claim", ForgedBatches.forge(CompressionType.ZSTD, Integer.MAX_VALUE, ForgedBatches.record(0, "live/1", "v")),
                Errors.CORRUPT_MESSAGE, 16 * MIB);
    }

    @Test
    void aBatchWithFewerRecordsThanItsCountIsCorrupt() throws Exception {
        refused("hr-count", ForgedBatches.forge(CompressionType.NONE, 3, ForgedBatches.record(0, "live/1", "a"), ForgedBatches.record(1, "live/2", "b")),
                Errors.CORRUPT_MESSAGE, 16 * MIB);
    }

    @Test
    void aRecordBodyClaiming2GiBIsRefusedWithoutAllocatingIt() throws Exception {
        refused("hr-body", ForgedBatches.forge(CompressionType.GZIP, 1, ForgedBatches.bodyLength(Integer.MAX_VALUE - 8), new byte[32]),
                Errors.MESSAGE_TOO_LARGE, 16 * MIB);
    }

    @Test
    void aDecompressionBombIsRefusedAtTheBatchLimit() throws Exception {
        // 64 MiB of zeros with a key of the view, a few KiB compressed: the broker would take it.
        MemoryRecords bomb = ForgedBatches.bomb(CompressionType.ZSTD, "live/1", 64, (int) MIB);
        assertThat(bomb.sizeInBytes()).isLessThan(64 * 1024);
        refused("hr-bomb", bomb, Errors.MESSAGE_TOO_LARGE, 48 * MIB);
    }

    @Test
    void anOldFormatBatchIsRefusedWhateverItsKey() throws Exception {
        refused("hr-old", ForgedBatches.oldFormat("secret/1", "not yours"), Errors.INVALID_RECORD, 16 * MIB);
    }

    @Test
    void aFetchCutByTheFetchSizeNeverCarriesAByteOfAnotherKeysRecord() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "hr-cut");
        WireRecords.produceBatches(cluster.getBootstrapServers(), "hr-cut", List.of(Map.entry("live/1", "fine"), Map.entry("secret/1", "SECRET-VALUE")));
        int firstBatch;
        try (KafkaWire broker = new KafkaWire(Integer.parseInt(cluster.getBootstrapServers().split(":")[1]))) {
            firstBatch = WireRecords.firstBatchBytes((MemoryRecords) WireRecords.fetch(broker, "hr-cut", 0, 1024 * 1024).records());
            // What the broker itself returns for that fetch size: the second batch cut short after its key.
            MemoryRecords raw = (MemoryRecords) WireRecords.fetch(broker, "hr-cut", 0, firstBatch + 80).records();
            assertThat(WireRecords.contains(raw, "secret/1")).isTrue();
        }

        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            FetchResponseData.PartitionData partition = WireRecords.fetch(wire, "hr-cut.live", 0, firstBatch + 80);
            MemoryRecords records = (MemoryRecords) partition.records();
            assertThat(partition.errorCode()).isZero();
            assertThat(WireRecords.contains(records, "secret/1")).isFalse();
            assertThat(WireRecords.contains(records, "SECRET")).isFalse();
            assertThat(records.sizeInBytes()).isEqualTo(firstBatch);
        }
    }

    @Test
    void aConsumerWithASmallFetchSizeReadsEveryRecordOfItsKeysIncludingOnesLargerThanTheFetchSize() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "hr-small");
        List<Map.Entry<String, String>> written = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            String value = (i % 4 == 0 ? "x".repeat(5000) : "") + "v" + i;
            String key = i % 3 == 2 ? "secret/" + i : "live/" + i;
            written.add(Map.entry(key, value));
            if (key.startsWith("live/")) {
                expected.add(key + "=" + value.length());
            }
        }
        WireRecords.produceBatches(cluster.getBootstrapServers(), "hr-small", written);

        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "hr-small-reader");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 200);
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition("hr-small.live", 0)));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read.size() < expected.size() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    read.add(r.key() + "=" + r.value().length());
                }
            }
            assertThat(read).containsExactlyElementsOf(expected);
            TopicPartition partition = new TopicPartition("hr-small.live", 0);
            while (consumer.position(partition) < 12 && System.nanoTime() < deadline) {
                assertThat(consumer.poll(Duration.ofMillis(200))).isEmpty();
            }
            assertThat(consumer.position(partition)).as("moved past the last, forbidden, record").isEqualTo(12);
        }
    }

    /** Sends {@code records} to {@code <topic>.live} over the wire and checks the refusal and its cost. */
    private static void refused(String topic, MemoryRecords records, Errors error, long maxAllocated) throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), topic);
        double unreadable = proxy.metric("sluice_filter_records_unreadable_total", "direction=\"produce\"");
        long before = ForgedBatches.proxyThreadsAllocated();
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            ProduceResponseData.PartitionProduceResponse response = WireRecords.produce(wire, topic + ".live", records);
            assertThat(Errors.forCode(response.errorCode())).as(response.errorMessage()).isEqualTo(error);
        }
        assertThat(ForgedBatches.proxyThreadsAllocated() - before).as("bytes the proxy allocated").isLessThan(maxAllocated);
        assertThat(proxy.metric("sluice_filter_records_unreadable_total", "direction=\"produce\"")).isEqualTo(unreadable + 1);
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).as("written to the broker").isZero();
        // Other clients are served as before.
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(proxy.clientConfig(), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic + ".live", "live/ok", "fine")).get();
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).isEqualTo(1);
    }

}
