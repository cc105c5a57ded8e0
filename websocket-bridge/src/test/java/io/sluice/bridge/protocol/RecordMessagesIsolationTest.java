package io.sluice.bridge.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.format.Codec;
import io.sluice.format.DecodeException;
import io.sluice.format.DecodeFailurePolicy;
import io.sluice.format.Formats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Whatever a codec throws on one record's bytes costs that record alone (issue 30): a library's runtime exception or a
 * stack overflow is an undecodable value (the topic's policy, counted) or an unroutable key; the JVM's own errors
 * propagate (the reader stops and liveness fails). Before, anything but a DecodeException left RecordMessages and
 * stopped the node's Kafka reader.
 */
class RecordMessagesIsolationTest {

    private final List<String> failures = new ArrayList<>();

    private static Codec throwing(Supplier<Throwable> failure) {
        return new Codec() {
            @Override
            public JsonNode decode(String topic, byte[] bytes) throws DecodeException {
                Throwable t = failure.get();
                if (t instanceof DecodeException d) {
                    throw d;
                }
                if (t instanceof RuntimeException r) {
                    throw r;
                }
                throw (Error) t;
            }

            @Override
            public byte[] encode(String topic, JsonNode value) {
                throw new UnsupportedOperationException();
            }
        };
    }

    private RecordMessages messages(Codec key, Codec value) {
        Formats formats = Formats.of(Pattern.compile("t"), new Formats.TopicFormat(key, value, DecodeFailurePolicy.GAP));
        return new RecordMessages(new MessageEncoder(UnpooledByteBufAllocator.DEFAULT), formats,
                (topic, part, reason) -> failures.add(part + ": " + reason));
    }

    private static ConsumerRecord<byte[], byte[]> record(String key) {
        return new ConsumerRecord<>("t", 0, 42, key.getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aValueCodecsStackOverflowOrRuntimeExceptionIsAnUndecodableValue() {
        for (Throwable t : List.of(new StackOverflowError(), new IllegalStateException("a library's bug"), new NegativeArraySizeException("-2147483646"))) {
            failures.clear();
            RecordMessages.Record record = messages(null, throwing(() -> t)).decode(record("k"));
            EncodedMessage gap = record.on("/t/k", "e");
            try {
                assertThat(gap.notice()).as("%s", t).isTrue();
                assertThat(gap.gapTo()).isEqualTo(42);
            }
            finally {
                gap.release();
            }
            assertThat(failures).hasSize(1);
            assertThat(failures.get(0)).startsWith("value: " + t.getClass().getSimpleName());
        }
    }

    @Test
    void aKeyCodecsFailureOfAnyKindMakesTheRecordUnroutable() {
        for (Throwable t : List.of(new StackOverflowError(), new IllegalArgumentException("x"), new DecodeException("not JSON"))) {
            failures.clear();
            RecordMessages.Record record = messages(throwing(() -> t), null).decode(record("alice"));
            assertThat(record.routable()).as("%s", t).isFalse();
            assertThat(failures).singleElement().asString().startsWith("key: ");
        }
        assertThat(messages(null, null).decode(record("alice")).routable()).isTrue();
    }

    @Test
    void theJvmsOwnErrorsPropagate() {
        RecordMessages.Record record = messages(null, throwing(() -> new OutOfMemoryError("test"))).decode(record("k"));
        assertThatThrownBy(() -> record.on("/t/k", "e")).isInstanceOf(OutOfMemoryError.class);
    }
}
