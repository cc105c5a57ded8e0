package io.sluice.bridge.kafka;

import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/** Where the {@link KafkaReader} hands what it reads. Called on the reader thread only, one call at a time. */
public interface RecordSink {

    /** The reader now reads these partitions, starting at these offsets (nothing before them will be delivered). */
    void started(Map<TopicPartition, Long> startOffsets);

    /**
     * One poll's records, and per partition the offset up to which the reader is done (records at lower offsets,
     * including control records and compacted gaps, will never come).
     */
    void accept(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, Long> positions);

    /** Called every few seconds between polls, for housekeeping such as age-based cache eviction. */
    void idle();
}
