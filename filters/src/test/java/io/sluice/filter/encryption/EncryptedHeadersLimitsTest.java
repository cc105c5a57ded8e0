package io.sluice.filter.encryption;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaReads;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * With {@code encryptHeaders: true}, a record whose headers the encrypted format cannot hold (a name over 65,535 UTF-8
 * bytes, more than 65,535 headers) is refused at produce: written, its 16-bit fields would be cut and the partition
 * would fail every reader. Real producers through the proxy to a real broker: the producer gets INVALID_RECORD naming
 * the bound, the broker holds nothing new, and the partition goes on taking and serving records.
 */
@ExtendWith(KafkaClusterExtension.class)
class EncryptedHeadersLimitsTest {

    private static final String REFUSED = "sluice_encryption_produce_unencryptable_total";

    static KafkaCluster cluster;
    static ProxyFixture proxy;

    @BeforeAll
    static void start() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers(), "", EncryptedTopics.proxyConfig("encryptHeaders: true\nonUndecryptable: FAIL"));
    }

    @AfterAll
    static void stop() {
        proxy.close();
    }

    @Test
    void aHeaderNameLongerThan65535BytesIsRefusedAndThePartitionStaysReadable() throws Exception {
        ProducerRecord<String, String> record = unaimed();
        record.headers().add(new RecordHeader("trace", bytes("t")));
        record.headers().add(new RecordHeader("n".repeat(65_536), bytes("v")));
        refusedThenReadable(record, "header 1: a name of 65536 bytes; the encrypted record format holds at most 65535");
    }

    @Test
    void moreThan65535HeadersAreRefusedAndThePartitionStaysReadable() throws Exception {
        ProducerRecord<String, String> record = unaimed();
        for (int i = 0; i < 65_536; i++) {
            record.headers().add(new RecordHeader("", null));
        }
        refusedThenReadable(record, "65536 headers; with encrypted headers a record holds at most 65535");
    }

    @Test
    void aRefusedPartitionDoesNotHoldBackTheOtherPartitionsOfItsRequest() throws Exception {
        String bad = topics().secure(Map.of());
        String good = topics().secure(Map.of());
        double refused = proxy.metric(REFUSED, "");
        // One broker and a long linger: both records go in one Produce request.
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 500))) {
            ProducerRecord<String, String> hostile = new ProducerRecord<>(bad, "k", "hostile");
            hostile.headers().add(new RecordHeader("x".repeat(70_000), null));
            Future<RecordMetadata> refusedSend = producer.send(hostile);
            Future<RecordMetadata> goodSend = producer.send(new ProducerRecord<>(good, "k", "fine"));
            producer.flush();
            assertThatThrownBy(refusedSend::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidRecordException.class);
            assertThat(goodSend.get().offset()).isZero();
        }
        assertThat(topics().endOffset(bad)).isZero();
        assertThat(consume(good, 1)).extracting(ConsumerRecord::value).containsExactly("fine");
        assertThat(proxy.metric(REFUSED, "")).isEqualTo(refused + 1);
    }

    /** {@code hostile} is refused with {@code reason}, nothing reaches the broker, and the next record goes through and reads back. */
    private static void refusedThenReadable(ProducerRecord<String, String> hostile, String reason) throws Exception {
        String topic = topics().secure(Map.of());
        ProducerRecord<String, String> aimed = new ProducerRecord<>(topic, null, hostile.key(), hostile.value(), hostile.headers());
        double refused = proxy.metric(REFUSED, "");
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            assertThatThrownBy(() -> producer.send(aimed).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("cannot encrypt: record 0 of its batch: " + reason);
            assertThat(topics().endOffset(topic)).as("nothing of the refused record reached the broker").isZero();

            ProducerRecord<String, String> next = new ProducerRecord<>(topic, "k", "after");
            next.headers().add(new RecordHeader("trace", bytes("kept")));
            assertThat(producer.send(next).get().offset()).isZero();
        }
        assertThat(proxy.metric(REFUSED, "")).isEqualTo(refused + 1);
        List<ConsumerRecord<String, String>> read = consume(topic, 1);
        assertThat(read).extracting(ConsumerRecord::value).containsExactly("after");
        assertThat(read.get(0).headers().lastHeader("trace").value()).isEqualTo(bytes("kept"));
        assertThat(topics().readDirect(topic, 1).get(0).headers().lastHeader("trace")).as("headers are encrypted on the broker").isNull();
    }

    /** A record whose topic {@link #refusedThenReadable} chooses. */
    private static ProducerRecord<String, String> unaimed() {
        return new ProducerRecord<>("unaimed", "k", "v");
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 * 1024 * 1024);
        config.putAll(extra);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static List<ConsumerRecord<String, String>> consume(String topic, int expected) {
        return KafkaReads.fromStart(new HashMap<>(proxy.clientConfig()), topic, expected, new StringDeserializer(), new StringDeserializer());
    }

    private static EncryptedTopics topics() {
        return new EncryptedTopics(cluster);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
