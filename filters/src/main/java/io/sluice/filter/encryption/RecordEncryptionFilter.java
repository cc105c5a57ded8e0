package io.sluice.filter.encryption;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.auth.KeyAccess;
import io.sluice.auth.Permissions;
import io.sluice.filter.jwt.JwtAuth;
import io.sluice.filter.records.BatchRewriter;
import io.sluice.filter.records.FetchedRecords;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.records.RefusedPartitions;
import io.sluice.filter.records.UnreadableRecords;
import io.sluice.proxy.filter.FetchResponseFilter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ProduceRequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.proxy.filter.ShareFetchResponseFilter;

/**
 * Encrypts record values (and optionally headers) of selected topics on Produce, and decrypts any
 * encrypted record on Fetch. Keys never leave the proxy unwrapped; the broker only ever sees ciphertext
 * for selected topics.
 *
 * <ul>
 *   <li>Produce: every selected partition is encrypted or the whole request is answered with an error
 *       (unknown KEK: INVALID_RECORD, unless the policy passes such topics through; KMS unreachable:
 *       REQUEST_TIMED_OUT, which producers retry). Nothing is ever forwarded in plaintext by accident.</li>
 *   <li>Produce naming a topic by an id that cannot be resolved: refused whole with UNKNOWN_TOPIC_ID, since whether
 *       that topic is encrypted cannot be known. Nobody is exempt (this filter knows no admin).</li>
 *   <li>Fetch: only topics the policy selects are decrypted; elsewhere the marker header means nothing and records
 *       pass as stored. Encrypted records the reader may not see by key (JwtAuth key rules on this topic name) are
 *       dropped before decryption. A record that cannot be decrypted (key not unwrappable, tag mismatch,
 *       malformed value) fails its partition as CORRUPT_MESSAGE with no records ({@code onUndecryptable: FAIL}, the
 *       default) or is dropped ({@code DROP}); either way it is counted and logged (rate-limited), and never
 *       delivered as ciphertext. While the KMS is unreachable, a partition needing an uncached key comes back
 *       empty without error, so consumers simply fetch it again. A Fetch topic id that cannot be resolved gets
 *       UNKNOWN_TOPIC_ID and no records: they might be ciphertext.</li>
 * </ul>
 */
final class RecordEncryptionFilter implements ProduceRequestFilter, FetchResponseFilter, ShareFetchResponseFilter {

    private static final Logger LOG = LoggerFactory.getLogger(RecordEncryptionFilter.class);

    private final EncryptionPolicy policy;
    private final DataKeys keys;
    private final EncryptionMetrics metrics;
    private final UndecryptableRecords undecryptable;
    private final ProduceRefusals refusals;
    private final RecordCipher cipher;
    private final RecordReaders readers;

    RecordEncryptionFilter(EncryptionPolicy policy, DataKeys keys, EncryptionMetrics metrics, UndecryptableRecords undecryptable, ProduceRefusals refusals,
                           RecordCipher cipher, RecordReaders readers) {
        this.policy = policy;
        this.keys = keys;
        this.metrics = metrics;
        this.undecryptable = undecryptable;
        this.refusals = refusals;
        this.cipher = cipher;
        this.readers = readers;
    }

    // ---- produce: encrypt ----

    @Override
    public CompletionStage<RequestFilterResult> onProduceRequest(short apiVersion, RequestHeaderData header, ProduceRequestData produce,
                                                                 FilterContext context) {
        List<Uuid> ids = new ArrayList<>();
        produce.topicData().forEach(t -> {
            if (t.name() == null || t.name().isEmpty()) {
                ids.add(t.topicId());
            }
        });
        CompletionStage<Map<Uuid, String>> names = ids.isEmpty() ? CompletableFuture.completedFuture(Map.of()) : context.topicNames(ids);
        return onEventLoop(names, context, n -> encrypt(header, produce, n, context));
    }

    private CompletionStage<RequestFilterResult> encrypt(RequestHeaderData header, ProduceRequestData produce, Map<Uuid, String> names, FilterContext context) {
        try {
            return encrypt(header, produce, names, new IdentityHashMap<>(), context);
        } catch (UnreadableRecords e) {
            // Counted and logged (rate-limited) by the reader.
            return CompletableFuture.completedFuture(context.requestFilterResultBuilder().errorResponse(header, produce, e.toApiException()).build());
        }
    }

    /**
     * Data keys are reserved for the records counted by reading them, never for what batch headers claim.
     *
     * @throws UnreadableRecords when a selected partition's records cannot be read within the limits
     */
    private CompletionStage<RequestFilterResult> encrypt(RequestHeaderData header, ProduceRequestData produce, Map<Uuid, String> names,
                                                         Map<ProduceRequestData.PartitionProduceData, Integer> counted, FilterContext context) {
        RecordReader counting = readers.forProduce();
        Map<String, Integer> recordsByKek = new HashMap<>();
        Map<ProduceRequestData.TopicProduceData, String[]> selected = new HashMap<>();
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            String name = topic.name() != null && !topic.name().isEmpty() ? topic.name() : names.get(topic.topicId());
            if (name == null) {
                // Encrypted or not cannot be told, so it must not reach the broker in plaintext.
                metrics.unknownTopicIds.increment();
                LOG.warn("{}: refusing produce to topic id {}: the cluster does not know it, so whether it is encrypted cannot be told",
                        context.channelDescriptor(), topic.topicId());
                return context.requestFilterResultBuilder().errorResponse(header, produce,
                        new UnknownTopicIdException("topic id " + topic.topicId() + " is not known")).completed();
            }
            policy.kekFor(name).ifPresent(kek -> {
                selected.put(topic, new String[] { name, kek });
                int count = 0;
                for (ProduceRequestData.PartitionProduceData p : topic.partitionData()) {
                    int n = counting.count((MemoryRecords) p.records());
                    counted.put(p, n);
                    count = Math.addExact(count, n);
                }
                recordsByKek.merge(kek, count, Math::addExact);
            });
        }
        if (selected.isEmpty()) {
            return context.forwardRequest(header, produce);
        }
        Map<String, CompletableFuture<List<DataKeys.DataKey>>> keysByKek = new HashMap<>();
        recordsByKek.forEach((kek, count) -> keysByKek.put(kek, keys.forEncryption(kek, count).toCompletableFuture()));
        CompletableFuture<Void> allKeys = CompletableFuture.allOf(keysByKek.values().stream().map(f -> f.handle((k, e) -> null)).toArray(CompletableFuture[]::new));
        return onEventLoop(allKeys, context, done -> CompletableFuture.completedFuture(encrypt(header, produce, selected, keysByKek, recordsByKek, counted, context)));
    }

    /**
     * Encrypts the selected topics once their keys are known, or refuses the whole request if one has none. A partition
     * holding a record the encrypted format cannot hold is refused alone with INVALID_RECORD, as a broker refuses a
     * partition's invalid records, and the rest of the request goes on.
     */
    private RequestFilterResult encrypt(RequestHeaderData header, ProduceRequestData produce, Map<ProduceRequestData.TopicProduceData, String[]> selected,
                                        Map<String, CompletableFuture<List<DataKeys.DataKey>>> keysByKek, Map<String, Integer> recordsByKek,
                                        Map<ProduceRequestData.PartitionProduceData, Integer> counted, FilterContext context) {
        Map<String, PartitionEncryptor> encryptors = new HashMap<>();
        RefusedPartitions refused = new RefusedPartitions();
        long encrypted = 0;
        RecordReader reader = readers.forProduce();
        for (var entry : selected.entrySet()) {
            String topic = entry.getValue()[0];
            String kek = entry.getValue()[1];
            CompletableFuture<List<DataKeys.DataKey>> key = keysByKek.get(kek);
            if (key.isCompletedExceptionally()) {
                Throwable error = cause(key);
                if (error instanceof DataKeys.UnknownKekException && policy.unresolvedKek() == EncryptionPolicy.UnresolvedKek.PASSTHROUGH) {
                    LOG.warn("{}: KEK '{}' for topic {} does not exist; writing its records unencrypted (unresolvedKek: PASSTHROUGH)",
                            context.channelDescriptor(), kek, topic);
                    metrics.unencryptedPassthrough.increment(recordsByKek.get(kek));
                    continue;
                }
                metrics.encryptFailures.increment();
                return refuse(header, produce, topic, kek, error, context);
            }
            for (ProduceRequestData.PartitionProduceData partition : entry.getKey().partitionData()) {
                try {
                    PartitionEncryptor encryptor = encryptors.computeIfAbsent(kek,
                            k -> new PartitionEncryptor(k, key.join(), keys.recordsPerKey(), policy.encryptHeaders(), cipher));
                    int before = encryptor.encrypted();
                    partition.setRecords(encryptor.encrypt(topic, (MemoryRecords) partition.records(), counted.get(partition), reader));
                    encrypted += encryptor.encrypted() - before;
                } catch (UnencryptableRecordException e) {
                    // Written, its lengths would be cut to their fields' bits and the partition would never decrypt again.
                    // Nothing of it goes on; what it encrypted is dropped, and the data key's quota it took stays spent.
                    refusals.unencryptable(context.channelDescriptor(), topic, partition.index(), e.getMessage());
                    refused.refuse(entry.getKey(), partition, Errors.INVALID_RECORD, "cannot encrypt: " + e.getMessage());
                }
            }
        }
        metrics.recordsEncrypted.increment(encrypted);
        if (!refused.isEmpty()) {
            return refused.result(header, produce, context);
        }
        return context.requestFilterResultBuilder().forward(header, produce).build();
    }

    private RequestFilterResult refuse(RequestHeaderData header, ProduceRequestData produce, String topic, String kek, Throwable error, FilterContext context) {
        ApiException reason;
        if (error instanceof DataKeys.UnknownKekException) {
            reason = new InvalidRecordException("topic " + topic + " is encrypted with KEK '" + kek + "', which the KMS does not have");
        } else if (error instanceof DataKeys.KekRefusedException) {
            // Not retriable: the KMS answered, and its answer (a disabled or forbidden key) stands until an operator acts;
            // a producer retrying until delivery.timeout.ms would only hide the reason behind a timeout.
            reason = new PolicyViolationException("topic " + topic + " is encrypted with KEK '" + kek + "', which the KMS refuses to use: "
                    + error.getMessage());
        } else {
            reason = new TimeoutException("no data key for topic " + topic + " (KEK '" + kek + "'): " + error.getMessage() + "; retry later");
        }
        refusals.noDataKey(context.channelDescriptor(), topic, reason.getMessage());
        return context.requestFilterResultBuilder().errorResponse(header, produce, reason).build();
    }

    // ---- fetch: decrypt ----

    @Override
    public CompletionStage<ResponseFilterResult> onFetchResponse(short apiVersion, ResponseHeaderData header, FetchResponseData response,
                                                                 FilterContext context) {
        return decryptResponse(header, response, FetchedRecords.of(response), context);
    }

    @Override
    public CompletionStage<ResponseFilterResult> onShareFetchResponse(short apiVersion, ResponseHeaderData header, ShareFetchResponseData response,
                                                                      FilterContext context) {
        return decryptResponse(header, response, FetchedRecords.of(response), context);
    }

    private CompletionStage<ResponseFilterResult> decryptResponse(ResponseHeaderData header, ApiMessage response, List<FetchedRecords.Topic> topics,
                                                                  FilterContext context) {
        List<Uuid> ids = FetchedRecords.unnamedIds(topics);
        // Topic names are needed for the associated data; with topic ids they come from the connection's cache.
        CompletionStage<Map<Uuid, String>> names = ids.isEmpty() ? CompletableFuture.completedFuture(Map.of()) : context.topicNames(ids);
        PartitionDecryptor decryptor = new PartitionDecryptor(keys, cipher, readers.forFetch(),
                policy.onUndecryptable() == EncryptionPolicy.OnUndecryptable.DROP);
        Set<FetchedRecords.Partition> done = Collections.newSetFromMap(new IdentityHashMap<>());
        return onEventLoop(names, context, n -> decrypt(topics, n, decryptor, done, context))
                .thenApply(finished -> {
                    metrics.recordsDecrypted.increment(decryptor.decrypted());
                    return context.responseFilterResultBuilder().forward(header, response).build();
                });
    }

    /**
     * Decrypts every partition not yet done. Partitions that wait for data keys are tried again once those are
     * unwrapped, back on the event loop; in the steady state every key is cached and this is one pass.
     */
    private CompletionStage<Void> decrypt(List<FetchedRecords.Topic> topics, Map<Uuid, String> names, PartitionDecryptor decryptor,
                                          Set<FetchedRecords.Partition> done, FilterContext context) {
        List<CompletableFuture<Void>> waits = new ArrayList<>(0);
        for (FetchedRecords.Topic topic : topics) {
            String name = topic.name() != null && !topic.name().isEmpty() ? topic.name() : names.get(topic.id());
            boolean encrypted = policy.encrypts(name);
            KeyAccess visible = encrypted ? visibleKeys(name, context) : KeyAccess.ALL;
            for (FetchedRecords.Partition partition : topic.partitions()) {
                if (done.contains(partition) || !(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
                    continue;
                }
                if (name == null) {
                    // Which topic these are cannot be told, nor whether they are ciphertext: the client gets none.
                    metrics.unknownTopicIds.increment();
                    partition.fail(Errors.UNKNOWN_TOPIC_ID);
                    done.add(partition);
                    continue;
                }
                if (!encrypted) {
                    done.add(partition);
                    continue;
                }
                try {
                    decryptPartition(name, partition, records, visible, decryptor, context);
                    done.add(partition);
                } catch (PartitionDecryptor.KeysPending pending) {
                    waits.add(pending.ready);
                }
            }
        }
        if (waits.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new))
                .thenComposeAsync(ready -> decrypt(topics, names, decryptor, done, context), context.eventLoop());
    }

    /** @throws PartitionDecryptor.KeysPending when the partition waits for data keys and must be tried again */
    private void decryptPartition(String topic, FetchedRecords.Partition partition, MemoryRecords records, KeyAccess visible,
                                  PartitionDecryptor decryptor, FilterContext context) {
        int listed = decryptor.undecryptable().size();
        try {
            partition.records(decryptor.decrypt(topic, records, visible));
            reportDropped(topic, partition, decryptor, listed, context);
        } catch (PartitionDecryptor.KeyFailure failure) {
            if (failure.getCause() instanceof DataKeys.KeysUnavailableException) {
                LOG.warn("{}: {}-{}: KMS unavailable ({}); returning no records so the consumer fetches again", context.channelDescriptor(), topic,
                        partition.index(), failure.getCause().getMessage());
                partition.records(MemoryRecords.EMPTY);
            } else {
                corrupt(topic, partition, decryptor, listed, failure, context);
            }
        } catch (IllegalArgumentException malformed) {
            corrupt(topic, partition, decryptor, listed, malformed, context);
        } catch (UnreadableRecords unreadable) {
            unreadable.fetchAnswer().ifPresentOrElse(partition::records, () -> partition.fail(Errors.CORRUPT_MESSAGE));
        }
    }

    private void corrupt(String topic, FetchedRecords.Partition partition, PartitionDecryptor decryptor, int listedBefore, RuntimeException why,
                         FilterContext context) {
        metrics.decryptFailures.increment();
        List<PartitionDecryptor.Undecryptable> listed = decryptor.undecryptable();
        PartitionDecryptor.Undecryptable record = listed.size() > listedBefore ? listed.get(listed.size() - 1)
                : new PartitionDecryptor.Undecryptable(PartitionDecryptor.Reason.MALFORMED, -1, why.getMessage());
        undecryptable.record(context.channelDescriptor(), topic, partition.index(), record, false);
        partition.fail(Errors.CORRUPT_MESSAGE);
    }

    private void reportDropped(String topic, FetchedRecords.Partition partition, PartitionDecryptor decryptor, int listedBefore,
                               FilterContext context) {
        List<PartitionDecryptor.Undecryptable> listed = decryptor.undecryptable();
        for (int i = listedBefore; i < listed.size(); i++) {
            undecryptable.record(context.channelDescriptor(), topic, partition.index(), listed.get(i), true);
        }
    }

    /**
     * The keys of {@code topic} the connection's principal may read, when JwtAuth restricts them under this very name;
     * otherwise all (no JwtAuth, no key rule, or the topic is read under another name, a KeyRouting virtual topic,
     * whose rules only the filters nearer the client can apply).
     */
    private static KeyAccess visibleKeys(String topic, FilterContext context) {
        KeyAccess read = context.principal()
                .flatMap(p -> p.attribute(JwtAuth.PERMISSIONS_ATTRIBUTE, Permissions.class))
                .map(p -> p.topic(topic).read())
                .orElse(KeyAccess.ALL);
        return read.any() ? read : KeyAccess.ALL;
    }

    /**
     * Runs {@code next} at once when {@code stage} is already complete (cached keys and names: the steady state),
     * else on the connection's event loop once it completes, since a filter's state belongs to that thread.
     */
    private static <T, R> CompletionStage<R> onEventLoop(CompletionStage<T> stage, FilterContext context, Function<T, CompletionStage<R>> next) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        return future.isDone() ? future.thenCompose(next) : future.thenComposeAsync(next, context.eventLoop());
    }

    private static Throwable cause(CompletableFuture<?> failed) {
        return PartitionDecryptor.cause(failed);
    }
}
