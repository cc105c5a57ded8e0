package io.sluice.bridge.kafka;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Partitions whose next record must wait (its schema id is being looked up, see {@link RecordGate}): the reader hands
 * the sink each partition's records up to the first that waits, pauses the partition and seeks it back to that record,
 * and resumes it when the wait is over, so nothing is lost and other partitions keep flowing. Reader thread only,
 * except for the completions that queue a partition to resume.
 */
final class WaitingPartitions {

    private final RecordGate gate;
    private final Set<TopicPartition> paused = ConcurrentHashMap.newKeySet();
    private final Queue<TopicPartition> ready = new ConcurrentLinkedQueue<>();

    WaitingPartitions(RecordGate gate) {
        this.gate = gate;
    }

    /** Resumes the partitions whose wait ended since the last call. */
    void resumeReady(Consumer<byte[], byte[]> consumer) {
        List<TopicPartition> resume = new ArrayList<>();
        for (TopicPartition tp = ready.poll(); tp != null; tp = ready.poll()) {
            if (paused.remove(tp) && consumer.assignment().contains(tp)) {
                resume.add(tp);
            }
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    /**
     * The records that may be handed on: per partition, those before the first that must wait; that partition is
     * paused and sought back to the waiting record (so the consumer's position is where the reader is done).
     */
    ConsumerRecords<byte[], byte[]> admit(Consumer<byte[], byte[]> consumer, ConsumerRecords<byte[], byte[]> records) {
        if (gate == RecordGate.OPEN || records.isEmpty()) {
            return records;
        }
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> admitted = null;
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
            for (int i = 0; i < list.size(); i++) {
                var waiting = gate.waitFor(list.get(i));
                if (waiting == null) {
                    continue;
                }
                if (admitted == null) {
                    admitted = new HashMap<>();
                    for (TopicPartition other : records.partitions()) {
                        admitted.put(other, records.records(other));
                    }
                }
                admitted.put(tp, list.subList(0, i));
                consumer.pause(List.of(tp));
                consumer.seek(tp, list.get(i).offset());
                paused.add(tp);
                waiting.whenComplete((ignored, error) -> ready.add(tp));
                break;
            }
        }
        if (admitted == null) {
            return records;
        }
        admitted.values().removeIf(List::isEmpty);
        return new ConsumerRecords<>(admitted, Map.of());
    }
}
