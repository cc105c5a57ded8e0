package io.sluice.filter.jwt;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.config.HostPort;
import io.sluice.proxy.testing.KafkaWire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Consumer group APIs in the hostile or unusual forms clients may send (a group named twice in one OffsetFetch, old
 * versions of OffsetFetch and DescribeGroups), and a classic group shared by two principals: none of them tells a
 * principal the name or id of a topic it may not describe, and each keeps the connection open with the error the
 * version can carry. Raw protocol through the proxy, and the same requests straight to the broker to show that there
 * is something to hide.
 */
@ExtendWith(KafkaClusterExtension.class)
class JwtGroupLeaksTest {

    /** (The testing extension already sets group.initial.rebalance.delay.ms to 0: a new group's first join is answered at once.) */
    static KafkaCluster cluster;
    static JwtProxy jwt;

    private static final String VISIBLE = "gl-visible";
    private static final String HIDDEN = "gl-hidden";
    private static Uuid visibleId;
    private static Uuid hiddenId;

    /** Alice may use the gl-* groups and see only VISIBLE; Bob, in the same groups, reads HIDDEN too. */
    private static final Map<String, Object> ALICE = Map.of("topics", Map.of(VISIBLE, List.of("read")), "groups", List.of("gl-*"));
    private static final Map<String, Object> BOB = Map.of("topics", Map.of(VISIBLE, List.of("read"), HIDDEN, List.of("read")), "groups", List.of("gl-*"));

    @BeforeAll
    static void start() throws Exception {
        jwt = JwtProxy.start(cluster);
        try (Admin admin = Admin.create(cluster.getKafkaClientConfiguration())) {
            // Returns once the broker's metadata has them: described at once, they could be UNKNOWN_TOPIC_OR_PARTITION.
            var ids = io.sluice.testkit.Topics.createTopics(admin, List.of(new NewTopic(VISIBLE, 1, (short) 1), new NewTopic(HIDDEN, 1, (short) 1)));
            visibleId = ids.get(VISIBLE).topicId();
            hiddenId = ids.get(HIDDEN).topicId();
            // The group coordinator (and __consumer_offsets) ready before raw JoinGroups, which do not look for it.
            // (Asked too early, while __consumer_offsets is being created, it fails: ask until it answers.)
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> admin.listConsumerGroupOffsets("gl-warm-up").all().get() != null);
        }
    }

    @AfterAll
    static void stop() {
        jwt.close();
    }

    // ---- OffsetFetch ----

    /**
     * One OffsetFetch (v8+) naming a group twice, once for all its topics and once for a named one, in either order:
     * the broker answers both entries, the all-topics one with the hidden topic that has offsets committed in the group.
     */
    @Test
    void offsetFetchNamingAGroupTwiceReturnsNoHiddenTopic() throws Exception {
        String group = "gl-offsets";
        try (Admin admin = Admin.create(cluster.getKafkaClientConfiguration())) {
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(HIDDEN, 0), new OffsetAndMetadata(5),
                    new TopicPartition(VISIBLE, 0), new OffsetAndMetadata(3))).all().get();
        }
        try (KafkaWire broker = broker(); KafkaWire alice = as(ALICE)) {
            for (short version = 8; version <= ApiKeys.OFFSET_FETCH.latestVersion(); version++) {
                for (boolean allFirst : List.of(true, false)) {
                    String label = "v" + version + (allFirst ? " all topics first" : " named topics first");
                    OffsetFetchResponseData direct = broker.call(ApiKeys.OFFSET_FETCH, version, groupTwice(version, group, allFirst));
                    assertThat(direct.groups()).as(label).hasSize(2);
                    assertThat(topicsOf(direct)).as("not vacuous: %s straight to the broker", label).contains(HIDDEN + "/" + hiddenIdIn(version));

                    OffsetFetchResponseData proxied = alice.call(ApiKeys.OFFSET_FETCH, version, groupTwice(version, group, allFirst));
                    boolean byName = version < 10;

                    assertThat(proxied.groups()).as(label).hasSize(2).allSatisfy(g -> {
                        assertThat(g.groupId()).isEqualTo(group);
                        assertThat(g.errorCode()).isZero();
                        assertThat(g.topics()).singleElement().satisfies(t -> {
                            assertThat(t.name()).isEqualTo(byName ? VISIBLE : "");
                            assertThat(t.topicId()).isEqualTo(byName ? Uuid.ZERO_UUID : visibleId);
                            assertThat(t.partitions()).singleElement().satisfies(p -> assertThat(p.committedOffset()).isEqualTo(3));
                        });
                    });
                    assertThat(proxied.toString()).as(label).doesNotContain(HIDDEN).doesNotContain(hiddenId.toString());
                }
            }
        }
    }

    /** v1 has no top-level error code: a forbidden group's offsets carry the error per partition, as a broker's do. */
    @Test
    void offsetFetchOfAForbiddenGroupCarriesTheErrorEveryVersionCanHold() throws Exception {
        try (KafkaWire alice = as(ALICE)) {
            for (short version = 1; version < 8; version++) {
                OffsetFetchRequestData request = new OffsetFetchRequestData().setGroupId("other-group").setTopics(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(VISIBLE).setPartitionIndexes(List.of(0))));
                OffsetFetchResponseData response = alice.call(ApiKeys.OFFSET_FETCH, version, request);
                if (version < 2) {
                    assertThat(response.topics()).as("v%d", version).singleElement().satisfies(t -> assertThat(t.partitions()).singleElement()
                            .satisfies(p -> assertThat(p.errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code())));
                } else {
                    assertThat(response.errorCode()).as("v%d", version).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
                    assertThat(response.topics()).isEmpty();
                }
            }
            assertStillServed(alice);
        }
    }

    // ---- DescribeGroups ----

    /**
     * DescribeGroups of a group whose member (another principal, straight to the broker) reads a hidden topic, at every
     * version: v0-v5 cannot carry an error message, and setting one used to fail the response and close the connection.
     */
    @Test
    void describeGroupsOfAGroupUsingAHiddenTopicAnswersEveryVersionWithoutItsName() throws Exception {
        String group = "gl-described";
        try (KafkaWire member = broker(); KafkaWire alice = as(ALICE)) {
            joinAsOnlyMember(member, group, subscription(List.of(VISIBLE, HIDDEN), List.of(), null), List.of(VISIBLE, HIDDEN));
            DescribeGroupsResponseData direct = member.call(ApiKeys.DESCRIBE_GROUPS, (short) 5, new DescribeGroupsRequestData().setGroups(List.of(group)));
            assertThat(direct.groups().get(0).members()).as("not vacuous: the broker describes the member").hasSize(1);

            for (short version = 0; version <= ApiKeys.DESCRIBE_GROUPS.latestVersion(); version++) {
                DescribeGroupsResponseData response = alice.call(ApiKeys.DESCRIBE_GROUPS, version,
                        new DescribeGroupsRequestData().setGroups(List.of(group, "other-group")));
                short v = version;
                assertThat(response.groups()).as("v%d", v).hasSize(2);
                assertThat(response.groups().get(0)).satisfies(g -> {
                    assertThat(g.errorCode()).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    assertThat(g.members()).isEmpty();
                    assertThat(g.errorMessage()).as("v%d", v).isEqualTo(v >= 6 ? "the group uses topics this principal may not describe" : null);
                });
                assertThat(response.groups().get(1).errorCode()).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED.code());
                assertThat(response.toString()).doesNotContain(HIDDEN);
            }
            assertStillServed(alice);
        }
    }

    // ---- JoinGroup ----

    /**
     * Alice leads a classic consumer group; Bob joins it, subscribed to a topic Alice may not see, owning a partition of
     * it and with assignor user data naming it. Alice's JoinGroup response carries Bob's subscription without any of
     * that. Led straight from the broker, the same group shows it all.
     */
    @Test
    void theLeaderOfAClassicGroupLearnsNothingOfAnotherMembersHiddenTopics() throws Exception {
        byte[] bobs = subscription(List.of(VISIBLE, HIDDEN), List.of(HIDDEN), HIDDEN + " was mine");
        try (KafkaWire alice = as(ALICE); KafkaWire bob = as(BOB)) {
            List<ConsumerProtocolSubscription> seen = leaderSees(alice, bob, "gl-joined", bobs);
            assertThat(seen.get(1).topics()).containsExactly(VISIBLE);
            assertThat(seen.get(1).ownedPartitions()).isEmpty();
            assertThat(seen.get(1).userData()).isNull();
            assertThat(seen.get(0).topics()).as("the leader's own").containsExactly(VISIBLE);
            assertStillServed(alice);
        }
        try (KafkaWire direct = broker(); KafkaWire bob = as(BOB)) {
            List<ConsumerProtocolSubscription> seen = leaderSees(direct, bob, "gl-joined-direct", bobs);
            assertThat(seen.get(1).topics()).as("not vacuous: the broker hands the leader every member's subscription")
                    .containsExactly(VISIBLE, HIDDEN);
        }
    }

    /**
     * {@code leader} creates the group and leads it; {@code other} joins with {@code othersSubscription}; the leader's
     * JoinGroup response of the next generation, as subscriptions: the leader's, then the other member's.
     */
    private static List<ConsumerProtocolSubscription> leaderSees(KafkaWire leader, KafkaWire other, String group, byte[] othersSubscription)
            throws Exception {
        byte[] leaders = subscription(List.of(VISIBLE), List.of(), null);
        JoinGroupResponseData first = joinAsOnlyMember(leader, group, leaders, List.of(VISIBLE));
        String leaderId = first.memberId();

        String otherId = join(other, group, "", othersSubscription).memberId();
        other.send(ApiKeys.JOIN_GROUP, JOIN, joinRequest(group, otherId, othersSubscription)); // answered when the leader rejoins
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            HeartbeatResponseData beat = leader.call(ApiKeys.HEARTBEAT, (short) 4, new HeartbeatRequestData().setGroupId(group)
                    .setGenerationId(first.generationId()).setMemberId(leaderId));
            return beat.errorCode() == Errors.REBALANCE_IN_PROGRESS.code();
        });
        JoinGroupResponseData rejoined = join(leader, group, leaderId, leaders);
        JoinGroupResponseData othersAnswer = other.receive(ApiKeys.JOIN_GROUP, JOIN);

        assertThat(rejoined.errorCode()).isZero();
        assertThat(rejoined.leader()).isEqualTo(leaderId);
        assertThat(othersAnswer.members()).as("only the leader is told the members").isEmpty();
        assertThat(rejoined.members()).extracting(JoinGroupResponseData.JoinGroupResponseMember::memberId).containsExactlyInAnyOrder(leaderId, otherId);
        List<ConsumerProtocolSubscription> subscriptions = new ArrayList<>();
        for (String id : List.of(leaderId, otherId)) {
            byte[] metadata = rejoined.members().stream().filter(m -> m.memberId().equals(id)).findFirst().orElseThrow().metadata();
            subscriptions.add(ConsumerProtocol.deserializeConsumerProtocolSubscription(ByteBuffer.wrap(metadata)));
        }
        return subscriptions;
    }

    // ---- helpers ----

    private static final short JOIN = 9;

    /** Joins a new group (the member id round of v4+ included), leads it alone and syncs an assignment of {@code assigned}. */
    private static JoinGroupResponseData joinAsOnlyMember(KafkaWire wire, String group, byte[] subscription, List<String> assigned) throws IOException {
        String memberId = join(wire, group, "", subscription).memberId();
        JoinGroupResponseData joined = join(wire, group, memberId, subscription);
        assertThat(joined.errorCode()).isZero();
        assertThat(joined.leader()).isEqualTo(memberId);
        ConsumerProtocolAssignment assignment = new ConsumerProtocolAssignment();
        assigned.forEach(t -> assignment.assignedPartitions().add(new ConsumerProtocolAssignment.TopicPartition().setTopic(t).setPartitions(List.of(0))));
        SyncGroupResponseData synced = wire.call(ApiKeys.SYNC_GROUP, (short) 5, new SyncGroupRequestData().setGroupId(group)
                .setGenerationId(joined.generationId()).setMemberId(memberId).setProtocolType("consumer").setProtocolName("range")
                .setAssignments(List.of(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(memberId)
                        .setAssignment(MessageUtil.toVersionPrefixedBytes((short) 3, assignment)))));
        assertThat(synced.errorCode()).isZero();
        return joined;
    }

    private static JoinGroupResponseData join(KafkaWire wire, String group, String memberId, byte[] subscription) throws IOException {
        return wire.call(ApiKeys.JOIN_GROUP, JOIN, joinRequest(group, memberId, subscription));
    }

    private static JoinGroupRequestData joinRequest(String group, String memberId, byte[] subscription) {
        JoinGroupRequestData request = new JoinGroupRequestData().setGroupId(group).setMemberId(memberId).setSessionTimeoutMs(45_000)
                .setRebalanceTimeoutMs(20_000).setProtocolType("consumer");
        request.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(subscription));
        return request;
    }

    private static byte[] subscription(List<String> topics, List<String> owned, String userData) {
        ConsumerProtocolSubscription s = new ConsumerProtocolSubscription().setTopics(topics).setGenerationId(1)
                .setUserData(userData == null ? null : ByteBuffer.wrap(userData.getBytes(StandardCharsets.UTF_8)));
        owned.forEach(t -> s.ownedPartitions().add(new ConsumerProtocolSubscription.TopicPartition().setTopic(t).setPartitions(List.of(0))));
        return MessageUtil.toVersionPrefixedBytes((short) 3, s);
    }

    /** v8 and v9 name topics, v10 gives their ids. */
    private static OffsetFetchRequestData groupTwice(short version, String group, boolean allFirst) {
        OffsetFetchRequestData.OffsetFetchRequestTopics visible = new OffsetFetchRequestData.OffsetFetchRequestTopics().setPartitionIndexes(List.of(0));
        if (version < 10) {
            visible.setName(VISIBLE);
        } else {
            visible.setTopicId(visibleId);
        }
        OffsetFetchRequestData.OffsetFetchRequestGroup all = new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(null);
        OffsetFetchRequestData.OffsetFetchRequestGroup named = new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group)
                .setTopics(new ArrayList<>(List.of(visible)));
        return new OffsetFetchRequestData().setGroups(allFirst ? List.of(all, named) : List.of(named, all));
    }

    private static String hiddenIdIn(short version) {
        return (version < 10 ? Uuid.ZERO_UUID : hiddenId).toString();
    }

    /** Every topic of the response as name/id (the name is empty from v10, the id zero before it). */
    private static List<String> topicsOf(OffsetFetchResponseData response) {
        List<String> topics = new ArrayList<>();
        response.groups().forEach(g -> g.topics().forEach(t -> topics.add((t.topicId().equals(hiddenId) ? HIDDEN : t.name()) + "/" + t.topicId())));
        return topics;
    }

    private static void assertStillServed(KafkaWire wire) throws IOException {
        ApiVersionsResponseData versions = wire.call(ApiKeys.API_VERSIONS, (short) 3,
                new ApiVersionsRequestData().setClientSoftwareName("wire").setClientSoftwareVersion("1"));
        assertThat(versions.errorCode()).isZero();
    }

    private static KafkaWire as(Map<String, Object> permissions) throws IOException {
        KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort());
        String subject = permissions == ALICE ? "alice" : "bob";
        assertThat(wire.authenticate(JwtProxy.token(subject, Duration.ofMinutes(5), permissions), (short) 2).errorCode()).isZero();
        return wire;
    }

    private static KafkaWire broker() throws IOException {
        return new KafkaWire(HostPort.parse(cluster.getBootstrapServers().split(",")[0]).port());
    }
}
