package io.sluice.filter.audit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Audit events as records of a Kafka topic, produced by a kafka-clients producer of the filter's own to the cluster
 * named by {@code kafka.bootstrapServers} (the virtual cluster's target, normally): the key is the event's session id
 * (so one connection's events are in order in one partition), the value the event's JSON without the newline.
 *
 * <p>Not through a client's connection: an event must outlive the connection it describes, and a request of the
 * filter's own on a client's connection would pass the filters nearer the broker as that client (JwtAuth would
 * authorize it against the client's token). {@code send} may block while the producer waits for metadata or buffer
 * space ({@code max.block.ms}, 5 s unless set): on this sink's thread only, while the event loops go on offering and
 * the full buffer drops what it cannot hold. A failed send counts its event in {@code sluice_audit_events_failed_total}.</p>
 */
final class KafkaTopicSink extends QueuedSink {

    private final String topic;
    private final Producer<byte[], byte[]> producer;

    KafkaTopicSink(String filterName, AuditConfig.Kafka config, AuditMetrics metrics) {
        super("kafka", filterName, config.bufferBytes(), metrics);
        this.topic = config.topic();
        try {
            this.producer = new KafkaProducer<>(producerConfig(filterName, config));
        } catch (KafkaException e) {
            throw new IllegalArgumentException("kafka.producerConfig: " + e.getMessage(), e);
        }
        start();
    }

    /**
     * The producer's settings: the filter's defaults, then {@code producerConfig} over them, then what the sink must
     * set itself. Checked as kafka-clients checks them, without starting a producer.
     *
     * @throws IllegalArgumentException naming the field
     */
    static Map<String, Object> producerConfig(String filterName, AuditConfig.Kafka config) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 50);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-audit-" + filterName);
        for (Map.Entry<String, String> e : config.producerConfig().entrySet()) {
            if (OWN.contains(e.getKey())) {
                throw new IllegalArgumentException("kafka.producerConfig." + e.getKey() + ": set by the Audit filter"
                        + (e.getKey().equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) ? " from kafka.bootstrapServers" : ""));
            }
            props.put(e.getKey(), e.getValue());
        }
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try {
            new ProducerConfig(props);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("kafka.producerConfig: " + e.getMessage(), e);
        }
        return props;
    }

    private static final List<String> OWN = List.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

    @Override
    protected void write(List<Line> lines) {
        for (Line line : lines) {
            byte[] value = Arrays.copyOf(line.bytes(), line.bytes().length - 1);
            byte[] key = line.key() == null ? null : line.key().getBytes(StandardCharsets.UTF_8);
            try {
                producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
                    if (error != null) {
                        failed(1);
                        problems.log("audit topic {}: an event was not written: {}", topic, error.toString());
                    } else {
                        written(1);
                    }
                });
            } catch (KafkaException e) {
                failed(1);
                problems.log("audit topic {}: an event was not sent: {}", topic, e.toString());
            }
        }
    }

    @Override
    protected void flush() {
        // The producer sends by itself within linger.ms; close() flushes.
    }

    @Override
    protected void release() {
        producer.close(Duration.ofSeconds(10));
    }
}
