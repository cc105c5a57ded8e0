package io.sluice.bridge.session;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

import io.netty.channel.Channel;
import io.sluice.bridge.auth.Principal;
import io.sluice.format.EncodeException;
import io.sluice.format.ExactJson;
import io.sluice.format.SchemaOutageException;
import io.sluice.format.Formats;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.PayloadFormat;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.subscription.EndpointTable;

/**
 * One connection's publishes, whatever carried them (a WebSocket {@code publish}, an HTTP POST): whether the principal
 * may publish this payload to this endpoint, the connection's bound on publishes waiting for Kafka, the topic's
 * format, and the answer once {@code acks=all} completes. One implementation, so that the two transports cannot drift
 * apart on what they let through. A publish is never half done: refused means nothing was written. Event loop of the
 * connection only; Kafka's answer is brought back onto it.
 */
public final class Publishes {

    /** How a publish that was handed to Kafka ended. */
    public sealed interface Outcome permits Acked, Failed {
    }

    /** Written: the record's position, as a subscriber sees it. */
    public record Acked(String endpoint, String epoch, long seq) implements Outcome {
    }

    /**
     * Not written: {@link ErrorCodes#INVALID_PAYLOAD} (the topic's format refused it) or
     * {@link ErrorCodes#PUBLISH_FAILED} (Kafka's error, or the node shutting down).
     */
    public record Failed(String code, String message) implements Outcome {
    }

    // Byte payloads to topics with a format: exact numbers as the codecs expect them, Jackson's default nesting bound.
    private static final ExactJson BYTE_PAYLOADS = ExactJson.withDepth(StreamReadConstraints.DEFAULT_MAX_DEPTH);

    private final SessionServices services;
    private final Channel channel;
    // Handed to Kafka and not yet answered: the publisher's queue is shared by the node, so bounded per connection.
    private int inFlight;
    private long bytesInFlight;

    public Publishes(SessionServices services, Channel channel) {
        this.services = services;
        this.channel = channel;
    }

    /** Publishes handed to Kafka and not yet answered. */
    public int inFlight() {
        return inFlight;
    }

    /**
     * Checks the request (endpoint, permission, payload, in-flight bounds) and hands it to Kafka.
     *
     * @param answer called on the event loop once Kafka answered; not called when this throws
     * @throws RequestRefusedException refused before anything was sent: {@code malformed}, {@code unknown_endpoint},
     *                                 {@code forbidden} or {@code busy} (in-flight bounds)
     */
    public void publish(Principal principal, ClientRequest.Publish request, Consumer<Outcome> answer) throws RequestRefusedException {
        EndpointTable.Target target = target(principal, request.endpoint(), request.id());
        byte[] value;
        try {
            value = MessageEncoder.decodePayload(request.format(), request.payload());
        }
        catch (IllegalArgumentException e) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "publish: " + e.getMessage(), request.id());
        }
        send(target, request.endpoint(), request.id(), value, (format, key) -> serialize(format, target, key, request), answer);
    }

    /**
     * A publish whose payload arrived as bytes (an MQTT PUBLISH): to a topic without a format the bytes are the record
     * value as they are, null a tombstone; to a topic with one they must be JSON text, which its codecs encode as a
     * WebSocket {@code publish} with a JSON payload would be (docs/bridge-formats.md#publish). Checked and answered as
     * {@link #publish}.
     */
    public void publishBytes(Principal principal, String endpoint, byte[] value, Consumer<Outcome> answer) throws RequestRefusedException {
        EndpointTable.Target target = target(principal, endpoint, null);
        send(target, endpoint, null, value, (format, key) -> serializeBytes(format, target, key, value), answer);
    }

    /**
     * Whether the principal may publish to the endpoint, as {@link #publish} would check it before anything else.
     *
     * @throws RequestRefusedException {@code malformed}, {@code unknown_endpoint} or {@code forbidden}
     */
    public void check(Principal principal, String endpoint) throws RequestRefusedException {
        target(principal, endpoint, null);
    }

    private EndpointTable.Target target(Principal principal, String endpoint, Long id) throws RequestRefusedException {
        Requests.validEndpoint(endpoint, false, id);
        EndpointTable.Target target = services.hub().table().resolve(endpoint);
        if (target == null) {
            throw new RequestRefusedException(ErrorCodes.UNKNOWN_ENDPOINT, "no endpoint " + endpoint + " is configured", id);
        }
        if (!principal.canPublish(target.topic(), target.key())) {
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, "not allowed to publish to " + endpoint, id);
        }
        return target;
    }

    /** How a topic with a format turns a publish into the record's key and value; on the publisher's thread. */
    private interface Serializer {
        byte[][] serialize(Formats.TopicFormat format, byte[] rawKey) throws EncodeException;
    }

    private void send(EndpointTable.Target target, String endpoint, Long id, byte[] value, Serializer serializer,
                      Consumer<Outcome> answer) throws RequestRefusedException {
        int bytes = value == null ? 0 : value.length;
        if (inFlight > 0 && (inFlight >= services.requests().publishesInFlight()
                || bytesInFlight + bytes > services.requests().publishBytesInFlight())) {
            Refusals.refused(services, "publishes_in_flight", channel.remoteAddress());
            throw new RequestRefusedException(ErrorCodes.BUSY, "this connection has " + inFlight + " publishes ("
                    + bytesInFlight + " bytes) waiting for Kafka, as many as it may; publish again after an ack", id);
        }
        inFlight++;
        bytesInFlight += bytes;
        // Key "" is how records without a key appear, so publishing to it writes no key.
        byte[] key = target.key().isEmpty() ? null : target.key().getBytes(StandardCharsets.UTF_8);
        Formats.TopicFormat format = services.formats().forTopic(target.topic());
        CompletableFuture<RecordMetadata> published = format == null
                ? services.publisher().publish(target.topic(), key, value)
                : services.publisher().publish(target.topic(), () -> serializer.serialize(format, key));
        published.whenComplete((metadata, error) -> channel.eventLoop().execute(() -> {
            inFlight--;
            bytesInFlight -= bytes;
            services.metrics().published(error == null);
            if (error instanceof SchemaOutageException outage) {
                // Not the payload's fault: the registry did not answer. A fixed reason; its details are in the log.
                answer.accept(new Failed(ErrorCodes.PUBLISH_FAILED, outage.getMessage()));
            }
            else if (error instanceof EncodeException refused) {
                answer.accept(new Failed(ErrorCodes.INVALID_PAYLOAD, "the payload does not fit " + target.topic()
                        + "'s format, nothing was published: " + refused.getMessage()));
            }
            else if (error != null) {
                answer.accept(new Failed(ErrorCodes.PUBLISH_FAILED, "Kafka did not accept the message: " + error.getClass().getSimpleName()
                        + (error.getMessage() == null ? "" : ": " + error.getMessage())));
            }
            else {
                String epoch = services.hub().epochs().epoch(new TopicPartition(metadata.topic(), metadata.partition()));
                answer.accept(new Acked(endpoint, epoch, metadata.offset()));
            }
        }));
    }

    /**
     * A byte payload to a topic with a format: JSON text, parsed (exactly one value, bounded as every payload is by
     * the transport's packet limit) and encoded by the topic's codecs; null stays a tombstone. On the publisher's thread.
     */
    private static byte[][] serializeBytes(Formats.TopicFormat format, EndpointTable.Target target, byte[] rawKey, byte[] value)
            throws EncodeException {
        byte[] key = rawKey;
        if (format.key() != null && rawKey != null) {
            key = format.key().encode(target.topic(), TextNode.valueOf(target.key()));
        }
        if (value == null || format.value() == null) {
            return new byte[][] {key, value};
        }
        JsonNode payload;
        try {
            payload = BYTE_PAYLOADS.read(StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(value)).toString());
        }
        catch (IOException | RuntimeException e) {
            throw new EncodeException("the payload is not one JSON value in UTF-8");
        }
        return new byte[][] {key, format.value().encode(target.topic(), payload)};
    }

    /**
     * A publish to a topic with a format: the payload as the topic's codecs write it (docs/bridge-formats.md#publish).
     * JSON payloads are encoded as they are, text and base64 ones as the JSON string they arrived as; a tombstone stays
     * one. Runs on the publisher's thread: a codec may ask the schema registry for the subject's latest schema.
     */
    private static byte[][] serialize(Formats.TopicFormat format, EndpointTable.Target target, byte[] rawKey,
                                      ClientRequest.Publish request) throws EncodeException {
        byte[] key = rawKey;
        if (format.key() != null && rawKey != null) {
            key = format.key().encode(target.topic(), TextNode.valueOf(target.key()));
        }
        JsonNode payload = request.payload();
        byte[] value;
        if (request.format() == PayloadFormat.NONE || payload == null || payload.isNull()) {
            value = null;
        }
        else if (format.value() == null) {
            value = MessageEncoder.decodePayload(request.format(), payload);
        }
        else {
            value = format.value().encode(target.topic(), request.format() == PayloadFormat.JSON ? payload : TextNode.valueOf(payload.asText()));
        }
        return new byte[][] {key, value};
    }
}
