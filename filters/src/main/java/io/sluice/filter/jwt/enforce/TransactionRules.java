package io.sluice.filter.jwt.enforce;

import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;

/**
 * Authorization of transactions: each request needs its transactional id, and whatever else it touches
 * (write on the topics added, the group whose offsets are committed, read on the committed topics).
 * Idempotent producers (no transactional id) need nothing beyond write on the topics they produce to.
 */
final class TransactionRules {

    /** AddPartitionsToTxn v4 and later are sent by brokers to verify transactions, never by clients. */
    private static final short ADD_PARTITIONS_BROKER_ONLY = 4;

    private TransactionRules() {
    }

    static Decision initProducerId(InitProducerIdRequestData request, Access access) {
        String id = request.transactionalId();
        return id == null || access.transactionalId(id) ? Decision.FORWARD : denyId(id);
    }

    static Decision addPartitions(short version, AddPartitionsToTxnRequestData request, Access access) {
        if (version >= ADD_PARTITIONS_BROKER_ONLY) {
            return access.admin() ? Decision.FORWARD : Decision.deny(new ClusterAuthorizationException("only brokers verify transactions"));
        }
        String id = request.v3AndBelowTransactionalId();
        if (!access.transactionalId(id)) {
            return denyId(id);
        }
        for (AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic topic : request.v3AndBelowTopics()) {
            if (!access.topic(topic.name()).write().any()) {
                return Decision.deny(new TopicAuthorizationException("not permitted to write to topic " + topic.name()));
            }
        }
        return Decision.FORWARD;
    }

    static Decision addOffsets(AddOffsetsToTxnRequestData request, Access access) {
        if (!access.transactionalId(request.transactionalId())) {
            return denyId(request.transactionalId());
        }
        return access.group(request.groupId()) ? Decision.FORWARD
                : Decision.deny(new GroupAuthorizationException("not permitted to use group " + request.groupId()));
    }

    static Decision endTxn(EndTxnRequestData request, Access access) {
        return access.transactionalId(request.transactionalId()) ? Decision.FORWARD : denyId(request.transactionalId());
    }

    static Decision txnOffsetCommit(TxnOffsetCommitRequestData request, Access access) {
        if (!access.transactionalId(request.transactionalId())) {
            return denyId(request.transactionalId());
        }
        if (!access.group(request.groupId())) {
            return Decision.deny(new GroupAuthorizationException("not permitted to use group " + request.groupId()));
        }
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : request.topics()) {
            if (!access.topic(topic.name()).read().any()) {
                return Decision.deny(new TopicAuthorizationException("not permitted to commit offsets of topic " + topic.name()));
            }
        }
        return Decision.FORWARD;
    }

    private static Decision denyId(String id) {
        return Decision.deny(new TransactionalIdAuthorizationException("not permitted to use transactional id " + id));
    }
}
