package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import javax.crypto.AEADBadTagException;
import javax.crypto.SecretKey;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.filter.records.BatchRewriter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * Encrypts record values (and optionally headers) of selected topics on Produce, and decrypts any
 * encrypted record on Fetch. Keys never leave the proxy unwrapped; the broker only ever sees ciphertext
 * for selected topics.
 *
 * <ul>
 *   <li>Produce: every selected partition is encrypted or the whole request is answered with an error
 *       (unknown KEK: INVALID_RECORD, unless the policy passes such topics through; KMS unreachable:
 *       REQUEST_TIMED_OUT, which producers retry). Nothing is ever forwarded in plaintext by accident.</li>
 *   <li>Fetch: a partition whose records cannot all be decrypted (key not unwrappable, tag mismatch,
 *       malformed value) is returned as CORRUPT_MESSAGE with no records: never garbage, never
 *       ciphertext. While the KMS is unreachable, such a partition comes back empty without error, so
 *       consumers simply fetch it again.</li>
 * </ul>
 */
final class RecordEncryptionFilter implements RequestFilter, ResponseFilter {

    private static final Logger LOG = LoggerFactory.getLogger(RecordEncryptionFilter.class);

    private final EncryptionPolicy policy;
    private final DataKeys keys;
    private final EncryptionMetrics metrics;
    private final RecordCipher cipher = new RecordCipher();

    RecordEncryptionFilter(EncryptionPolicy policy, DataKeys keys, EncryptionMetrics metrics) {
        this.policy = policy;
        this.keys = keys;
        this.metrics = metrics;
    }

    @Override
    public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
        return apiKey == ApiKeys.PRODUCE;
    }

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return apiKey == ApiKeys.FETCH;
    }

    // ---- produce: encrypt ----

    @Override
    public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, RequestHeaderData header, ApiMessage request, FilterContext context) {
        ProduceRequestData produce = (ProduceRequestData) request;
        List<Uuid> ids = new ArrayList<>();
        produce.topicData().forEach(t -> {
            if (t.name() == null || t.name().isEmpty()) {
                ids.add(t.topicId());
            }
        });
        return context.topicNames(ids).thenCompose(names -> encrypt(header, produce, names, context));
    }

    private CompletionStage<RequestFilterResult> encrypt(RequestHeaderData header, ProduceRequestData produce, Map<Uuid, String> names, FilterContext context) {
        Map<String, Integer> recordsByKek = new HashMap<>();
        Map<ProduceRequestData.TopicProduceData, String[]> selected = new HashMap<>();
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            String name = topic.name() != null && !topic.name().isEmpty() ? topic.name() : names.get(topic.topicId());
            policy.kekFor(name).ifPresent(kek -> {
                selected.put(topic, new String[] { name, kek });
                int count = 0;
                for (ProduceRequestData.PartitionProduceData p : topic.partitionData()) {
                    count += countRecords((MemoryRecords) p.records());
                }
                recordsByKek.merge(kek, count, Integer::sum);
            });
        }
        if (selected.isEmpty()) {
            return context.forwardRequest(header, produce);
        }
        Map<String, CompletableFuture<List<DataKeys.DataKey>>> keysByKek = new HashMap<>();
        recordsByKek.forEach((kek, count) -> keysByKek.put(kek, keys.forEncryption(kek, count).toCompletableFuture()));
        return CompletableFuture.allOf(keysByKek.values().stream().map(f -> f.handle((k, e) -> null)).toArray(CompletableFuture[]::new))
                .thenApplyAsync(done -> {
                    Map<String, KeyAllotment> allotments = new HashMap<>();
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
                        KeyAllotment allotment = allotments.computeIfAbsent(kek, k -> new KeyAllotment(key.join(), keys.recordsPerKey()));
                        for (ProduceRequestData.PartitionProduceData partition : entry.getKey().partitionData()) {
                            partition.setRecords(encrypt(topic, kek, allotment, (MemoryRecords) partition.records()));
                        }
                    }
                    return context.requestFilterResultBuilder().forward(header, produce).build();
                }, context.eventLoop());
    }

    /** Hands out a KEK's data keys record by record, each for at most its quota of records. */
    private static final class KeyAllotment {
        private final List<DataKeys.DataKey> keys;
        private final int perKey;
        private int used;

        KeyAllotment(List<DataKeys.DataKey> keys, int perKey) {
            this.keys = keys;
            this.perKey = perKey;
        }

        DataKeys.DataKey next() {
            return keys.get(Math.min(used++ / perKey, keys.size() - 1));
        }
    }

    private MemoryRecords encrypt(String topic, String kek, KeyAllotment allotment, MemoryRecords records) {
        return BatchRewriter.rewrite(records, (batch, record) -> {
            if (!record.hasValue()) {
                // A tombstone must stay a tombstone for compaction to remove the key.
                return null;
            }
            DataKeys.DataKey dataKey = allotment.next();
            RecordCipher.EncryptedRecord encrypted = cipher.encrypt(topic, record.key(), new RecordCipher.Plain(record.value(), record.headers()),
                    dataKey.key(), dataKey.wrapped(), kek, policy.encryptHeaders());
            metrics.recordsEncrypted.increment();
            return new BatchRewriter.Rewritten(encrypted.value(), encrypted.headers());
        });
    }

    private RequestFilterResult refuse(RequestHeaderData header, ProduceRequestData produce, String topic, String kek, Throwable error, FilterContext context) {
        org.apache.kafka.common.errors.ApiException reason;
        if (error instanceof DataKeys.UnknownKekException) {
            reason = new InvalidRecordException("topic " + topic + " is encrypted with KEK '" + kek + "', which the KMS does not have");
        } else {
            reason = new TimeoutException("no data key for topic " + topic + " (KEK '" + kek + "'): " + error.getMessage() + "; retry later");
        }
        LOG.warn("{}: refusing produce to {}: {}", context.channelDescriptor(), topic, reason.getMessage());
        return context.requestFilterResultBuilder().errorResponse(header, produce, reason).build();
    }

    private static int countRecords(MemoryRecords records) {
        int count = 0;
        for (MutableRecordBatch batch : records.batches()) {
            Integer n = batch.countOrNull();
            count += n == null ? 1 : n;
        }
        return count;
    }

    // ---- fetch: decrypt ----

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        FetchResponseData fetch = (FetchResponseData) response;
        Map<WrappedKey, CompletableFuture<SecretKey>> unwrapped = new HashMap<>();
        boolean anyEncrypted = false;
        for (FetchResponseData.FetchableTopicResponse topic : fetch.responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                if (!(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
                    continue;
                }
                for (MutableRecordBatch batch : records.batches()) {
                    if (batch.isControlBatch()) {
                        continue;
                    }
                    for (Record record : batch) {
                        if (RecordCipher.isEncrypted(record.headers()) && record.hasValue()) {
                            anyEncrypted = true;
                            try {
                                EncryptedValue value = EncryptedValue.parse(record.value());
                                unwrapped.computeIfAbsent(new WrappedKey(value.kekName(), ByteBuffer.wrap(value.wrappedKey())),
                                        k -> keys.forDecryption(k.kek(), value.wrappedKey()).toCompletableFuture());
                            } catch (IllegalArgumentException malformed) {
                                // Reported per partition when decrypting.
                            }
                        }
                    }
                }
            }
        }
        if (!anyEncrypted) {
            return context.forwardResponse(header, response);
        }
        List<Uuid> ids = new ArrayList<>();
        fetch.responses().forEach(t -> {
            if (t.topic() == null || t.topic().isEmpty()) {
                ids.add(t.topicId());
            }
        });
        CompletableFuture<?> allKeys = CompletableFuture.allOf(unwrapped.values().stream().map(f -> f.handle((k, e) -> null)).toArray(CompletableFuture[]::new));
        return context.topicNames(ids).thenCombine(allKeys, (names, done) -> names)
                .thenApplyAsync(names -> {
                    for (FetchResponseData.FetchableTopicResponse topic : fetch.responses()) {
                        String name = topic.topic() != null && !topic.topic().isEmpty() ? topic.topic() : names.get(topic.topicId());
                        for (FetchResponseData.PartitionData partition : topic.partitions()) {
                            decryptPartition(name, partition, unwrapped, context);
                        }
                    }
                    return context.responseFilterResultBuilder().forward(header, response).build();
                }, context.eventLoop());
    }

    private void decryptPartition(String topic, FetchResponseData.PartitionData partition, Map<WrappedKey, CompletableFuture<SecretKey>> unwrapped,
                                  FilterContext context) {
        if (!(partition.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
            return;
        }
        try {
            partition.setRecords(BatchRewriter.rewrite(records, (batch, record) -> {
                if (!RecordCipher.isEncrypted(record.headers()) || !record.hasValue()) {
                    return null;
                }
                EncryptedValue value = EncryptedValue.parse(record.value());
                CompletableFuture<SecretKey> key = unwrapped.get(new WrappedKey(value.kekName(), ByteBuffer.wrap(value.wrappedKey())));
                if (key == null || key.isCompletedExceptionally()) {
                    throw new KeyFailure(key == null ? new IllegalStateException("no key") : cause(key), record.offset());
                }
                try {
                    RecordCipher.Plain plain = cipher.decrypt(topic, record.key(), value, record.headers(), key.join());
                    metrics.recordsDecrypted.increment();
                    return new BatchRewriter.Rewritten(plain.value(), plain.headers());
                } catch (AEADBadTagException e) {
                    throw new IllegalArgumentException("authentication tag mismatch at offset " + record.offset()
                            + " (tampered with, or copied from another topic or key)");
                }
            }));
        } catch (KeyFailure failure) {
            if (failure.getCause() instanceof DataKeys.KeysUnavailableException) {
                LOG.warn("{}: {}-{}: KMS unavailable ({}); returning no records so the consumer fetches again", context.channelDescriptor(), topic,
                        partition.partitionIndex(), failure.getCause().getMessage());
                partition.setRecords(MemoryRecords.EMPTY);
            } else {
                corrupt(topic, partition, "data key at offset " + failure.offset + " cannot be unwrapped: " + failure.getCause().getMessage(), context);
            }
        } catch (IllegalArgumentException malformed) {
            corrupt(topic, partition, malformed.getMessage(), context);
        }
    }

    private void corrupt(String topic, FetchResponseData.PartitionData partition, String why, FilterContext context) {
        metrics.decryptFailures.increment();
        LOG.warn("{}: {}-{}: cannot decrypt, returning CORRUPT_MESSAGE: {}", context.channelDescriptor(), topic, partition.partitionIndex(), why);
        partition.setErrorCode(Errors.CORRUPT_MESSAGE.code()).setRecords(MemoryRecords.EMPTY);
    }

    private static Throwable cause(CompletableFuture<?> failed) {
        try {
            failed.join();
            return new IllegalStateException("not failed");
        } catch (CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    /** A data key as it sits in records: which KEK, and the wrapped bytes. */
    private record WrappedKey(String kek, ByteBuffer wrapped) {
    }

    /** Carries a key failure out of the record transform with the offset it happened at. */
    private static final class KeyFailure extends RuntimeException {
        final long offset;

        KeyFailure(Throwable cause, long offset) {
            super(cause.getMessage(), cause, false, false);
            this.offset = offset;
        }
    }
}
