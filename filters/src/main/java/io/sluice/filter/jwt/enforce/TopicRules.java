package io.sluice.filter.jwt.enforce;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.requests.FetchMetadata;

import io.sluice.auth.TopicAccess;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.records.RefusedPartitions;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ResponseHook;

/**
 * Authorization of the APIs that read, write or describe topics. Writes are checked on the request (a
 * forbidden partition never reaches the broker); reads are checked on the response, where what the broker
 * returned for forbidden topics is replaced by TOPIC_AUTHORIZATION_FAILED before it reaches the client, and
 * records with forbidden keys are removed; except a full Fetch of topics the principal reads whole, which cannot
 * return anything to remove.
 */
final class TopicRules {

    private static final short TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED.code();

    private TopicRules() {
    }

    // ---- Produce: per partition, on the request ----

    /** A partition taken out of a Produce request, to be answered with an error. */
    private static final String NOT_PERMITTED = "not permitted to write these records to this topic";

    /** @param records the filter definition's record limits and meters, for the keys of produced records */
    static CompletionStage<Decision> produce(ProduceRequestData request, Access access, RecordReaders records, FilterContext context) {
        if (request.transactionalId() != null && !access.transactionalId(request.transactionalId())) {
            return CompletableFuture.completedFuture(Decision.deny(new TransactionalIdAuthorizationException(
                    "not permitted to use transactional id " + request.transactionalId())));
        }
        List<Uuid> ids = request.topicData().stream().map(ProduceRequestData.TopicProduceData::topicId).toList();
        return TopicIds.names(context, ids).thenApply(names -> produce(request, access, records.forProduce(), names));
    }

    private static Decision produce(ProduceRequestData request, Access access, RecordReader reader, Map<Uuid, String> names) {
        RefusedPartitions refused = new RefusedPartitions();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            String name = TopicIds.name(topic.name(), topic.topicId(), names);
            TopicAccess topicAccess = name == null ? null : access.topic(name);
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                Errors error = topicAccess == null ? Errors.UNKNOWN_TOPIC_ID
                        : ProducedKeys.check(partition.records(), reader, topicAccess.write());
                if (error != Errors.NONE) {
                    refused.refuse(topic, partition, error, error == Errors.TOPIC_AUTHORIZATION_FAILED ? NOT_PERMITTED : null);
                }
            }
        }
        if (refused.isEmpty()) {
            return Decision.FORWARD;
        }
        ProduceResponseData whole = refused.takeOut(request);
        if (whole != null) {
            return new Decision.Respond(whole);
        }
        ResponseHook hook = refused.responseHook(request);
        return hook == null ? Decision.FORWARD : Decision.forward(hook);
    }

    // ---- Fetch: per partition and per record, on the response unless the request shows there is nothing to check ----

    /**
     * A full Fetch (session epoch 0 or -1) is answered with the partitions it names and no others; when the principal
     * reads every one of their topics whole, the response cannot hold anything to refuse or remove, and is passed on
     * without being decoded. Such a fetch is also made sessionless (epoch 0 becomes -1), as KeyRouting does, so the
     * client's next fetch is full again and decided the same way: a fetch session would let later, incremental fetches
     * return partitions that no request of theirs names. An incremental fetch (epoch 1 or more) therefore always has
     * its response checked, whatever it names: the session it continues may be another client's, or hold other
     * topics.
     *
     * @param records the filter definition's record limits and meters, for the keys of fetched records
     */
    static CompletionStage<Decision> fetch(FetchRequestData request, Access access, RecordReaders records, FilterContext context) {
        if (request.replicaId() >= 0 || request.replicaState().replicaId() >= 0) {
            return CompletableFuture.completedFuture(Decision.deny(new ClusterAuthorizationException("only brokers fetch as replicas")));
        }
        if (request.sessionEpoch() > FetchMetadata.INITIAL_EPOCH) {
            return CompletableFuture.completedFuture(checkFetchResponse(access, records, context, Map.of()));
        }
        List<Uuid> ids = request.topics().stream().map(FetchRequestData.FetchTopic::topicId).toList();
        return TopicIds.names(context, ids).thenApply(names -> {
            for (FetchRequestData.FetchTopic topic : request.topics()) {
                String name = TopicIds.name(topic.topic(), topic.topicId(), names);
                if (name == null || !access.topic(name).read().all()) {
                    return checkFetchResponse(access, records, context, names);
                }
            }
            // Epoch -1 with a session id still closes that session, as the client asked.
            request.setSessionEpoch(FetchMetadata.FINAL_EPOCH);
            return Decision.FORWARD;
        });
    }

    /** @param known topic names the request's ids resolved to: only the response's other ids are looked up */
    private static Decision checkFetchResponse(Access access, RecordReaders records, FilterContext context, Map<Uuid, String> known) {
        return Decision.forward(response -> {
            FetchResponseData fetch = (FetchResponseData) response;
            List<Uuid> ids = fetch.responses().stream().map(FetchResponseData.FetchableTopicResponse::topicId)
                    .filter(id -> !known.containsKey(id)).toList();
            return TopicIds.names(context, ids).thenAccept(more -> {
                Map<Uuid, String> names = known;
                if (!more.isEmpty()) {
                    names = new HashMap<>(known);
                    names.putAll(more);
                }
                filterFetch(fetch, access, records.forFetch(), names);
            });
        });
    }

    private static void filterFetch(FetchResponseData response, Access access, RecordReader reader, Map<Uuid, String> names) {
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            String name = TopicIds.name(topic.topic(), topic.topicId(), names);
            TopicAccess topicAccess = name == null ? null : access.topic(name);
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                if (topicAccess == null || !topicAccess.read().any()) {
                    refuse(partition, topicAccess == null && partition.errorCode() != 0 ? partition.errorCode()
                            : topicAccess == null ? Errors.UNKNOWN_TOPIC_ID.code() : TOPIC_DENIED);
                } else if (!topicAccess.read().all() && partition.records() instanceof MemoryRecords records) {
                    RecordKeyFilter.filter(partition, records, reader, topicAccess.read());
                }
            }
        }
    }

    private static void refuse(FetchResponseData.PartitionData partition, short error) {
        partition.setErrorCode(error)
                .setHighWatermark(-1)
                .setLastStableOffset(-1)
                .setLogStartOffset(-1)
                .setPreferredReadReplica(-1)
                .setRecords(MemoryRecords.EMPTY);
        if (partition.abortedTransactions() != null) {
            partition.abortedTransactions().clear();
        }
    }

    // ---- ListOffsets, OffsetForLeaderEpoch, DescribeProducers: describe/read, on the response ----

    static Decision listOffsets(Access access) {
        return Decision.forward(response -> {
            for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : ((ListOffsetsResponseData) response).topics()) {
                if (!access.describe(topic.name())) {
                    topic.partitions().forEach(p -> p.setErrorCode(TOPIC_DENIED).setOffset(-1).setTimestamp(-1).setLeaderEpoch(-1));
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    static Decision offsetForLeaderEpoch(OffsetForLeaderEpochRequestData request, Access access) {
        if (request.replicaId() >= 0) {
            return Decision.deny(new ClusterAuthorizationException("only brokers ask as replicas"));
        }
        return Decision.forward(response -> {
            for (OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic : ((OffsetForLeaderEpochResponseData) response).topics()) {
                if (!access.describe(topic.topic())) {
                    topic.partitions().forEach(p -> p.setErrorCode(TOPIC_DENIED).setLeaderEpoch(-1).setEndOffset(-1));
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    static Decision describeProducers(Access access) {
        return Decision.forward(response -> {
            for (DescribeProducersResponseData.TopicResponse topic : ((DescribeProducersResponseData) response).topics()) {
                if (!access.topic(topic.name()).read().any()) {
                    topic.partitions().forEach(p -> {
                        p.setErrorCode(TOPIC_DENIED).setErrorMessage(null);
                        p.activeProducers().clear();
                    });
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    // ---- Metadata and DescribeTopicPartitions: only describable topics ----

    /**
     * Never lets the broker create a topic, and lists only topics the principal may describe. A topic asked
     * for by name but not describable is answered with TOPIC_AUTHORIZATION_FAILED whether it exists or not, so
     * its existence does not leak; when all topics are listed, such topics are left out.
     */
    static Decision metadata(short version, MetadataRequestData request, Access access) {
        if (version < RequestRules.OLDEST_METADATA_VERSION) {
            return new Decision.Close("Metadata v" + version + " cannot be kept from creating topics (the proxy offers v4 and later)");
        }
        request.setAllowAutoTopicCreation(false);
        if (access.admin()) {
            return Decision.FORWARD;
        }
        boolean all = request.topics() == null;
        Set<String> askedNames = new HashSet<>();
        Set<Uuid> askedIds = new HashSet<>();
        if (!all) {
            for (MetadataRequestData.MetadataRequestTopic topic : request.topics()) {
                if (topic.name() != null) {
                    askedNames.add(topic.name());
                }
                if (topic.topicId() != null && !Uuid.ZERO_UUID.equals(topic.topicId())) {
                    askedIds.add(topic.topicId());
                }
            }
        }
        return Decision.forward(response -> {
            List<MetadataResponseData.MetadataResponseTopic> hidden = new ArrayList<>();
            for (MetadataResponseData.MetadataResponseTopic topic : ((MetadataResponseData) response).topics()) {
                if (topic.name() == null || access.describe(topic.name())) {
                    continue;
                }
                if (all) {
                    hidden.add(topic);
                } else {
                    // Asked for by id (v10+), the entry must not say which name the id has: the client keeps only
                    // what it sent, the id, as a broker's own authorizer answers.
                    boolean byName = askedNames.contains(topic.name());
                    Uuid id = !byName && askedIds.contains(topic.topicId()) ? topic.topicId() : Uuid.ZERO_UUID;
                    topic.setErrorCode(TOPIC_DENIED).setName(byName ? topic.name() : null).setTopicId(id).setIsInternal(false)
                            .setTopicAuthorizedOperations(Integer.MIN_VALUE);
                    topic.partitions().clear();
                }
            }
            hidden.forEach(((MetadataResponseData) response).topics()::remove);
            return CompletableFuture.completedFuture(null);
        });
    }
}
