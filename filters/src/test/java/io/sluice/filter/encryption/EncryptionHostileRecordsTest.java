package io.sluice.filter.encryption;

import java.util.List;
import java.util.UUID;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RecordEncryption against hostile produce batches: data keys are reserved for the records counted by reading them,
 * so a header's claim costs no KMS work, and nothing unreadable is encrypted or written.
 */
@ExtendWith(KafkaClusterExtension.class)
class EncryptionHostileRecordsTest {

    private static final String KEY_REQUESTS = "sluice_kms_cache_requests_total";
    private static final long MIB = 1024 * 1024;

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
                      kek: "kek-$(topic)"
                      kms: SwitchableKmsService
                      kmsConfig:
                        keys: [sluice-test]
                      records:
                        maxBatchBytes: 16777216
                defaultFilters: [encrypt]
                """);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aHeaderClaiming2To31RecordsReservesNoDataKeysAndIsCorrupt() throws Exception {
        refused(ForgedBatches.forge(CompressionType.ZSTD, Integer.MAX_VALUE, ForgedBatches.record(0, "k", "v")), Errors.CORRUPT_MESSAGE, 16 * MIB);
    }

    @Test
    void aBatchWithFewerRecordsThanItsCountIsCorrupt() throws Exception {
        refused(ForgedBatches.forge(CompressionType.NONE, 5, ForgedBatches.record(0, "k", "v")), Errors.CORRUPT_MESSAGE, 16 * MIB);
    }

    @Test
    void aDecompressionBombIsRefusedAtTheConfiguredBatchLimit() throws Exception {
        refused(ForgedBatches.bomb(CompressionType.ZSTD, "k", 40, (int) MIB), Errors.MESSAGE_TOO_LARGE, 32 * MIB);
    }

    private static void refused(MemoryRecords records, Errors error, long maxAllocated) throws Exception {
        String topic = "secure." + UUID.randomUUID();
        io.sluice.testkit.Topics.createTopics(cluster.getKafkaClientConfiguration(), List.of(new NewTopic(topic, 1, (short) 1)));
        SwitchableKmsService.createKey("kek-" + topic);
        double keyRequests = proxy.metric(KEY_REQUESTS, "");
        long allocated = ForgedBatches.proxyThreadsAllocated();
        double unreadable = proxy.metric("sluice_filter_records_unreadable_total", "direction=\"produce\"");

        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            ProduceResponseData.PartitionProduceResponse partition = WireRecords.produce(wire, topic, records);
            assertThat(Errors.forCode(partition.errorCode())).as(String.valueOf(partition.errorMessage())).isEqualTo(error);
        }

        assertThat(proxy.metric(KEY_REQUESTS, "")).as("data key requests").isEqualTo(keyRequests);
        assertThat(proxy.metric("sluice_filter_records_unreadable_total", "direction=\"produce\"")).isEqualTo(unreadable + 1);
        assertThat(ForgedBatches.proxyThreadsAllocated() - allocated).isLessThan(maxAllocated);
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).isZero();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(proxy.clientConfig(), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "fine")).get();
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), topic)).isEqualTo(1);
    }
}
