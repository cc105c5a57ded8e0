package io.sluice.bench.targets;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The benchmark's values as JSON, for a target that checks them (validating): a kafka-clients interceptor on the
 * benchmark's producers and consumers, configured by {@link BenchTarget#clientConfig}, so the benchmark itself stays
 * bytes in, bytes out. Out: a value's first 8 bytes (the send time the latency phase writes, big-endian) become
 * {@code {"t":<long>,"p":"aaa..."}}, padded to the value's own length, so the bytes moved are what the benchmark counts
 * (values under 24 bytes grow to fit). In: the document back into the 8 bytes and zero padding, so the end-to-end
 * latency reads as for any target. The padding is not the random bytes it replaces: the proxy parses JSON of the same
 * size, which is the cost measured.
 */
public final class JsonBenchValues implements ProducerInterceptor<byte[], byte[]>, ConsumerInterceptor<byte[], byte[]> {

    private static final byte[] PREFIX = "{\"t\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIDDLE = ",\"p\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUFFIX = "\"}".getBytes(StandardCharsets.US_ASCII);

    /** The JSON document of a benchmark value. */
    static byte[] toJson(byte[] value) {
        long t = value.length >= Long.BYTES ? ByteBuffer.wrap(value).getLong() : 0;
        byte[] number = Long.toString(t).getBytes(StandardCharsets.US_ASCII);
        int fixed = PREFIX.length + number.length + MIDDLE.length + SUFFIX.length;
        ByteBuffer out = ByteBuffer.allocate(Math.max(value.length, fixed));
        out.put(PREFIX).put(number).put(MIDDLE);
        byte[] padding = new byte[out.capacity() - fixed];
        Arrays.fill(padding, (byte) 'a');
        out.put(padding).put(SUFFIX);
        return out.array();
    }

    /** The benchmark value a document stands for: its send time, then zeros to the document's length. */
    static byte[] fromJson(byte[] json) {
        int start = PREFIX.length;
        int end = start;
        while (end < json.length && json[end] != ',') {
            end++;
        }
        long t = Long.parseLong(new String(json, start, end - start, StandardCharsets.US_ASCII));
        return ByteBuffer.allocate(Math.max(Long.BYTES, json.length)).putLong(t).array();
    }

    @Override
    public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
        return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(), record.key(),
                record.value() == null ? null : toJson(record.value()), record.headers());
    }

    @Override
    public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> converted = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : records.records(partition)) {
                list.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.timestamp(), r.timestampType(), r.serializedKeySize(),
                        r.serializedValueSize(), r.key(), r.value() == null ? null : fromJson(r.value()), r.headers(), r.leaderEpoch()));
            }
            converted.put(partition, list);
        }
        return new ConsumerRecords<>(converted, records.nextOffsets());
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
