package io.sluice.filter.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerConfig;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Virtual topics over real ones with real clients: the live-scores routes of the Kafkorama example, over a real
 * topic per test ({@code kr-<test>}) so tests do not see each other's records. The broker creates topics on
 * demand, to show that the proxy never lets it.
 */
@ExtendWith(KafkaClusterExtension.class)
class KeyRoutingTest {

    @BrokerConfig(name = "auto.create.topics.enable", value = "true")
    static KafkaCluster cluster;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: routing
                    type: KeyRouting
                    config:
                      hideRealTopics: true
                      routes:
                        - { virtual: "kr-$(t).results", topic: "kr-$(t)", key: results }
                        - { virtual: "kr-$(t).live.$(sport)", topic: "kr-$(t)", key: "live/$(sport)" }
                        - { virtual: "kr-$(t).match.$(match)", topic: "kr-$(t)", key: "$(match)" }
                defaultFilters: [routing]
                """);
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void producedRecordLandsInTheRealTopicWithItsKey() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-produce");
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            RecordMetadata sent = producer.send(new ProducerRecord<>("kr-produce.live.football", "live/football", "2-1")).get();
            assertThat(sent.topic()).isEqualTo("kr-produce.live.football");
            assertThat(sent.offset()).isZero();
        }
        List<ConsumerRecord<String, String>> real = KafkaReads.fromStart(cluster.getKafkaClientConfiguration(), "kr-produce", 1,
                new StringDeserializer(), new StringDeserializer());
        assertThat(real).extracting(ConsumerRecord::key, ConsumerRecord::value).containsExactly(org.assertj.core.groups.Tuple.tuple("live/football", "2-1"));
    }

    @Test
    void keyOutsideTheVirtualTopicIsRefusedWithInvalidRecordAndNothingIsWritten() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-refuse");
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 200))) {
            var good = producer.send(new ProducerRecord<>("kr-refuse.live.football", "live/football", "fine"));
            var bad = producer.send(new ProducerRecord<>("kr-refuse.live.football", "live/tennis", "wrong sport"));
            assertThatThrownBy(bad::get).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("'live/tennis'")
                    .hasMessageContaining("kr-refuse.live.football");
            // Same batch, same partition: refused together, nothing of it written.
            assertThatThrownBy(good::get).cause().isInstanceOf(InvalidRecordException.class);
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), "kr-refuse")).isZero();
    }

    @Test
    void fetchGivesOnlyTheVirtualTopicsRecordsWithTheirOffsetsAndThePositionMovesPastTheRest() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-fetch");
        produceDirect("kr-fetch", "live/football", "results", "live/football", "uefa-f35", "results", "live/tennis");

        assertThat(readFromStart("kr-fetch.live.football", 6)).containsExactly("0:live/football", "2:live/football");
        assertThat(readFromStart("kr-fetch.results", 6)).containsExactly("1:results", "4:results");
        assertThat(readFromStart("kr-fetch.match.uefa-f35", 6)).containsExactly("3:uefa-f35");
    }

    @Test
    void oneConsumerReadingTwoVirtualTopicsOfOneRealPartitionGetsEachItsOwnRecords() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-both");
        produceDirect("kr-both", "live/football", "results", "live/football", "results", "live/tennis");
        TopicPartition football = new TopicPartition("kr-both.live.football", 0);
        TopicPartition results = new TopicPartition("kr-both.results", 0);
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(Map.of())) {
            consumer.assign(List.of(football, results));
            consumer.seekToBeginning(List.of(football, results));
            // results starts further on: the real partition is fetched from the lower position for both.
            consumer.seek(results, 3);
            awaitPositions(consumer, Map.of(football, 5L, results, 5L), r -> seen.add(r.topic() + "@" + r.offset()));
        }
        assertThat(seen).containsExactlyInAnyOrder("kr-both.live.football@0", "kr-both.live.football@2", "kr-both.results@3");
    }

    @Test
    void consumerGroupResumesAtItsCommittedOffsetWithoutDuplicates() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-group");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keys.add(i % 2 == 0 ? "live/football" : "results");
        }
        produceDirect("kr-group", keys.toArray(String[]::new));
        String group = "kr-group-app";
        Map<String, Object> groupConfig = Map.of(ConsumerConfig.GROUP_ID_CONFIG, group, ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 4,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<Long> first = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(groupConfig)) {
            consumer.subscribe(List.of("kr-group.live.football"));
            long deadline = System.currentTimeMillis() + 30_000;
            while (first.isEmpty() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> first.add(r.offset()));
            }
            consumer.commitSync();
        }
        assertThat(first).isNotEmpty().hasSizeLessThanOrEqualTo(4);
        List<Long> rest = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(groupConfig)) {
            consumer.subscribe(List.of("kr-group.live.football"));
            long deadline = System.currentTimeMillis() + 30_000;
            while (first.size() + rest.size() < 10 && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> rest.add(r.offset()));
            }
            consumer.commitSync();
        }
        List<Long> all = new ArrayList<>(first);
        all.addAll(rest);
        assertThat(all).containsExactly(0L, 2L, 4L, 6L, 8L, 10L, 12L, 14L, 16L, 18L);

        // Offsets are stored under the real topic, and shown under the virtual name.
        try (Admin admin = Admin.create(proxy.clientConfig()); Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            Map<TopicPartition, OffsetAndMetadata> viaProxy = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            assertThat(viaProxy).containsOnlyKeys(new TopicPartition("kr-group.live.football", 0));
            assertThat(viaProxy.get(new TopicPartition("kr-group.live.football", 0)).metadata()).isEmpty();
            Map<TopicPartition, OffsetAndMetadata> real = direct.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            assertThat(real).containsOnlyKeys(new TopicPartition("kr-group", 0));
            assertThat(real.get(new TopicPartition("kr-group", 0)).offset()).isEqualTo(viaProxy.get(new TopicPartition("kr-group.live.football", 0)).offset());
        }
    }

    @Test
    void anOffsetCommittedUnderAnotherNameOfTheSameRealPartitionIsNotReused() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-other");
        produceDirect("kr-other", "live/football", "results", "live/football");
        String group = "kr-other-app";
        try (KafkaConsumer<String, String> consumer = consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, group))) {
            consumer.commitSync(Map.of(new TopicPartition("kr-other.live.football", 0), new OffsetAndMetadata(3)));
            assertThat(consumer.committed(Set.of(new TopicPartition("kr-other.live.football", 0))).get(new TopicPartition("kr-other.live.football", 0)).offset())
                    .isEqualTo(3);
            assertThat(consumer.committed(Set.of(new TopicPartition("kr-other.results", 0)))).containsEntry(new TopicPartition("kr-other.results", 0), null);
            assertThatThrownBy(() -> consumer.commitSync(Map.of(new TopicPartition("kr-other.live.football", 0), new OffsetAndMetadata(1),
                    new TopicPartition("kr-other.results", 0), new OffsetAndMetadata(2))))
                    .isInstanceOf(KafkaException.class);
        }
    }

    @Test
    void metadataShowsVirtualNamesAndHidesTheRealTopic() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-meta");
        try (Admin admin = Admin.create(proxy.clientConfig()); Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            Set<String> listed = admin.listTopics().names().get();
            assertThat(listed).contains("kr-meta.results").doesNotContain("kr-meta");
            TopicDescription real = direct.describeTopics(List.of("kr-meta")).allTopicNames().get().get("kr-meta");
            TopicDescription virtual = admin.describeTopics(List.of("kr-meta.live.football")).allTopicNames().get().get("kr-meta.live.football");
            assertThat(virtual.name()).isEqualTo("kr-meta.live.football");
            assertThat(virtual.partitions()).hasSameSizeAs(real.partitions());
            assertThat(virtual.topicId()).isNotEqualTo(real.topicId());
            assertThatThrownBy(() -> admin.describeTopics(List.of("kr-meta")).allTopicNames().get())
                    .cause().isInstanceOf(UnknownTopicOrPartitionException.class);

            var resource = new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, "kr-meta.results");
            assertThat(admin.describeConfigs(List.of(resource)).all().get().get(resource).get("cleanup.policy").value()).isEqualTo("delete");
        }
    }

    @Test
    void listOffsetsAnswersForVirtualNamesWithTheRealPartitionsOffsets() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-offsets");
        produceDirect("kr-offsets", "live/football", "results", "results");
        try (Admin admin = Admin.create(proxy.clientConfig())) {
            TopicPartition football = new TopicPartition("kr-offsets.live.football", 0);
            TopicPartition results = new TopicPartition("kr-offsets.results", 0);
            var latest = admin.listOffsets(Map.of(football, OffsetSpec.latest(), results, OffsetSpec.latest())).all().get();
            assertThat(latest.get(football).offset()).isEqualTo(3);
            assertThat(latest.get(results).offset()).isEqualTo(3);
            assertThat(admin.listOffsets(Map.of(football, OffsetSpec.earliest())).all().get().get(football).offset()).isZero();
        }
    }

    @Test
    void virtualTopicOfAMissingRealTopicIsUnknownAndNothingIsCreated() throws Exception {
        try (Admin admin = Admin.create(proxy.clientConfig()); Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThatThrownBy(() -> admin.describeTopics(List.of("kr-missing.results")).allTopicNames().get())
                    .cause().isInstanceOf(UnknownTopicOrPartitionException.class);
            try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000))) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("kr-missing.results", "results", "x")).get())
                        .hasMessageContaining("kr-missing.results");
            }
            assertThat(direct.listTopics().names().get()).doesNotContain("kr-missing", "kr-missing.results");
        }
    }

    @Test
    void oneProducerWritesARealTopicThroughOneNameOnly() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-writer");
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>("kr-writer.results", "results", "final")).get();
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("kr-writer.live.football", "live/football", "1-0")).get())
                    .cause().isInstanceOf(InvalidRecordException.class).hasMessageContaining("another producer");
        }
        try (KafkaProducer<String, String> other = producer(Map.of())) {
            other.send(new ProducerRecord<>("kr-writer.live.football", "live/football", "1-0")).get();
        }
        assertThat(KafkaReads.endOffset(cluster.getBootstrapServers(), "kr-writer")).isEqualTo(2);
    }

    @Test
    void aTransactionWritesAVirtualTopicAndCommitsOffsetsOfAnotherUnderItsVirtualName() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-txout", "kr-txin");
        TopicPartition input = new TopicPartition("kr-txin.results", 0);
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "kr-tx"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("kr-txout.live.football", "live/football", "committed"));
            producer.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(7)), new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("kr-tx-app"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("kr-txout.live.football", "live/football", "aborted"));
            producer.flush();
            producer.abortTransaction();
        }
        List<String> values = new ArrayList<>();
        TopicPartition output = new TopicPartition("kr-txout.live.football", 0);
        try (KafkaConsumer<String, String> consumer = consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"))) {
            consumer.assign(List.of(output));
            consumer.seekToBeginning(List.of(output));
            // committed record, commit marker, aborted record, abort marker
            awaitPositions(consumer, Map.of(output, 4L), r -> values.add(r.value()));
        }
        assertThat(values).containsExactly("committed");
        try (KafkaConsumer<String, String> consumer = consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "kr-tx-app"))) {
            assertThat(consumer.committed(Set.of(input)).get(input).offset()).isEqualTo(7);
        }
    }

    @Test
    void producersOfTransactionsV1AddTheRealPartitionsOfVirtualTopicsToTheirTransactions() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-tv1");
        // kafka-clients 4 on this broker use transactions v2 and never send AddPartitionsToTxn; older clients send v3.
        try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
            InitProducerIdResponseData producer = initProducerId(wire, "kr-tv1");
            AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
            topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("kr-tv1.results").setPartitions(List.of(0)));
            AddPartitionsToTxnResponseData added = wire.call(ApiKeys.ADD_PARTITIONS_TO_TXN, (short) 3, new AddPartitionsToTxnRequestData()
                    .setV3AndBelowTransactionalId("kr-tv1").setV3AndBelowProducerId(producer.producerId())
                    .setV3AndBelowProducerEpoch(producer.producerEpoch()).setV3AndBelowTopics(topics));

            assertThat(added.resultsByTopicV3AndBelow()).singleElement().satisfies(topic -> {
                assertThat(topic.name()).isEqualTo("kr-tv1.results");
                assertThat(topic.resultsByPartition()).singleElement().satisfies(p -> assertThat(Errors.forCode(p.partitionErrorCode())).isEqualTo(Errors.NONE));
            });
        }
    }

    @Test
    void theKip848ConsumerProtocolIsNotOfferedSoSuchConsumersFailClearly() {
        try (KafkaConsumer<String, String> consumer = consumer(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "kr-848", ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer"))) {
            consumer.subscribe(List.of("kr-848.results"));
            assertThatThrownBy(() -> {
                long deadline = System.currentTimeMillis() + 20_000;
                while (System.currentTimeMillis() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }).isInstanceOf(UnsupportedVersionException.class);
        }
    }

    @Test
    void apisThatNameTopicsButAreNotRoutedAreRefusedWhenSentAnyway() throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), "kr-raw");
        produceDirect("kr-raw", "results", "results", "results");
        Uuid realId;
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            realId = direct.describeTopics(List.of("kr-raw")).allTopicNames().get().get("kr-raw").topicId();
        }
        String member = Uuid.randomUuid().toString();
        Map<ApiKeys, ApiMessage> hostile = new java.util.LinkedHashMap<>();
        hostile.put(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(10)
                .setTopics(List.of(new DescribeTopicPartitionsRequestData.TopicRequest().setName("kr-raw"))));
        hostile.put(ApiKeys.DESCRIBE_PRODUCERS, new DescribeProducersRequestData()
                .setTopics(List.of(new DescribeProducersRequestData.TopicRequest().setName("kr-raw").setPartitionIndexes(List.of(0)))));
        hostile.put(ApiKeys.DELETE_RECORDS, new DeleteRecordsRequestData().setTimeoutMs(5_000).setTopics(List.of(new DeleteRecordsRequestData.DeleteRecordsTopic()
                .setName("kr-raw").setPartitions(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(-1))))));
        CreateTopicsRequestData.CreatableTopicCollection created = new CreateTopicsRequestData.CreatableTopicCollection();
        created.add(new CreateTopicsRequestData.CreatableTopic().setName("kr-raw-created").setNumPartitions(1).setReplicationFactor((short) 1));
        hostile.put(ApiKeys.CREATE_TOPICS, new CreateTopicsRequestData().setTopics(created).setTimeoutMs(5_000));
        hostile.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, new ConsumerGroupHeartbeatRequestData().setGroupId("kr-raw-848").setMemberId(member)
                .setMemberEpoch(0).setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of("kr-raw")).setTopicPartitions(List.of()));
        hostile.put(ApiKeys.SHARE_GROUP_HEARTBEAT, new ShareGroupHeartbeatRequestData().setGroupId("kr-raw-share").setMemberId(member)
                .setMemberEpoch(0).setSubscribedTopicNames(List.of("kr-raw")));
        hostile.put(ApiKeys.SHARE_FETCH, new ShareFetchRequestData().setGroupId("kr-raw-share").setMemberId(member).setShareSessionEpoch(0)
                .setMaxWaitMs(100).setMaxBytes(1 << 20));
        hostile.put(ApiKeys.SHARE_ACKNOWLEDGE, new ShareAcknowledgeRequestData().setGroupId("kr-raw-share").setMemberId(member)
                .setShareSessionEpoch(1));
        hostile.put(ApiKeys.STREAMS_GROUP_HEARTBEAT, new StreamsGroupHeartbeatRequestData().setGroupId("kr-raw-streams").setMemberId(member)
                .setMemberEpoch(0).setRebalanceTimeoutMs(30_000).setProcessId(member).setClientTags(List.of()).setActiveTasks(List.of())
                .setStandbyTasks(List.of()).setWarmupTasks(List.of()).setTopology(new StreamsGroupHeartbeatRequestData.Topology()
                        .setSubtopologies(List.of(new StreamsGroupHeartbeatRequestData.Subtopology().setSubtopologyId("0")
                                .setSourceTopics(List.of("kr-raw"))))));
        hostile.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, new ConsumerGroupDescribeRequestData().setGroupIds(List.of("kr-raw-848")));
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection offsetTopics = new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        offsetTopics.add(new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName("kr-raw")
                .setPartitions(List.of(new OffsetDeleteRequestData.OffsetDeleteRequestPartition().setPartitionIndex(0))));
        hostile.put(ApiKeys.OFFSET_DELETE, new OffsetDeleteRequestData().setGroupId("kr-raw-group").setTopics(offsetTopics));

        for (Map.Entry<ApiKeys, ApiMessage> request : hostile.entrySet()) {
            ApiKeys api = request.getKey();
            short version = api.latestVersion(false);
            try (KafkaWire wire = new KafkaWire(proxy.bootstrapPort())) {
                ApiMessage response = wire.call(api, version, request.getValue());
                AbstractResponse parsed = AbstractResponse.parseResponse(api, MessageUtil.toByteBufferAccessor(response, version), version);
                assertThat(parsed.errorCounts().keySet()).as(api.name).containsOnly(Errors.UNSUPPORTED_VERSION);
                assertThat(response.toString()).as(api.name).doesNotContain(realId.toString());
            } catch (java.io.IOException closed) {
                // An API whose error response cannot be built is refused by closing: also fine, nothing reached the broker.
            }
        }
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThat(direct.listTopics().names().get()).doesNotContain("kr-raw-created");
            assertThat(direct.listOffsets(Map.of(new TopicPartition("kr-raw", 0), OffsetSpec.earliest())).all().get()
                    .get(new TopicPartition("kr-raw", 0)).offset()).as("DeleteRecords did not reach the broker").isZero();
            assertThat(direct.listGroups().all().get()).extracting(g -> g.groupId()).doesNotContain("kr-raw-848", "kr-raw-share", "kr-raw-streams");
        }
        assertThat(proxy.metric("sluice_routing_requests_refused_total", "api=\"DescribeTopicPartitions\"")).isGreaterThanOrEqualTo(1);
    }

    // ---- helpers ----

    /** A producer id for the transactional id, once the (single) broker has loaded its transaction coordinator. */
    private static InitProducerIdResponseData initProducerId(KafkaWire wire, String transactionalId) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            wire.call(ApiKeys.FIND_COORDINATOR, (short) 4, new FindCoordinatorRequestData().setKeyType((byte) 1).setCoordinatorKeys(List.of(transactionalId)));
            InitProducerIdResponseData response = wire.call(ApiKeys.INIT_PRODUCER_ID, (short) 4, new InitProducerIdRequestData()
                    .setTransactionalId(transactionalId).setTransactionTimeoutMs(60_000).setProducerId(-1).setProducerEpoch((short) -1));
            Errors error = Errors.forCode(response.errorCode());
            if (error == Errors.NONE || !(error.exception() instanceof org.apache.kafka.common.errors.RetriableException) || System.currentTimeMillis() > deadline) {
                assertThat(error).isEqualTo(Errors.NONE);
                return response;
            }
            Thread.sleep(200);
        }
    }

    /** Writes one record per key to partition 0 of the real topic, straight to the broker; values are the offsets. */
    private static void produceDirect(String topic, String... keys) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.getKafkaClientConfiguration());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < keys.length; i++) {
                // Separate sends in one batch: a batch with records of several virtual topics.
                producer.send(new ProducerRecord<>(topic, 0, keys[i], "v" + i));
            }
            producer.flush();
        }
    }

    /** "offset:key" of what a consumer of the virtual topic's partition 0 gets until its position reaches {@code end}. */
    private static List<String> readFromStart(String virtual, long end) {
        TopicPartition tp = new TopicPartition(virtual, 0);
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(Map.of())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            awaitPositions(consumer, Map.of(tp, end), r -> seen.add(r.offset() + ":" + r.key()));
        }
        return seen;
    }

    private static void awaitPositions(KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> ends,
                                       java.util.function.Consumer<ConsumerRecord<String, String>> each) {
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline && ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
            consumer.poll(Duration.ofMillis(200)).forEach(each);
        }
        ends.forEach((tp, end) -> assertThat(consumer.position(tp)).as("position of %s", tp).isEqualTo(end));
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.putAll(extra);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        config.putAll(extra);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

}
