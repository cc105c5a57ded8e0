package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import io.sluice.bridge.config.KafkaConfig;

/**
 * Client publishes into Kafka with acks=all and idempotence, so an acknowledged publish survives a broker failure
 * and a retried send is not written twice. One producer per node, created on the first publish.
 *
 * <p>{@code KafkaProducer.send} can block (creating the producer, waiting for a topic's metadata, a full buffer), so
 * sends are handed to a thread of their own and never run on an event loop.
 */
public final class Publisher implements AutoCloseable {

    private final KafkaConfig config;
    private final String nodeName;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sluice-bridge-publisher");
        t.setDaemon(true);
        return t;
    });
    // Only touched on the sender thread.
    private KafkaProducer<byte[], byte[]> producer;

    public Publisher(KafkaConfig config, String nodeName) {
        this.config = config;
        this.nodeName = nodeName;
    }

    /** Completes with the record's metadata once every in-sync replica has it; may complete on any thread. */
    public CompletableFuture<RecordMetadata> publish(String topic, byte[] key, byte[] value) {
        return publish(topic, () -> new byte[][] {key, value});
    }

    /** The bytes of a record's key and value, made on the publisher's thread (a serializer may ask a schema registry). */
    public interface Serialization {
        /** {key, value}; throws to refuse the record, which then completes the publish with that exception. */
        byte[][] serialize() throws Exception;
    }

    /**
     * As {@link #publish(String, byte[], byte[])}, serializing on the publisher's thread, never on a connection's event
     * loop: a registry lookup there would stall every connection of the loop.
     */
    public CompletableFuture<RecordMetadata> publish(String topic, Serialization record) {
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        try {
            sender.execute(() -> {
                byte[][] bytes;
                try {
                    bytes = record.serialize();
                }
                catch (Exception e) {
                    result.completeExceptionally(e);
                    return;
                }
                send(topic, bytes[0], bytes[1], result);
            });
        }
        catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("the bridge is shutting down"));
        }
        return result;
    }

    private void send(String topic, byte[] key, byte[] value, CompletableFuture<RecordMetadata> result) {
        try {
            if (producer == null) {
                producer = new KafkaProducer<>(KafkaClients.producer(config, "sluice-bridge-" + nodeName + "-publisher"));
            }
            producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
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
    }

    @Override
    public void close() {
        sender.execute(() -> {
            if (producer != null) {
                producer.close(Duration.ofSeconds(5));
            }
        });
        sender.shutdown();
        try {
            sender.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
