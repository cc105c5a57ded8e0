package io.sluice.bridge.recovery;

import java.util.List;

import org.apache.kafka.common.TopicPartition;

import io.sluice.bridge.protocol.ClientRequest.Position;
import io.sluice.bridge.protocol.EncodedMessage;

/**
 * How a new subscription catches up, decided at the instant it joins the live stream (under the hub's lock, so
 * nothing falls between recovered and live messages).
 *
 * @param positions the node's current position in each partition the subscription covers, for the client to keep
 * @param cached    messages served from memory, already retained for the subscriber, in order per partition
 * @param reads     partition ranges that must come from the Kafka log; live messages wait until they are done
 * @param gaps      ranges that cannot be recovered at all
 * @param ahead     positions where the client has seen more than this node has read (it came from a node further
 *                  ahead): live messages up to them must be skipped, or the client would get them twice
 */
public record RecoveryPlan(List<Position> positions, List<EncodedMessage> cached, List<LogRead> reads, List<Gap> gaps,
                           List<Position> ahead) {

    /** Offsets {@code from..to} (inclusive) of a partition, to read from Kafka. */
    public record LogRead(String epoch, TopicPartition partition, long from, long to) {
    }

    /**
     * Offsets {@code fromSeq..toSeq} of partition {@code epoch} are lost to this client; {@code toSeq} -1 means
     * "unknown" (the epoch itself is gone).
     */
    public record Gap(String epoch, long fromSeq, long toSeq, String reason) {
    }

    public static final String GAP_UNKNOWN_EPOCH = "unknown_epoch";
    public static final String GAP_RETENTION = "retention";
    public static final String GAP_TOO_FAR_BEHIND = "too_far_behind";

    public boolean needsKafka() {
        return !reads.isEmpty();
    }
}
