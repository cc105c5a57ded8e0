package io.sluice.filter.policy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.UnreadableRecords;

/**
 * One rule's policies on Produce. In: a request's acks, then each partition's records; out: what they break, into a
 * {@link Judgement}. Reads only what the configured policies need: acks is a request field; compression, idempotence and
 * batch size are batch-header fields (no record is read, nothing is decompressed); only record size, key, headers and
 * timestamps read the records, through the filter's bounded {@link RecordReader}, decompressing compressed batches.
 *
 * <p>Errors are the broker's own for the same faults, so clients handle them as they handle the broker's:
 * INVALID_REQUIRED_ACKS (request-level), UNSUPPORTED_COMPRESSION_TYPE, MESSAGE_TOO_LARGE (kafka-clients splits a batch
 * of several records refused with it and retries the halves, so a lone over-size record fails alone), INVALID_RECORD
 * and INVALID_TIMESTAMP with the record named in {@code record_errors}, as the broker's own timestamp check does; and
 * POLICY_VIOLATION for idempotence, which no broker error describes.</p>
 */
final class ProducePolicy {

    private final short requiredAcks;
    private final Set<CompressionType> compressionTypes;
    private final boolean idempotence;
    private final int maxBatchBytes;
    private final int maxRecordBytes;
    private final boolean requireKey;
    private final List<String> requiredHeaders;
    private final Duration maxPast;
    private final Duration maxFuture;
    private final Set<PolicyId> policies;

    private ProducePolicy(short requiredAcks, Set<CompressionType> compressionTypes, boolean idempotence, int maxBatchBytes, int maxRecordBytes,
                          boolean requireKey, List<String> requiredHeaders, Duration maxPast, Duration maxFuture) {
        this.requiredAcks = requiredAcks;
        this.compressionTypes = compressionTypes;
        this.idempotence = idempotence;
        this.maxBatchBytes = maxBatchBytes;
        this.maxRecordBytes = maxRecordBytes;
        this.requireKey = requireKey;
        this.requiredHeaders = List.copyOf(requiredHeaders);
        this.maxPast = maxPast;
        this.maxFuture = maxFuture;
        Set<PolicyId> set = EnumSet.noneOf(PolicyId.class);
        if (requiredAcks != 0) {
            set.add(PolicyId.PRODUCE_REQUIRED_ACKS);
        }
        if (compressionTypes != null) {
            set.add(PolicyId.PRODUCE_COMPRESSION_TYPES);
        }
        if (idempotence) {
            set.add(PolicyId.PRODUCE_IDEMPOTENCE);
        }
        if (maxBatchBytes > 0) {
            set.add(PolicyId.PRODUCE_MAX_BATCH_BYTES);
        }
        if (maxRecordBytes > 0) {
            set.add(PolicyId.PRODUCE_MAX_RECORD_BYTES);
        }
        if (requireKey) {
            set.add(PolicyId.PRODUCE_REQUIRE_KEY);
        }
        if (!requiredHeaders.isEmpty()) {
            set.add(PolicyId.PRODUCE_REQUIRED_HEADERS);
        }
        if (maxPast != null || maxFuture != null) {
            set.add(PolicyId.PRODUCE_TIMESTAMPS);
        }
        this.policies = Set.copyOf(set);
    }

    static ProducePolicy compile(PoliciesConfig.ProduceConfig config, String path) {
        short acks = 0;
        if (config.requiredAcks() != null) {
            acks = switch (config.requiredAcks().strip().toLowerCase(Locale.ROOT)) {
                case "all", "-1" -> (short) -1;
                case "1" -> (short) 1;
                default -> throw new IllegalArgumentException(path + ".requiredAcks: expected all (or -1) or 1, not '" + config.requiredAcks()
                        + "' (0 would allow every acks: leave the field out)");
            };
        }
        Set<CompressionType> codecs = null;
        if (config.compressionTypes() != null) {
            if (config.compressionTypes().isEmpty()) {
                throw new IllegalArgumentException(path + ".compressionTypes: must name at least one of none, gzip, snappy, lz4, zstd");
            }
            codecs = EnumSet.noneOf(CompressionType.class);
            for (int i = 0; i < config.compressionTypes().size(); i++) {
                String name = config.compressionTypes().get(i);
                try {
                    codecs.add(CompressionType.forName(name.strip().toLowerCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(path + ".compressionTypes[" + i + "]: '" + name + "' is not one of none, gzip, snappy, lz4, zstd", e);
                }
            }
        }
        int maxBatch = ConfigFields.atLeastOne(config.maxBatchBytes(), path + ".maxBatchBytes");
        int maxRecord = ConfigFields.atLeastOne(config.maxRecordBytes(), path + ".maxRecordBytes");
        List<String> headers = new ArrayList<>();
        if (config.requiredHeaders() != null) {
            if (config.requiredHeaders().isEmpty()) {
                throw new IllegalArgumentException(path + ".requiredHeaders: must name at least one header, or be left out");
            }
            for (int i = 0; i < config.requiredHeaders().size(); i++) {
                String header = config.requiredHeaders().get(i);
                if (header.isEmpty()) {
                    throw new IllegalArgumentException(path + ".requiredHeaders[" + i + "]: must not be empty");
                }
                headers.add(header);
            }
        }
        Duration past = null;
        Duration future = null;
        if (config.timestamps() != null) {
            past = config.timestamps().maxPast();
            future = config.timestamps().maxFuture();
            if (past == null && future == null) {
                throw new IllegalArgumentException(path + ".timestamps: set maxPast, maxFuture or both");
            }
            millis(past, path + ".timestamps.maxPast");
            millis(future, path + ".timestamps.maxFuture");
        }
        ProducePolicy policy = new ProducePolicy(acks, codecs, Boolean.TRUE.equals(config.idempotence()), maxBatch, maxRecord,
                Boolean.TRUE.equals(config.requireKey()), headers, past, future);
        if (policy.policies.isEmpty()) {
            throw new IllegalArgumentException(path + ": sets no policy");
        }
        return policy;
    }

    private static void millis(Duration window, String path) {
        try {
            if (window != null) {
                window.toMillis();
            }
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(path + ": too long (" + window + ")", e);
        }
    }

    /** The policies this rule sets on Produce. */
    Set<PolicyId> policies() {
        return policies;
    }

    /** Whether any policy reads the partitions' records (batch headers or records): else acks is all there is to check. */
    boolean readsBatches() {
        return compressionTypes != null || idempotence || maxBatchBytes > 0 || readsRecords();
    }

    private boolean readsRecords() {
        return maxRecordBytes > 0 || requireKey || !requiredHeaders.isEmpty() || maxPast != null || maxFuture != null;
    }

    /** The request-level policy: acks. */
    void checkAcks(short acks, Judgement judgement) {
        if (requiredAcks == 0 || acks == -1 || acks == requiredAcks) {
            return;
        }
        judgement.violated(PolicyId.PRODUCE_REQUIRED_ACKS, Errors.INVALID_REQUIRED_ACKS, "acks=" + acks + " is not allowed: produce with "
                + (requiredAcks == -1 ? "acks=all (-1)" : "acks=1 or acks=all (-1)"));
    }

    /**
     * Checks one partition's records.
     *
     * @param nowMs the proxy's clock, for the timestamp window
     * @throws UnreadableRecords when a batch the policies must read is corrupt or over the reader's limits: the
     *                           partition is refused with its error, never passed on unchecked
     */
    void check(MemoryRecords records, RecordReader reader, long nowMs, Judgement judgement) {
        if (!readsBatches() || records == null || records.sizeInBytes() == 0) {
            return;
        }
        RecordReader.Batches batches = reader.batches(records);
        if (batches.problem() != null) {
            throw batches.problem();
        }
        int[] index = { 0 };
        for (MutableRecordBatch batch : batches.complete()) {
            if (checkBatch(batch, judgement)) {
                return;
            }
            if (readsRecords()) {
                boolean createTime = batch.timestampType() == TimestampType.CREATE_TIME;
                reader.forEach(batch, record -> {
                    if (!judgement.refused()) {
                        checkRecord(record, index[0], createTime, nowMs, judgement);
                    }
                    index[0]++;
                });
                if (judgement.refused()) {
                    return;
                }
            }
        }
    }

    /** The header-only policies; true when the batch is refused. */
    private boolean checkBatch(RecordBatch batch, Judgement judgement) {
        if (compressionTypes != null && !compressionTypes.contains(batch.compressionType())
                && judgement.violated(PolicyId.PRODUCE_COMPRESSION_TYPES, Errors.UNSUPPORTED_COMPRESSION_TYPE, "a batch compressed with "
                + batch.compressionType().name + " is not allowed: use " + String.join(" or ", compressionTypes.stream().map(c -> c.name).toList()))) {
            return true;
        }
        if (idempotence && batch.producerId() == RecordBatch.NO_PRODUCER_ID
                && judgement.violated(PolicyId.PRODUCE_IDEMPOTENCE, Errors.POLICY_VIOLATION,
                "records must come from an idempotent producer (enable.idempotence=true), and this batch has no producer id")) {
            return true;
        }
        return maxBatchBytes > 0 && batch.sizeInBytes() > maxBatchBytes
                && judgement.violated(PolicyId.PRODUCE_MAX_BATCH_BYTES, Errors.MESSAGE_TOO_LARGE, "a batch of " + batch.sizeInBytes()
                + " bytes is larger than the " + maxBatchBytes + " allowed (maxBatchBytes)");
    }

    private void checkRecord(Record record, int index, boolean createTime, long nowMs, Judgement judgement) {
        if (maxRecordBytes > 0 && record.sizeInBytes() > maxRecordBytes && judgement.violatedBy(index, PolicyId.PRODUCE_MAX_RECORD_BYTES,
                Errors.MESSAGE_TOO_LARGE, "is " + record.sizeInBytes() + " bytes, larger than the " + maxRecordBytes + " allowed (maxRecordBytes)")) {
            return;
        }
        if (requireKey && !record.hasKey() && judgement.violatedBy(index, PolicyId.PRODUCE_REQUIRE_KEY, Errors.INVALID_RECORD, "has no key")) {
            return;
        }
        for (String name : requiredHeaders) {
            if (!hasHeader(record, name) && judgement.violatedBy(index, PolicyId.PRODUCE_REQUIRED_HEADERS, Errors.INVALID_RECORD,
                    "has no header '" + name + "'")) {
                return;
            }
        }
        // LOG_APPEND_TIME batches get the broker's clock: what the producer wrote is not kept, so not judged.
        if (createTime && (maxPast != null || maxFuture != null)) {
            checkTimestamp(record.timestamp(), index, nowMs, judgement);
        }
    }

    private void checkTimestamp(long timestamp, int index, long nowMs, Judgement judgement) {
        if (timestamp == RecordBatch.NO_TIMESTAMP) {
            judgement.violatedBy(index, PolicyId.PRODUCE_TIMESTAMPS, Errors.INVALID_TIMESTAMP, "has no timestamp");
        } else if (maxPast != null && difference(nowMs, timestamp) > maxPast.toMillis()) {
            judgement.violatedBy(index, PolicyId.PRODUCE_TIMESTAMPS, Errors.INVALID_TIMESTAMP, "has timestamp " + timestamp + " ("
                    + Instant.ofEpochMilli(timestamp) + "), more than " + maxPast + " before the proxy's clock (" + Instant.ofEpochMilli(nowMs) + ")");
        } else if (maxFuture != null && difference(timestamp, nowMs) > maxFuture.toMillis()) {
            judgement.violatedBy(index, PolicyId.PRODUCE_TIMESTAMPS, Errors.INVALID_TIMESTAMP, "has timestamp " + timestamp + " ("
                    + Instant.ofEpochMilli(timestamp) + "), more than " + maxFuture + " after the proxy's clock (" + Instant.ofEpochMilli(nowMs) + ")");
        }
    }

    /** {@code a - b}, saturated: a timestamp is whatever the client wrote, Long.MIN_VALUE included. */
    private static long difference(long a, long b) {
        long d = a - b;
        if (((a ^ b) & (a ^ d)) < 0) {
            return a < b ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return d;
    }

    private static boolean hasHeader(Record record, String name) {
        for (Header header : record.headers()) {
            if (name.equals(header.key())) {
                return true;
            }
        }
        return false;
    }
}
