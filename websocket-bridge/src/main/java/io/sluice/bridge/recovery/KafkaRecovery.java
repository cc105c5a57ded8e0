package io.sluice.bridge.recovery;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBufAllocator;
import io.sluice.bridge.kafka.LogReader;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.format.Formats;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.RecordFailures;
import io.sluice.bridge.protocol.RecordMessages;

/**
 * Carries out the Kafka part of a {@link RecoveryPlan}: reads each range from the log, keeps the records of the
 * subscription's endpoints, encodes them like live messages, and puts a {@code gap} notice first wherever the log no
 * longer starts early enough.
 *
 * <p>Decoding runs on the log reader's thread, which serves recoveries only, so it may wait for a schema id the node has
 * not seen, its key's (to route it) and, for the records it keeps, its value's: through the same lookups as the live
 * reader ({@link Formats#pending}, at the node's rate), for at most {@link #SCHEMA_WAIT_NANOS} per read in all; past
 * that, a record's decoding asks the registry itself (one request, bounded by the registry's timeout and remembered).
 */
public final class KafkaRecovery {

    /** How long one log read may wait for new schema ids in all (decision: within a recovery's patience). */
    static final long SCHEMA_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final LogReader reader;
    private final ByteBufAllocator allocator;
    private final BridgeMetrics metrics;
    private final Formats formats;
    private final RecordFailures failures;

    public KafkaRecovery(LogReader reader, ByteBufAllocator allocator, BridgeMetrics metrics) {
        this(reader, allocator, metrics, Formats.none());
    }

    public KafkaRecovery(LogReader reader, ByteBufAllocator allocator, BridgeMetrics metrics, Formats formats) {
        this.reader = reader;
        this.allocator = allocator;
        this.metrics = metrics;
        this.formats = formats;
        this.failures = new RecordFailures(LoggerFactory.getLogger(KafkaRecovery.class), metrics::recordFailed);
    }

    /**
     * @param subscription the subscription's pattern, named in gap notices
     * @param endpoints    the endpoints of a record that the subscription receives (empty to skip the record)
     * @return messages and notices in delivery order, each holding one reference for the caller; or null, having
     *         started nothing, when the node already has as many log reads running and waiting as it takes
     */
    public CompletableFuture<List<EncodedMessage>> recover(String subscription, List<RecoveryPlan.LogRead> reads,
                                                           BiFunction<String, String, List<String>> endpoints) {
        if (!reader.reserve(reads.size())) {
            return null;
        }
        List<CompletableFuture<List<EncodedMessage>>> parts = new ArrayList<>();
        for (RecoveryPlan.LogRead read : reads) {
            // Keys are routed as the live reader routes them, through the topic's key format; failures are counted when
            // the kept records are encoded, not here as well.
            RecordMessages keys = new RecordMessages(new MessageEncoder(allocator), formats, (topic, part, reason) -> { });
            SchemaWait schemas = new SchemaWait();
            Predicate<ConsumerRecord<byte[], byte[]>> filter = r -> {
                // The key only: a record the subscription does not want costs no wait for its value's schema.
                schemas.await(r.topic(), r.key(), null);
                RecordMessages.Record keyed = keys.decode(r);
                return keyed.routable() && !endpoints.apply(r.topic(), routingKey(keyed)).isEmpty();
            };
            parts.add(reader.read(read.partition(), read.from(), read.to(), filter)
                    .thenApply(range -> encode(subscription, read, range, endpoints, schemas)));
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).handle((ignored, error) -> {
            if (error != null) {
                parts.forEach(p -> p.thenAccept(list -> list.forEach(EncodedMessage::release)));
                throw new CompletionException(error);
            }
            List<EncodedMessage> all = new ArrayList<>();
            parts.forEach(p -> all.addAll(p.join()));
            return all;
        });
    }

    private List<EncodedMessage> encode(String subscription, RecoveryPlan.LogRead read, LogReader.Range range,
                                        BiFunction<String, String, List<String>> endpoints, SchemaWait schemas) {
        List<EncodedMessage> out = new ArrayList<>();
        if (range.logStart() > read.from()) {
            metrics.recoveryGap();
            out.add(MessageEncoder.gap(allocator, subscription, read.epoch(),
                    read.from(), Math.min(read.to(), range.logStart() - 1), RecoveryPlan.GAP_RETENTION));
        }
        RecordMessages records = new RecordMessages(new MessageEncoder(allocator), formats, metrics::decodeFailed);
        for (ConsumerRecord<byte[], byte[]> r : range.records()) {
            try {
                schemas.await(r.topic(), r.key(), r.value());
                RecordMessages.Record record = records.decode(r);
                if (!record.routable()) {
                    continue;
                }
                for (String endpoint : endpoints.apply(r.topic(), routingKey(record))) {
                    EncodedMessage message = record.on(endpoint, read.epoch());
                    if (message != null) {
                        out.add(message);
                    }
                }
            }
            catch (Throwable e) {
                // As live (Hub.accept): one record's failure outside its codec costs that record, not the recovery.
                failures.failed("recovery", e);
            }
        }
        return out;
    }

    /**
     * One log read's waits for the lookups of the schema ids its records name: {@link #SCHEMA_WAIT_NANOS} in all, counted
     * from its first wait. The read's key filter and its encoding run one after the other, never at once.
     */
    private final class SchemaWait {
        private long deadline;
        private boolean started;

        void await(String topic, byte[] key, byte[] value) {
            for (var pending = formats.pending(topic, key, value); pending != null; pending = formats.pending(topic, key, value)) {
                if (!started) {
                    started = true;
                    deadline = System.nanoTime() + SCHEMA_WAIT_NANOS;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    pending.get(left, TimeUnit.NANOSECONDS);
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                catch (ExecutionException | TimeoutException e) {
                    return; // pending futures never fail; a timeout is the deadline
                }
            }
        }
    }

    private static String routingKey(RecordMessages.Record record) {
        return record.key() == null ? "" : record.key();
    }
}
