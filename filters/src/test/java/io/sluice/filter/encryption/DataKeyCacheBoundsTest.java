package io.sluice.filter.encryption;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.records.ForgedBatches;
import io.sluice.filter.records.WireRecords;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Topic names a client chooses (any name matching {@code secure.*} here, as a write grant on {@code team-a.*} would
 * allow) become KEK names through the template, and so data key cache entries and KMS lookups. Through the proxy: the
 * cache stays within {@code keyCache.dataKeys.maxEntries}, and a topic whose KEK does not exist costs one KMS lookup
 * per {@code failureTtl}, while its producer gets a clear error every time.
 */
@ExtendWith(KafkaClusterExtension.class)
class DataKeyCacheBoundsTest {

    private static final int MAX_ENTRIES = 3;

    static KafkaCluster cluster;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", EncryptedTopics.proxyConfig("""
                keyCache:
                  dataKeys: { maxEntries: %d, failureTtl: 1h, maxFailures: 5 }
                """.formatted(MAX_ENTRIES)));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void produceToManyClientChosenTopicsKeepsTheDataKeyCacheWithinItsBound() throws Exception {
        double evictions = proxy.metric("sluice_kms_cache_evictions_total", "cache=\"data_key\",reason=\"size\"");
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            for (int i = 0; i < 12; i++) {
                // Topics the broker does not even have: the KEK is looked up before the broker answers.
                String topic = "secure.chosen-" + i + "-" + UUID.randomUUID();
                SwitchableKmsService.createKey("kek-" + topic);
                ProduceResponseData.PartitionProduceResponse answer = WireRecords.produce(wire, topic,
                        ForgedBatches.forge(CompressionType.NONE, 1, ForgedBatches.record(0, "k", "v")));
                assertThat(Errors.forCode(answer.errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
                assertThat(proxy.metric("sluice_kms_cache_entries", "cache=\"data_key\"")).isLessThanOrEqualTo(MAX_ENTRIES);
                assertThat(proxy.metric("sluice_kms_cache_keys", "cache=\"data_key\"")).isLessThanOrEqualTo(MAX_ENTRIES);
            }
        }
        assertThat(proxy.metric("sluice_kms_cache_evictions_total", "cache=\"data_key\",reason=\"size\"")).isGreaterThanOrEqualTo(evictions + 12 - MAX_ENTRIES);
    }

    @Test
    void aTopicWhoseKekDoesNotExistCostsOneKmsLookupAndEveryProduceStillGetsAClearError() throws Exception {
        String topic = "secure.nokek-" + UUID.randomUUID();
        new EncryptedTopics(cluster).create(topic, Map.of());
        double refused = proxy.metric("sluice_kms_cache_requests_total", "cache=\"data_key\",result=\"refused\"");
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ProducerConfig.RETRIES_CONFIG, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 10; i++) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "k", "secret")).get())
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidRecordException.class)
                        .hasMessageContaining("KEK 'kek-" + topic + "', which the KMS does not have");
            }
        }
        assertThat(SwitchableKmsService.resolveCalls("kek-" + topic)).as("KMS lookups of the missing KEK").isEqualTo(1);
        assertThat(proxy.metric("sluice_kms_cache_requests_total", "cache=\"data_key\",result=\"refused\"")).isEqualTo(refused + 9);
        assertThat(new EncryptedTopics(cluster).endOffset(topic)).isZero();
    }
}
