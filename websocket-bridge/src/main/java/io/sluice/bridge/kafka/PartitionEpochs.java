package io.sluice.bridge.kafka;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The {@code epoch} of each partition: its topic's id and its number. A topic deleted and created again under the same
 * name gets a new id, so offsets from its old history can never be mistaken for the new one's; and every bridge node
 * computes the same epoch from the cluster's metadata. Written by the reader thread, read by anyone.
 */
public final class PartitionEpochs {

    private final Map<TopicPartition, String> epochs = new ConcurrentHashMap<>();
    private final Map<String, TopicPartition> partitions = new ConcurrentHashMap<>();
    private final Map<String, Integer> partitionCounts = new ConcurrentHashMap<>();

    public static String epoch(Uuid topicId, int partition) {
        return topicId + "-" + partition;
    }

    /** Records a topic's id and partition count; a changed id replaces the old history's epochs. */
    void topic(String topic, Uuid topicId, int partitionCount) {
        for (int p = 0; p < partitionCount; p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            String epoch = epoch(topicId, p);
            String previous = epochs.put(tp, epoch);
            if (previous != null && !previous.equals(epoch)) {
                partitions.remove(previous);
            }
            partitions.put(epoch, tp);
        }
        partitionCounts.put(topic, partitionCount);
    }

    public String epoch(TopicPartition partition) {
        return epochs.get(partition);
    }

    /** The partition an epoch names, or null if it is not (or no longer) one this node reads. */
    public TopicPartition partition(String epoch) {
        return partitions.get(epoch);
    }

    public int partitionCount(String topic) {
        return partitionCounts.getOrDefault(topic, 0);
    }

    public List<String> epochsOf(String topic) {
        int count = partitionCount(topic);
        return IntStream.range(0, count)
                .mapToObj(p -> epochs.get(new TopicPartition(topic, p)))
                .filter(Objects::nonNull)
                .toList();
    }

    public boolean knows(String topic) {
        return partitionCounts.containsKey(topic);
    }
}
