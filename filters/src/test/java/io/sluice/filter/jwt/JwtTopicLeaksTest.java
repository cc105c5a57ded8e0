package io.sluice.filter.jwt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerConfig;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.config.HostPort;
import io.sluice.proxy.testing.KafkaWire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A principal without {@code describe} on a topic never learns its name, through any API that carries topic
 * names, and cannot make the broker create topics through a streams group. Real broker, real clients where they
 * can send the request, raw protocol where the hostile form is needed.
 */
@ExtendWith(KafkaClusterExtension.class)
class JwtTopicLeaksTest {

    @BrokerConfig(name = "auto.create.topics.enable", value = "true")
    @BrokerConfig(name = "group.coordinator.rebalance.protocols", value = "classic,consumer,streams")
    static KafkaCluster cluster;
    static JwtProxy jwt;

    private static final String VISIBLE_1 = "lk-a1";
    private static final String HIDDEN_1 = "lk-a5-hidden";
    private static final String VISIBLE_2 = "lk-a9";
    private static final String HIDDEN_2 = "lk-zz-hidden";

    private static final Map<String, Object> ALICE = Map.of(
            "topics", Map.of(VISIBLE_1, List.of("read", "write"), VISIBLE_2, List.of("read", "write"), "lk-app-*", List.of("read", "write")),
            "groups", List.of("lk-g-*"));

    @BeforeAll
    static void start() throws Exception {
        jwt = JwtProxy.start(cluster);
        try (Admin admin = Admin.create(cluster.getKafkaClientConfiguration())) {
            io.sluice.testkit.Topics.createTopics(admin, List.of(new NewTopic(VISIBLE_1, 2, (short) 1), new NewTopic(HIDDEN_1, 3, (short) 1),
                    new NewTopic(VISIBLE_2, 1, (short) 1), new NewTopic(HIDDEN_2, 2, (short) 1)));
        }
    }

    @AfterAll
    static void stop() {
        jwt.close();
    }

    @Test
    void walkingDescribeTopicPartitionsOnePartitionAtATimeNeverNamesAHiddenTopic() throws Exception {
        List<String> seen = new ArrayList<>();
        try (KafkaWire wire = alice()) {
            DescribeTopicPartitionsRequestData.Cursor cursor = null;
            for (int page = 0; page < 100; page++) {
                DescribeTopicPartitionsResponseData response = wire.call(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (short) 0,
                        new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(1).setCursor(cursor));
                assertThat(response.topics().stream().mapToInt(t -> t.partitions().size()).sum()).isLessThanOrEqualTo(1);
                response.topics().forEach(t -> t.partitions().forEach(p -> seen.add(t.name() + "-" + p.partitionIndex())));
                if (response.nextCursor() == null) {
                    break;
                }
                seen.add("cursor:" + response.nextCursor().topicName());
                cursor = new DescribeTopicPartitionsRequestData.Cursor().setTopicName(response.nextCursor().topicName())
                        .setPartitionIndex(response.nextCursor().partitionIndex());
            }
            // (lk-app-* topics other tests create are visible too)
            assertThat(seen.stream().filter(s -> !s.startsWith("cursor:") && !s.startsWith("lk-app-")))
                    .containsExactly(VISIBLE_1 + "-0", VISIBLE_1 + "-1", VISIBLE_2 + "-0");
            assertThat(seen).noneMatch(s -> s.contains("hidden") || s.contains("__"));

            // Asked for by name: refused, with nothing of it, and no cursor into it.
            DescribeTopicPartitionsResponseData named = wire.call(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (short) 0,
                    new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(1).setTopics(List.of(
                            new DescribeTopicPartitionsRequestData.TopicRequest().setName(HIDDEN_1),
                            new DescribeTopicPartitionsRequestData.TopicRequest().setName(VISIBLE_2))));
            assertThat(named.topics()).extracting(DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic::name)
                    .containsExactly(HIDDEN_1, VISIBLE_2);
            assertThat(named.topics().find(HIDDEN_1).errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(named.topics().find(HIDDEN_1).partitions()).isEmpty();
            assertThat(named.topics().find(HIDDEN_1).topicId()).isEqualTo(Uuid.ZERO_UUID);
            assertThat(named.nextCursor()).isNull();
        }
    }

    @Test
    void metadataAskedByTopicIdNamesNoDeniedTopic() throws Exception {
        Uuid hidden;
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            hidden = direct.describeTopics(List.of(HIDDEN_1)).allTopicNames().get().get(HIDDEN_1).topicId();
        }
        try (KafkaWire wire = alice()) {
            MetadataResponseData response = wire.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setAllowAutoTopicCreation(false)
                    .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setTopicId(hidden).setName(null))));

            assertThat(response.topics()).singleElement().satisfies(t -> {
                assertThat(t.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                assertThat(t.name()).isNull();
                assertThat(t.partitions()).isEmpty();
            });
        }
    }

    @Test
    void aBrokerSideRegexSubscriptionIsRefusedSoTheGroupIsNeverAssignedHiddenTopics() throws Exception {
        Map<String, Object> config = consumerConfig(jwt.clientConfig(JwtProxy.token("alice", Duration.ofMinutes(5), ALICE)), "lk-g-regex");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
             Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            consumer.subscribe(new SubscriptionPattern("lk-.*"));
            assertThatThrownBy(() -> {
                for (int i = 0; i < 100; i++) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }).isInstanceOf(TopicAuthorizationException.class);
            // Still subscribed (not closed): had the broker resolved the regex, the member would hold hidden partitions now.
            assertThat(assignedTopics(direct, "lk-g-regex")).noneMatch(t -> t.contains("hidden"));
        }
    }

    @Test
    void describingAGroupWhoseMembersUseHiddenTopicsNamesNone() throws Exception {
        for (String protocol : List.of("consumer", "classic")) {
            String group = "lk-g-mixed-" + protocol;
            Map<String, Object> directConfig = consumerConfig(cluster.getKafkaClientConfiguration(), group);
            directConfig.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
            // A member of another principal (straight to the broker) reads a topic Alice may not see.
            try (KafkaConsumer<String, String> other = new KafkaConsumer<>(directConfig, new StringDeserializer(), new StringDeserializer());
                 Admin alice = Admin.create(jwt.clientConfig(JwtProxy.token("alice", Duration.ofMinutes(5), ALICE)))) {
                other.subscribe(List.of(HIDDEN_1, VISIBLE_1));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    other.poll(Duration.ofMillis(100));
                    return !other.assignment().isEmpty();
                });

                assertThatThrownBy(() -> alice.describeConsumerGroups(List.of(group)).all().get())
                        .as(protocol).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class)
                        .satisfies(e -> assertThat(e.getCause().getMessage()).doesNotContain(HIDDEN_1));
            }
        }
    }

    @Test
    void streamsHeartbeatWithoutCreatePermissionCreatesNoInternalTopic() throws Exception {
        String missing = "lk-app-store-changelog";
        String existing = "lk-app-existing-changelog";
        jwt.createTopics(existing);
        try (KafkaWire wire = alice()) {
            StreamsGroupHeartbeatResponseData refused = wire.call(ApiKeys.STREAMS_GROUP_HEARTBEAT, (short) 0, streamsJoin("lk-g-streams", missing));
            assertThat(refused.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());

            // Internal topics that exist already need read and write only.
            StreamsGroupHeartbeatResponseData accepted = wire.call(ApiKeys.STREAMS_GROUP_HEARTBEAT, (short) 0, streamsJoin("lk-g-streams2", existing));
            assertThat(accepted.errorCode()).isNotEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        assertThat(jwt.metric("sluice_jwt_requests_denied_total", "api=\"StreamsGroupHeartbeat\"")).isGreaterThanOrEqualTo(1);
        Thread.sleep(2_000);
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThat(direct.listTopics().names().get()).doesNotContain(missing);
        }
    }

    /**
     * A full fetch of topics Alice reads whole is answered without being decoded, and made sessionless so that her
     * next fetch is full again; one that names a hidden topic keeps its session and has its response checked.
     */
    @Test
    void aFullFetchOfTopicsReadWholeGoesSessionlessAndOneNamingAHiddenTopicIsCheckedOnTheResponse() throws Exception {
        try (KafkaWire wire = alice()) {
            FetchResponseData whole = wire.call(ApiKeys.FETCH, FETCH_BY_NAME, newSessionFetch(VISIBLE_1, 0));
            assertThat(whole.errorCode()).isZero();
            assertThat(whole.sessionId()).as("no session: the next fetch is full and decided on its request").isZero();
            assertThat(whole.responses()).singleElement().satisfies(t -> assertThat(t.topic()).isEqualTo(VISIBLE_1));

            FetchRequestData mixed = newSessionFetch(VISIBLE_1, 0);
            mixed.topics().add(fetchTopic(HIDDEN_1, 0));
            FetchResponseData checked = wire.call(ApiKeys.FETCH, FETCH_BY_NAME, mixed);
            assertThat(checked.sessionId()).isNotZero();
            assertThat(partition(checked, HIDDEN_1).errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(partition(checked, VISIBLE_1).errorCode()).isZero();
        }
    }

    /**
     * Another client (straight to the broker) opens a fetch session on a hidden topic. Alice continues it through the
     * proxy with an incremental fetch that names only a topic she reads whole: the broker answers with the hidden
     * partition's records, and the proxy must refuse them, since an incremental fetch is not limited to what it names.
     */
    @Test
    void anIncrementalFetchContinuingAnotherClientsSessionReturnsNothingOfAHiddenTopic() throws Exception {
        int brokerPort = HostPort.parse(cluster.getBootstrapServers().split(",")[0]).port();
        try (KafkaWire broker = new KafkaWire(brokerPort);
             KafkaWire wire = alice();
             org.apache.kafka.clients.producer.KafkaProducer<String, String> producer = new org.apache.kafka.clients.producer.KafkaProducer<>(
                     cluster.getKafkaClientConfiguration(), new org.apache.kafka.common.serialization.StringSerializer(),
                     new org.apache.kafka.common.serialization.StringSerializer())) {
            FetchResponseData opened = broker.call(ApiKeys.FETCH, FETCH_BY_NAME, newSessionFetch(HIDDEN_2, 0));
            int session = opened.sessionId();
            assertThat(session).isNotZero();
            producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(HIDDEN_2, 0, "k", "the secret")).get();

            FetchRequestData continued = newSessionFetch(VISIBLE_2, 0).setSessionId(session).setSessionEpoch(1);
            FetchResponseData throughProxy = wire.call(ApiKeys.FETCH, FETCH_BY_NAME, continued);
            FetchResponseData.PartitionData hidden = partition(throughProxy, HIDDEN_2);
            assertThat(hidden.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThat(((org.apache.kafka.common.record.BaseRecords) hidden.records()).sizeInBytes()).isZero();

            // Not vacuous: the broker does return the record on that session.
            FetchResponseData direct = broker.call(ApiKeys.FETCH, FETCH_BY_NAME, new FetchRequestData().setReplicaId(-1)
                    .setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20).setSessionId(session).setSessionEpoch(2));
            assertThat(((org.apache.kafka.common.record.BaseRecords) partition(direct, HIDDEN_2).records()).sizeInBytes()).isPositive();
        }
    }

    // ---- helpers ----

    /** The last Fetch version that names topics rather than carrying their ids. */
    private static final short FETCH_BY_NAME = 12;

    private static FetchRequestData newSessionFetch(String topic, int partition) {
        FetchRequestData request = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setSessionId(0).setSessionEpoch(0);
        request.topics().add(fetchTopic(topic, partition));
        return request;
    }

    private static FetchRequestData.FetchTopic fetchTopic(String topic, int partition) {
        return new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(new ArrayList<>(List.of(
                new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(0).setPartitionMaxBytes(1 << 20))));
    }

    private static FetchResponseData.PartitionData partition(FetchResponseData response, String topic) {
        return response.responses().stream().filter(t -> topic.equals(t.topic())).findFirst()
                .orElseThrow(() -> new AssertionError(topic + " not in " + response)).partitions().get(0);
    }

    private static KafkaWire alice() throws Exception {
        KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort());
        assertThat(wire.authenticate(JwtProxy.token("alice", Duration.ofMinutes(5), ALICE), (short) 2).errorCode()).isZero();
        return wire;
    }

    private static Map<String, Object> consumerConfig(Map<String, Object> base, String group) {
        Map<String, Object> config = new HashMap<>(base);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return config;
    }

    private static Set<String> assignedTopics(Admin direct, String group) throws Exception {
        try {
            ConsumerGroupDescription description = direct.describeConsumerGroups(List.of(group)).all().get().get(group);
            Set<String> topics = new java.util.HashSet<>();
            description.members().forEach(m -> m.assignment().topicPartitions().forEach(tp -> topics.add(tp.topic())));
            return topics;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Set.of();
            }
            throw e;
        }
    }

    private static StreamsGroupHeartbeatRequestData streamsJoin(String group, String changelog) {
        StreamsGroupHeartbeatRequestData.Subtopology subtopology = new StreamsGroupHeartbeatRequestData.Subtopology()
                .setSubtopologyId("0")
                .setSourceTopics(List.of(VISIBLE_1))
                .setStateChangelogTopics(List.of(new StreamsGroupHeartbeatRequestData.TopicInfo().setName(changelog)));
        return new StreamsGroupHeartbeatRequestData()
                .setGroupId(group)
                .setMemberId(Uuid.randomUuid().toString())
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(30_000)
                .setProcessId(Uuid.randomUuid().toString())
                .setClientTags(List.of())
                .setActiveTasks(List.of())
                .setStandbyTasks(List.of())
                .setWarmupTasks(List.of())
                .setTopology(new StreamsGroupHeartbeatRequestData.Topology().setEpoch(0).setSubtopologies(List.of(subtopology)));
    }
}
