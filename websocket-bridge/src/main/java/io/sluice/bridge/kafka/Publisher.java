package io.sluice.bridge.kafka;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import io.sluice.bridge.config.KafkaConfig;

/**
 * Client publishes into Kafka with acks=all and idempotence, so an acknowledged publish survives a broker failure
 * and a retried send is not written twice. One producer per node, created on the first publish.
 */
public final class Publisher implements AutoCloseable {

    private final KafkaConfig config;
    private final String nodeName;
    private KafkaProducer<byte[], byte[]> producer;

    public Publisher(KafkaConfig config, String nodeName) {
        this.config = config;
        this.nodeName = nodeName;
    }

    public CompletableFuture<RecordMetadata> publish(String topic, byte[] key, byte[] value) {
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        try {
            producer().send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                }
                else {
                    result.complete(metadata);
                }
            });
        }
        catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    private synchronized KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(KafkaClients.producer(config, "sluice-bridge-" + nodeName + "-publisher"));
        }
        return producer;
    }

    @Override
    public synchronized void close() {
        if (producer != null) {
            producer.close(java.time.Duration.ofSeconds(5));
            producer = null;
        }
    }
}
