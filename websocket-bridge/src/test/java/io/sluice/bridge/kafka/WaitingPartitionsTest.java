package io.sluice.bridge.kafka;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WaitingPartitions} on a {@link MockConsumer}: a partition whose record must wait hands on only what is before
 * it, is paused and sought back to it, and is resumed (and read again from that record) once the wait ends; the other
 * partitions are not held.
 */
class WaitingPartitionsTest {

    private static final TopicPartition A = new TopicPartition("t", 0);
    private static final TopicPartition B = new TopicPartition("t", 1);

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, null, new byte[] {(byte) offset});
    }

    @Test
    void aWaitingRecordPausesItsPartitionAtItselfAndTheRestFlows() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        consumer.assign(List.of(A, B));
        consumer.updateBeginningOffsets(Map.of(A, 0L, B, 0L));
        CompletableFuture<Void> lookup = new CompletableFuture<>();
        // Record 2 of partition A names a schema being looked up.
        WaitingPartitions waiting = new WaitingPartitions(r -> r.partition() == 0 && r.offset() == 2 && !lookup.isDone() ? lookup : null);
        for (long offset = 0; offset < 4; offset++) {
            consumer.addRecord(record(A, offset));
            consumer.addRecord(record(B, offset));
        }
        ConsumerRecords<byte[], byte[]> admitted = waiting.admit(consumer, consumer.poll(java.time.Duration.ZERO));
        assertThat(admitted.records(A)).extracting(ConsumerRecord::offset).containsExactly(0L, 1L);
        assertThat(admitted.records(B)).extracting(ConsumerRecord::offset).containsExactly(0L, 1L, 2L, 3L);
        assertThat(consumer.paused()).isEqualTo(Set.of(A));
        assertThat(consumer.position(A)).as("the reader is done up to the waiting record, not past it").isEqualTo(2);

        waiting.resumeReady(consumer);
        assertThat(consumer.paused()).as("still waiting").containsExactly(A);
        lookup.complete(null);
        waiting.resumeReady(consumer);
        assertThat(consumer.paused()).isEmpty();

        consumer.addRecord(record(A, 2));
        consumer.addRecord(record(A, 3));
        ConsumerRecords<byte[], byte[]> again = waiting.admit(consumer, consumer.poll(java.time.Duration.ZERO));
        assertThat(again.records(A)).extracting(ConsumerRecord::offset).containsExactly(2L, 3L);
    }
}
