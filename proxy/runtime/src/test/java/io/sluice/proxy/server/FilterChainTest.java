package io.sluice.proxy.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.message.MetadataRequestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.config.ConfigException;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.ProxyFixture;

import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.proxy.testing.KafkaWire;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Filters from the test sources, loaded by type name from YAML, against a real broker. */
@ExtendWith(KafkaClusterExtension.class)
class FilterChainTest {

    static KafkaCluster cluster;

    @Test
    void asyncFilterRewritesProducedRecords() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: upper
                    type: UppercaseValues
                defaultFilters: [upper]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            produce(proxy, topic, "hello", "sluice");
            assertThat(consume(proxy, topic, 2)).extracting(ConsumerRecord::value).containsExactly("HELLO", "SLUICE");
        }
    }

    @Test
    void filterUsesAnOutOfBandRequestBeforeForwarding() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: partition-count
                    type: io.sluice.proxy.testing.filters.PartitionCountHeader
                defaultFilters: [partition-count]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 3);
            produce(proxy, topic, "a");
            ConsumerRecord<String, String> record = consume(proxy, topic, 1).get(0);
            assertThat(new String(record.headers().lastHeader("partitions").value(), StandardCharsets.UTF_8)).isEqualTo("3");
        }
    }

    @Test
    void outOfBandRequestSentWhileHoldingAResponseIsAnswered() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                network:
                  filterTimeout: 5s
                filterDefinitions:
                  - name: names
                    type: TopicNamesOnFetch
                defaultFilters: [names]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            produce(proxy, topic, "fetched");
            assertThat(consume(proxy, topic, 1)).extracting(ConsumerRecord::value).containsExactly("fetched");
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"names\"")).isZero();
        }
    }

    @Test
    void filtersRunInConfiguredOrderOnTheSameRequest() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: upper
                    type: UppercaseValues
                  - name: partition-count
                    type: PartitionCountHeader
                defaultFilters: [upper, partition-count]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            produce(proxy, topic, "both");
            ConsumerRecord<String, String> record = consume(proxy, topic, 1).get(0);
            assertThat(record.value()).isEqualTo("BOTH");
            assertThat(record.headers().lastHeader("partitions")).isNotNull();
        }
    }

    @Test
    void shortCircuitErrorResponseReachesTheProducerAsTopicAuthorizationFailure() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: reject
                    type: RejectTopics
                    config:
                      prefix: forbidden-
                defaultFilters: [reject]
                """)) {
            String allowed = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            String forbidden = "forbidden-" + UUID.randomUUID();
            io.sluice.testkit.Topics.createTopics(Map.of("bootstrap.servers", cluster.getBootstrapServers()), List.of(new NewTopic(forbidden, 1, (short) 1)));
            try (KafkaProducer<String, String> producer = producer(proxy)) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(forbidden, "k", "secret")).get())
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
                producer.send(new ProducerRecord<>(allowed, "k", "fine")).get();
            }
            assertThat(consume(proxy, allowed, 1)).extracting(ConsumerRecord::value).containsExactly("fine");
            assertThat(directEndOffset(forbidden)).isZero();
        }
    }

    @Test
    void filterThatNeverCompletesIsTimedOutAndOnlyItsConnectionCloses() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                network:
                  filterTimeout: 1s
                filterDefinitions:
                  - name: stall
                    type: StallListOffsets
                defaultFilters: [stall]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            Map<String, Object> adminConfig = new HashMap<>(proxy.clientConfig());
            adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000);
            adminConfig.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
            try (Admin admin = Admin.create(adminConfig)) {
                assertThatThrownBy(() -> admin.listOffsets(Map.of(new TopicPartition(topic, 0), OffsetSpec.latest())).all().get())
                        .isInstanceOf(ExecutionException.class);
            }
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"stall\"")).isGreaterThanOrEqualTo(1);
            // Other connections, and requests the filter passes, are unaffected.
            produce(proxy, topic, "still-working");
        }
    }

    @Test
    void requestsPipelinedBehindAFilterStillWorkingWaitInTheClientsSocketNotInTheProxy() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                network:
                  filterTimeout: 30s
                  # The stalled request is never answered: the proxy's stop would wait the default 15 s for it.
                  shutdownTimeout: 1s
                filterDefinitions:
                  - name: stall
                    type: StallListOffsets
                defaultFilters: [stall]
                """);
             KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            wire.send(ApiKeys.LIST_OFFSETS, (short) 7, new ListOffsetsRequestData().setReplicaId(-1));
            java.io.ByteArrayOutputStream chunk = new java.io.ByteArrayOutputStream();
            while (chunk.size() < 64 * 1024) {
                chunk.writeBytes(wire.frame(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(List.of())));
            }
            byte[] bytes = chunk.toByteArray();
            java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();
            Thread writer = new Thread(() -> {
                try {
                    while (sent.get() < 32L * 1024 * 1024) {
                        wire.socket().getOutputStream().write(bytes);
                        sent.addAndGet(bytes.length);
                    }
                } catch (java.io.IOException closed) {
                    // the connection closing at the end of the test
                }
            });
            writer.setDaemon(true);
            writer.start();
            long last = -1;
            long stableSince = System.nanoTime();
            while (System.nanoTime() - stableSince < 2_000_000_000L) {
                Thread.sleep(100);
                if (sent.get() != last) {
                    last = sent.get();
                    stableSince = System.nanoTime();
                }
            }
            // Without the pause the proxy read all 32 MiB into the filter's queue.
            assertThat(proxy.metric("sluice_bytes_total", "direction=\"from_client\""))
                    .as("bytes read while the filter works on the first request (%d sent)", sent.get())
                    .isLessThan(4.0 * 1024 * 1024);
        }
    }

    @Test
    void filterThatNeverCompletesAResponseIsTimedOutAndTheClientSeesItsConnectionClose() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                network:
                  filterTimeout: 1s
                filterDefinitions:
                  - name: stall
                    type: StallListOffsetsResponses
                defaultFilters: [stall]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            assertListOffsetsClosesItsConnectionAfterOneSecond(proxy, topic);
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"stall\"")).isEqualTo(1);
            produce(proxy, topic, "still-working");
        }
    }

    @Test
    void aResponseFilterCompletingAfterItsTimeoutChangesNothing() throws Exception {
        try (ProxyFixture proxy = withFilters("""
                network:
                  filterTimeout: 500ms
                filterDefinitions:
                  - name: late
                    type: StallListOffsetsResponses
                    config:
                      completeAfter: 1500ms
                defaultFilters: [late]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                wire.socket().setSoTimeout(3_000);
                wire.send(ApiKeys.LIST_OFFSETS, (short) 7, listOffsets(topic));
                // Nothing of the late response reaches the client: the connection just ends.
                assertThat(wire.socket().getInputStream().read()).as("end of stream").isEqualTo(-1);
            }
            Thread.sleep(1_500);
            // Consumers need ListOffsets, which the filter holds: a produce through the proxy shows it still serves.
            produce(proxy, topic, "after-the-late-completion");
            assertThat(directEndOffset(topic)).isEqualTo(1);
            assertThat(proxy.metric("sluice_filter_errors_total", "filter=\"late\"")).isEqualTo(1);
        }
    }

    /** Found by the mutation fuzzer: forwarded, such a request was never answered by the broker, nor the connection closed. */
    @Test
    void aProducePartitionWithNullRecordsClosesItsConnectionWhenAFilterDecodesProduce() throws Exception {
        // RejectTopics decodes Produce but never reads records: what it passes on reaches the broker as it came.
        try (ProxyFixture proxy = withFilters("""
                filterDefinitions:
                  - name: reject
                    type: RejectTopics
                    config:
                      prefix: never-
                defaultFilters: [reject]
                """)) {
            String topic = Topics.createTopic(onTheBroker(), "f-" + UUID.randomUUID(), 1);
            ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
            topics.add(new ProduceRequestData.TopicProduceData().setName(topic)
                    .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(null))));
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                wire.socket().setSoTimeout(10_000);
                wire.send(ApiKeys.PRODUCE, (short) 12, new ProduceRequestData().setAcks((short) -1).setTimeoutMs(5000).setTopicData(topics));
                assertThat(wire.closedByPeer()).as("connection closed by the proxy").isTrue();
            }
            produce(proxy, topic, "still-working");
            assertThat(consume(proxy, topic, 1)).extracting(ConsumerRecord::value).containsExactly("still-working");
        }
    }

    @Test
    void unknownFilterTypeIsAConfigErrorNamingTheField() {
        assertThatThrownBy(() -> withFilters("""
                filterDefinitions:
                  - name: nope
                    type: NoSuchFilter
                defaultFilters: [nope]
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("filterDefinitions[0].type").hasMessageContaining("NoSuchFilter");
    }

    @Test
    void badFilterConfigIsAConfigErrorNamingTheField() {
        assertThatThrownBy(() -> withFilters("""
                filterDefinitions:
                  - name: reject
                    type: RejectTopics
                    config:
                      prefx: oops
                defaultFilters: [reject]
                """)).isInstanceOf(ConfigException.class).hasMessageContaining("filterDefinitions[0].config");
    }

    // ---- helpers ----

    /** A ListOffsets for {@code topic} on a raw connection is not answered, and the connection closes after the 1 s filter timeout. */
    static void assertListOffsetsClosesItsConnectionAfterOneSecond(ProxyFixture proxy, String topic) throws Exception {
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            // The timeout plus a margin: the close must not wait behind the response the filter holds.
            wire.socket().setSoTimeout(4_000);
            long start = System.nanoTime();
            wire.send(ApiKeys.LIST_OFFSETS, (short) 7, listOffsets(topic));
            assertThat(wire.closedByPeer()).as("connection closed by the proxy").isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(900));
        }
    }

    static ListOffsetsRequestData listOffsets(String topic) {
        return new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName(topic)
                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1)))));
    }

    private static ProxyFixture withFilters(String yaml) {
        return ProxyFixture.start(cluster.getBootstrapServers(), "", yaml);
    }

    /** Where tests create their topics: on the broker itself, as some of these proxies stall ListOffsets, which Topics asks. */
    private static Map<String, Object> onTheBroker() {
        return Map.of("bootstrap.servers", cluster.getBootstrapServers());
    }

    private static KafkaProducer<String, String> producer(ProxyFixture proxy) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        // The test filters rebuild batches without producer state, so idempotence must be off.
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.ACKS_CONFIG, "1");
        config.put(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, false);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static void produce(ProxyFixture proxy, String topic, String... values) throws Exception {
        try (KafkaProducer<String, String> producer = producer(proxy)) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, 0, "k", v)).get();
            }
        }
    }

    private static List<ConsumerRecord<String, String>> consume(ProxyFixture proxy, String topic, int expected) {
        return KafkaReads.fromStart(proxy.clientConfig(), topic, expected, new StringDeserializer(), new StringDeserializer());
    }

    private static long directEndOffset(String topic) throws Exception {
        return KafkaReads.endOffset(cluster.getBootstrapServers(), topic);
    }
}
