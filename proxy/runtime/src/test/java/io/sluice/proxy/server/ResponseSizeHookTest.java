package io.sluice.proxy.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.Records;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.proxy.testing.filters.FetchSizeHook;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Response size hooks ({@code RequestFilterResultBuilder.withResponseSizeHook}) with a real broker: the hook is given
 * each Fetch response's size as the broker sent it, the throttle it asks for is in the bytes the client reads (a raw
 * client and kafka-clients' consumer, which backs off by it), and misuse (a throwing hook, a hook on Produce, whose
 * response does not begin with throttle_time_ms) closes the connection as a failing filter.
 */
@ExtendWith(KafkaClusterExtension.class)
class ResponseSizeHookTest {

    private static final int RECORDS = 20;

    static KafkaCluster cluster;

    @BeforeEach
    void forget() {
        FetchSizeHook.SIZES.clear();
    }

    @Test
    void theHookIsGivenTheResponsesSizeAndTheThrottleItAsksForIsInTheBytesTheClientReads() throws Exception {
        try (ProxyFixture proxy = withHook("mode: note\n      throttleMs: 345")) {
            String topic = topicWithRecords();
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                FetchResponseData response = wire.call(ApiKeys.FETCH, (short) 12, fetch(topic));
                assertThat(response.throttleTimeMs()).isEqualTo(345);
                FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
                assertThat(partition.errorCode()).isZero();
                int count = 0;
                for (RecordBatch batch : ((Records) partition.records()).batches()) {
                    count += (int) (batch.lastOffset() - batch.baseOffset() + 1);
                }
                assertThat(count).as("the records arrive whole behind the raised throttle").isEqualTo(RECORDS);
                assertThat(FetchSizeHook.SIZES).containsExactly(wire.lastResponseBytes());
            }
        }
    }

    @Test
    void aConsumerReadsEverythingAndBacksOffByTheThrottle() throws Exception {
        try (ProxyFixture proxy = withHook("mode: note\n      throttleMs: 200")) {
            String topic = topicWithRecords();
            Map<String, Object> config = new HashMap<>(proxy.clientConfig());
            config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            config.put(ConsumerConfig.GROUP_ID_CONFIG, "size-hook-" + UUID.randomUUID());
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition(topic, 0)));
                List<String> values = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (values.size() < RECORDS && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        values.add(r.value());
                    }
                }
                assertThat(values).hasSize(RECORDS).startsWith("value-0").endsWith("value-" + (RECORDS - 1));
                double throttleMax = consumer.metrics().entrySet().stream()
                        .filter(e -> e.getKey().name().equals("fetch-throttle-time-max"))
                        .map(Map.Entry::getValue).mapToDouble(m -> ((Number) ((Metric) m).metricValue()).doubleValue()).max().orElse(0);
                assertThat(throttleMax).as("kafka-clients read the throttle from the response").isEqualTo(200.0);
            }
            assertThat(FetchSizeHook.SIZES).isNotEmpty().allMatch(size -> size > 0);
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"hook\"")).isZero();
        }
    }

    @Test
    void aHookThatThrowsClosesTheConnectionAndCountsAFilterError() throws Exception {
        try (ProxyFixture proxy = withHook("mode: fail")) {
            String topic = topicWithRecords();
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                wire.send(ApiKeys.FETCH, (short) 12, fetch(topic));
                assertThat(wire.closedByPeer()).as("closed by the proxy, no response first").isTrue();
            }
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"hook\"")).isEqualTo(1);
        }
    }

    @Test
    void aHookOnAnApiWhoseResponseDoesNotBeginWithTheThrottleClosesTheConnectionBeforeTheRequestGoesOn() throws Exception {
        try (ProxyFixture proxy = withHook("mode: produce")) {
            String topic = topicWithRecords();
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                ProduceRequestData produce = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5_000);
                produce.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                        new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("x".getBytes()))))));
                wire.send(ApiKeys.PRODUCE, (short) 9, produce);
                assertThat(wire.closedByPeer()).isTrue();
            }
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"hook\"")).isEqualTo(1);
            assertThat(FetchSizeHook.SIZES).isEmpty();
        }
    }

    // ---- helpers ----

    private static ProxyFixture withHook(String config) {
        return ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: hook
                    type: FetchSizeHook
                    config:
                      %s
                defaultFilters: [hook]
                """.formatted(config));
    }

    private static FetchRequestData fetch(String topic) {
        return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(500).setMinBytes(1).setMaxBytes(1 << 20)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
                        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20)))));
    }

    /** A topic holding {@value #RECORDS} records, written past the proxy. */
    private static String topicWithRecords() throws Exception {
        String topic = "size-hook-" + UUID.randomUUID();
        Map<String, Object> direct = Map.of("bootstrap.servers", cluster.getBootstrapServers());
        io.sluice.testkit.Topics.createTopics(direct, List.of(new NewTopic(topic, 1, (short) 1)));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(direct, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "value-" + i));
            }
            producer.flush();
        }
        return topic;
    }
}
