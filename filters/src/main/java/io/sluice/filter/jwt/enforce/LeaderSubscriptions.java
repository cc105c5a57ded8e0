package io.sluice.filter.jwt.enforce;

import java.nio.ByteBuffer;

import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.MessageUtil;

import io.sluice.proxy.filter.ResponseHook;

/**
 * The subscriptions a classic consumer group's leader receives in its JoinGroup response, one per member, to compute
 * the assignment with. Members may be of other principals: each subscription reaches the leader with only the topics
 * the leader may describe, in its subscribed topics and its owned partitions alike. The assignor's user data is
 * opaque; the built-in sticky assignor keeps the member's previous assignment there, by topic name, so it is kept
 * only when nothing of the member's subscription was hidden. The leader assigns only what it sees; partitions of a
 * topic hidden from it are assigned to no member of that generation.
 */
final class LeaderSubscriptions {

    /** What a member whose subscription cannot be read subscribes to, as far as the leader is told: nothing. */
    private static final byte[] NOTHING = MessageUtil.toVersionPrefixedBytes(ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION,
            new ConsumerProtocolSubscription());

    private LeaderSubscriptions() {
    }

    /** For a JoinGroup of protocol type {@code consumer}: only a leader's response has members. */
    static ResponseHook visibleOnly(Access access) {
        return ResponseHook.of(response -> {
            for (JoinGroupResponseData.JoinGroupResponseMember member : ((JoinGroupResponseData) response).members()) {
                member.setMetadata(visible(member.metadata(), access));
            }
        });
    }

    /**
     * The subscription re-encoded with only the topics {@code access} may describe. It is always re-encoded, at its
     * own version or the newest this proxy knows if it is newer, so that bytes the proxy cannot read (fields of a
     * future version, anything after the subscription) never reach the leader. A subscription that does not parse
     * becomes an empty one: the member's topics cannot be checked, and the leader's assignor then gives it nothing
     * rather than failing on the whole group.
     */
    static byte[] visible(byte[] metadata, Access access) {
        short version;
        ConsumerProtocolSubscription subscription;
        try {
            ByteBuffer buffer = ByteBuffer.wrap(metadata);
            version = ConsumerProtocol.deserializeVersion(buffer);
            subscription = ConsumerProtocol.deserializeConsumerProtocolSubscription(buffer, version);
        } catch (RuntimeException e) {
            return NOTHING.clone();
        }
        int before = subscription.topics().size() + subscription.ownedPartitions().size();
        subscription.topics().removeIf(topic -> !access.describe(topic));
        subscription.ownedPartitions().removeIf(owned -> !access.describe(owned.topic()));
        if (subscription.topics().size() + subscription.ownedPartitions().size() < before) {
            subscription.setUserData(null);
        }
        short written = (short) Math.min(version, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
        return MessageUtil.toVersionPrefixedBytes(written, subscription);
    }
}
