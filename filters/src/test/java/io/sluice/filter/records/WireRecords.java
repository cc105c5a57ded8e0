package io.sluice.filter.records;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.serialization.StringSerializer;

import io.sluice.proxy.testing.KafkaWire;

/** Produce and Fetch of raw record bytes over {@link KafkaWire}, and what the tests look for in them. */
public final class WireRecords {

    /** Produce v12 (topics by name), Fetch v12 (by name, no topic ids). */
    private static final short PRODUCE_VERSION = 12;
    private static final short FETCH_VERSION = 12;

    private WireRecords() {
    }

    /** Produces {@code records} to partition 0 of {@code topic}; the partition's response. */
    public static ProduceResponseData.PartitionProduceResponse produce(KafkaWire wire, String topic, MemoryRecords records) throws IOException {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(topic)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        ProduceResponseData response = wire.call(ApiKeys.PRODUCE, PRODUCE_VERSION, new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000)
                .setTopicData(topics));
        return response.responses().iterator().next().partitionResponses().get(0);
    }

    /** One Fetch of partition 0 of {@code topic} from {@code offset}, at most {@code partitionMaxBytes} of it. */
    public static FetchResponseData.PartitionData fetch(KafkaWire wire, String topic, long offset, int partitionMaxBytes) throws IOException {
        FetchRequestData request = new FetchRequestData().setMaxWaitMs(500).setMinBytes(1).setMaxBytes(50 * 1024 * 1024).setIsolationLevel((byte) 0)
                .setSessionId(0).setSessionEpoch(-1)
                .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(new FetchRequestData.FetchPartition()
                        .setPartition(0).setFetchOffset(offset).setPartitionMaxBytes(partitionMaxBytes).setCurrentLeaderEpoch(-1).setLogStartOffset(-1)))));
        FetchResponseData response = wire.call(ApiKeys.FETCH, FETCH_VERSION, request);
        return response.responses().get(0).partitions().get(0);
    }

    /** Produces each record in a batch of its own, straight to the broker: key → value, in order. */
    public static void produceBatches(String brokerBootstrap, String topic, List<Map.Entry<String, String>> records) throws ExecutionException, InterruptedException {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokerBootstrap,
                ProducerConfig.LINGER_MS_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
            for (Map.Entry<String, String> record : records) {
                producer.send(new ProducerRecord<>(topic, 0, record.getKey(), record.getValue())).get();
            }
        }
    }

    /** Whether {@code text} occurs anywhere in the bytes of {@code records}. */
    public static boolean contains(MemoryRecords records, String text) {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer haystack = records.buffer();
        for (int i = haystack.position(); i + needle.length <= haystack.limit(); i++) {
            int j = 0;
            while (j < needle.length && haystack.get(i + j) == needle[j]) {
                j++;
            }
            if (j == needle.length) {
                return true;
            }
        }
        return false;
    }

    /** The size of the first batch in {@code records}. */
    public static int firstBatchBytes(MemoryRecords records) {
        return records.batches().iterator().next().sizeInBytes();
    }
}
