package io.sluice.bridge.kafka;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What the {@link KafkaReader} asks of each record before handing it to the sink: may it be decoded now, or must it
 * wait (its schema id is being looked up off the reader thread)? Never blocks.
 */
@FunctionalInterface
public interface RecordGate {

    /** Every record may be handed on at once. */
    RecordGate OPEN = record -> null;

    /**
     * Null when the record may be handed on now; otherwise a future that completes when it is worth asking again
     * (never exceptionally). Called on the reader thread.
     */
    CompletableFuture<?> waitFor(ConsumerRecord<byte[], byte[]> record);
}
