package io.sluice.bridge.protocol;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.LoggerFactory;

import io.sluice.format.DecodeException;
import io.sluice.format.DecodeFailurePolicy;
import io.sluice.format.Formats;
import io.sluice.logging.RateLimitedByCause;

/**
 * Kafka records as messages, through their topic's configured format (docs/bridge-formats.md): a value its codec
 * decodes goes out as {@code format: json} with the decoded JSON; one it cannot decode follows the topic's
 * {@code onDecodeFailure}: {@code raw} sends the bytes as a topic without a format would, {@code drop} sends nothing,
 * {@code gap} sends a {@code gap} notice with reason {@code undecodable} for that one offset. Topics without a format
 * are encoded as before. One per thread, like {@link MessageEncoder}: the live reader has one, each log recovery its
 * own.
 */
public final class RecordMessages {

    /** The gap reason for a record whose value its format cannot decode. */
    public static final String GAP_UNDECODABLE = "undecodable";
    /** A record whose value the subscriber's masks cannot be applied to (docs/masking.md): never sent unmasked. */
    public static final String GAP_UNMASKABLE = "unmaskable";

    /** Told of every record whose key or value does not decode: the topic, which part, and why (no record bytes). */
    public interface DecodeFailures {
        void failed(String topic, String part, String reason);
    }

    /** Throwables other than DecodeException from a codec: a line per cause per interval, whatever the record rate. */
    private static final RateLimitedByCause UNEXPECTED = new RateLimitedByCause(LoggerFactory.getLogger(RecordMessages.class));

    private final MessageEncoder encoder;
    private final Formats formats;
    private final DecodeFailures failures;
    private final Map<String, Optional<Formats.TopicFormat>> byTopic = new HashMap<>();

    public RecordMessages(MessageEncoder encoder, Formats formats, DecodeFailures failures) {
        this.encoder = encoder;
        this.formats = formats;
        this.failures = failures;
    }

    /** One record: its key decoded at once (it routes the record), its value on first use, once for all its endpoints. */
    public final class Record {
        private final ConsumerRecord<byte[], byte[]> record;
        private final Formats.TopicFormat format;
        private final String key;
        private final boolean routable;
        private final Header[] headers;
        private boolean decoded;
        private JsonNode value;
        private DecodeFailurePolicy failed;

        private Record(ConsumerRecord<byte[], byte[]> record, Formats.TopicFormat format, String key, boolean routable) {
            this.record = record;
            this.format = format;
            this.key = key;
            this.routable = routable;
            this.headers = record.headers().toArray();
        }

        /** The key as endpoints and filters see it: the decoded key's text (or compact JSON); null without one. */
        public String key() {
            return key;
        }

        /**
         * False when the topic has a key format and the key does not decode: the record then appears on no endpoint.
         * Its UTF-8 text would be the endpoint of a decoded key with the same text (raw bytes {@code alice} under a
         * JSON key format landing on the endpoint of the key {@code "alice"}), and the key-less endpoint is another
         * stream; routing it anywhere would let a producer write into a stream it does not own.
         */
        public boolean routable() {
            return routable;
        }

        /**
         * The message for one endpoint the record appears on, or null when the topic's policy drops an undecodable
         * value. Under {@code gap}, a gap notice for the record's offset.
         */
        public EncodedMessage on(String endpoint, String epoch) {
            decodeValue();
            if (failed == DecodeFailurePolicy.DROP) {
                return null;
            }
            if (failed == DecodeFailurePolicy.GAP) {
                return MessageEncoder.gap(encoder.allocator(), endpoint, epoch, record.offset(), record.offset(), GAP_UNDECODABLE);
            }
            if (value != null) {
                return encoder.decoded(endpoint, epoch, record.partition(), record.offset(), record.timestamp(), value,
                        record.value().length, key, headers);
            }
            return encoder.message(endpoint, epoch, record.partition(), record.offset(), record.timestamp(), record.value(),
                    key, headers);
        }

        private void decodeValue() {
            if (decoded) {
                return;
            }
            decoded = true;
            if (format == null || format.value() == null || record.value() == null) {
                return;
            }
            try {
                value = format.value().decode(record.topic(), record.value());
            }
            catch (DecodeException e) {
                failed(e.getMessage());
            }
            catch (Throwable e) {
                // Whatever else a codec throws on this record's bytes costs this record alone, as an undecodable one.
                PerRecord.rethrowIfFatal(e);
                UNEXPECTED.log(e, "Decoding a value of topic {} failed unexpectedly (its onDecodeFailure applies): {}", record.topic(),
                        PerRecord.reason(e));
                failed(PerRecord.reason(e));
            }
        }

        private void failed(String reason) {
            failures.failed(record.topic(), "value", reason);
            failed = format.onDecodeFailure() == DecodeFailurePolicy.RAW ? null : format.onDecodeFailure();
        }
    }

    /** The record with its key decoded; the value is decoded when {@link Record#on} first needs it. */
    public Record decode(ConsumerRecord<byte[], byte[]> record) {
        Formats.TopicFormat format = byTopic.computeIfAbsent(record.topic(), t -> Optional.ofNullable(formats.forTopic(t))).orElse(null);
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        boolean routable = true;
        if (format != null && format.key() != null && record.key() != null) {
            try {
                JsonNode decoded = format.key().decode(record.topic(), record.key());
                key = decoded.isTextual() ? decoded.asText() : decoded.toString();
            }
            catch (DecodeException e) {
                failures.failed(record.topic(), "key", e.getMessage());
                routable = false;
            }
            catch (Throwable e) {
                PerRecord.rethrowIfFatal(e);
                UNEXPECTED.log(e, "Decoding a key of topic {} failed unexpectedly (the record goes to no endpoint): {}", record.topic(),
                        PerRecord.reason(e));
                failures.failed(record.topic(), "key", PerRecord.reason(e));
                routable = false;
            }
        }
        return new Record(record, format, key, routable);
    }
}
