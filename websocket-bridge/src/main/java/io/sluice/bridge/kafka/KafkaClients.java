package io.sluice.bridge.kafka;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.bridge.config.KafkaConfig;

/** kafka-clients settings for the bridge's clients, from one place so security properties reach all of them. */
public final class KafkaClients {

    private KafkaClients() {
    }

    public static Map<String, Object> common(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = new HashMap<>(kafka.properties());
        props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return props;
    }

    /** A group-less consumer: the bridge assigns partitions itself and never commits offsets. */
    public static Map<String, Object> consumer(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = common(kafka, clientId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return props;
    }

    public static Map<String, Object> producer(KafkaConfig kafka, String clientId) {
        Map<String, Object> props = common(kafka, clientId);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        // kafka-clients insists on delivery.timeout.ms >= linger.ms + request.timeout.ms.
        int delivery = (int) Math.max(kafka.publishTimeout().toMillis(), 2_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, delivery);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, delivery - 1_000);
        props.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        // A send waiting for metadata or buffer space holds up the publishes queued behind it; bound it like a publish.
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (long) delivery);
        return props;
    }
}
