package io.sluice.filter.jwt.enforce;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

import io.sluice.auth.Permissions;

import static org.assertj.core.api.Assertions.assertThat;

/** What a classic consumer group's leader is told of a member's subscription (the JoinGroup end to end is in JwtGroupLeaksTest). */
class LeaderSubscriptionsTest {

    private static final Access LEADER = new Access(Permissions.fromClaim(Map.of("topics", Map.of("seen", List.of("read")))));

    @Test
    void hiddenTopicsAndOwnedPartitionsAreCutAndTheUserDataWithThem() {
        byte[] bytes = subscription((short) 3, List.of("seen", "hidden"), List.of("hidden", "seen"), "hidden was mine");

        ConsumerProtocolSubscription seen = read(LeaderSubscriptions.visible(bytes, LEADER));

        assertThat(seen.topics()).containsExactly("seen");
        assertThat(seen.ownedPartitions()).extracting(ConsumerProtocolSubscription.TopicPartition::topic).containsExactly("seen");
        assertThat(seen.userData()).isNull();
        assertThat(seen.generationId()).isEqualTo(7);
        assertThat(seen.rackId()).isEqualTo("rack-a");
        assertThat(new String(LeaderSubscriptions.visible(bytes, LEADER), StandardCharsets.ISO_8859_1)).doesNotContain("hidden");
    }

    @Test
    void aSubscriptionOfVisibleTopicsOnlyKeepsItsUserDataAndIsUnchanged() {
        for (short version = 0; version <= ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION; version++) {
            byte[] bytes = subscription(version, List.of("seen"), version >= 1 ? List.of("seen") : List.of(), "sticky state");
            assertThat(LeaderSubscriptions.visible(bytes, LEADER)).as("v%d", version).isEqualTo(bytes);
        }
    }

    @Test
    void aNewerVersionIsWrittenAsTheNewestKnownWithoutTheBytesThisProxyCannotRead() {
        byte[] known = subscription((short) 3, List.of("seen"), List.of(), null);
        ByteBuffer future = ByteBuffer.allocate(known.length + 20);
        future.putShort((short) 9).put(known, 2, known.length - 2).put("hidden-in-v9-field".getBytes(StandardCharsets.US_ASCII));

        byte[] rewritten = LeaderSubscriptions.visible(future.array(), LEADER);

        assertThat(rewritten).isEqualTo(known);
    }

    @Test
    void anUnreadableSubscriptionBecomesAnEmptyOne() {
        for (byte[] junk : List.of(new byte[0], new byte[] {0}, new byte[] {-1, -1, 0, 0}, "\0\0\0\0\0\5hidden".getBytes(StandardCharsets.US_ASCII),
                new byte[] {0, 0, 0x7f, -1, -1, -1})) {
            ConsumerProtocolSubscription seen = read(LeaderSubscriptions.visible(junk, LEADER));
            assertThat(seen.topics()).isEmpty();
            assertThat(seen.userData()).isNull();
        }
    }

    static byte[] subscription(short version, List<String> topics, List<String> owned, String userData) {
        ConsumerProtocolSubscription s = new ConsumerProtocolSubscription().setTopics(topics)
                .setUserData(userData == null ? null : ByteBuffer.wrap(userData.getBytes(StandardCharsets.UTF_8)));
        if (version >= 1) {
            owned.forEach(t -> s.ownedPartitions().add(new ConsumerProtocolSubscription.TopicPartition().setTopic(t).setPartitions(List.of(0))));
        }
        if (version >= 2) {
            s.setGenerationId(7);
        }
        if (version >= 3) {
            s.setRackId("rack-a");
        }
        return MessageUtil.toVersionPrefixedBytes(version, s);
    }

    static ConsumerProtocolSubscription read(byte[] bytes) {
        return ConsumerProtocol.deserializeConsumerProtocolSubscription(ByteBuffer.wrap(bytes));
    }
}
