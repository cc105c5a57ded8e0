package io.sluice.bridge.session;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.format.EncodeException;
import io.sluice.bridge.format.Formats;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.PayloadFormat;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Subscription;

/**
 * Checks each client request against the protocol, the principal's permissions and the connection's limits (subscribe
 * rate, one refresh at a time, recover positions), then has the session act on it.
 */
final class Requests {

    private static final long READER_STARTING_RETRY_MILLIS = 1000;

    private final Session session;
    private final SessionServices services;
    private final TokenBucket subscribes;
    private boolean refreshing;
    // Publishes handed to Kafka and not yet answered: the publisher's queue is shared by the node, so bounded here.
    private int publishesInFlight;
    private long publishBytesInFlight;

    Requests(Session session, SessionServices services) {
        this.session = session;
        this.services = services;
        this.subscribes = new TokenBucket(services.requests().subscribesPerSecond(), services.requests().subscribeBurst(),
                System.nanoTime());
    }

    void handle(ClientRequest request) throws RequestRefusedException {
        if (request instanceof ClientRequest.Connect connect) {
            session.connect(connect);
            return;
        }
        if (session.principal() == null) {
            throw new RequestRefusedException(ErrorCodes.NOT_CONNECTED, "send connect with a token first", request.id());
        }
        if (request instanceof ClientRequest.Refresh refresh) {
            refresh(refresh);
        }
        else if (request instanceof ClientRequest.Subscribe subscribe) {
            subscribe(subscribe);
        }
        else if (request instanceof ClientRequest.Unsubscribe unsubscribe) {
            Subscription s = session.subscription(unsubscribe.endpoint());
            if (s == null) {
                throw new RequestRefusedException(ErrorCodes.NOT_SUBSCRIBED, "not subscribed to " + unsubscribe.endpoint(), request.id());
            }
            session.unsubscribe(s);
            session.control(ServerMessages.unsubscribed(unsubscribe.id(), unsubscribe.endpoint(), null));
        }
        else if (request instanceof ClientRequest.Publish publish) {
            publish(publish);
        }
    }

    private void refresh(ClientRequest.Refresh refresh) throws RequestRefusedException {
        // Validation may take a while (a JWKS fetch); overlapping ones would queue unbounded work and could finish out
        // of order, an older token replacing a newer one.
        if (refreshing) {
            Refusals.refused(services, "refresh_in_flight", session.channel().remoteAddress());
            throw new RequestRefusedException(ErrorCodes.BUSY, "a refresh is already being validated; wait for its reply", refresh.id());
        }
        refreshing = true;
        try {
            session.refresh(refresh, () -> refreshing = false);
        }
        catch (RuntimeException e) {
            // Never answered, so never cleared by the answer: later refreshes must not be refused for ever.
            refreshing = false;
            throw e;
        }
    }

    private void subscribe(ClientRequest.Subscribe request) throws RequestRefusedException {
        // Every subscribe is charged, refused ones too: each costs the node lookups, and the accepted ones the hub's lock.
        // Unsubscribes are not: there cannot be more of them that do anything than there were subscribes.
        long wait = subscribes.take(System.nanoTime());
        if (wait > 0) {
            Refusals.refused(services, "subscribe_rate", session.channel().remoteAddress());
            throw new RequestRefusedException(ErrorCodes.RATE_LIMITED, "more than " + services.requests().subscribesPerSecond()
                    + " subscribes per second; retry later", request.id(), wait);
        }
        check(request);
        session.subscribe(request);
    }

    /** Everything a subscribe is checked for after its rate: the endpoint, the limits, permission, the recover list. */
    void check(ClientRequest.Subscribe request) throws RequestRefusedException {
        String pattern = request.endpoint();
        validEndpoint(pattern, true, request.id());
        if (session.subscribed(pattern)) {
            throw new RequestRefusedException(ErrorCodes.ALREADY_SUBSCRIBED, "already subscribed to " + pattern, request.id());
        }
        if (session.subscriptionCount() >= services.maxSubscriptions()) {
            throw new RequestRefusedException(ErrorCodes.TOO_MANY_SUBSCRIPTIONS, "this connection already has "
                    + session.subscriptionCount() + " subscriptions, the most allowed; unsubscribe first or use a prefix", request.id());
        }
        if (services.hub().table().cover(pattern).isEmpty()) {
            throw new RequestRefusedException(ErrorCodes.UNKNOWN_ENDPOINT, "no endpoint " + pattern + " is configured", request.id());
        }
        if (!permitted(pattern)) {
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, "not allowed to subscribe to " + pattern, request.id());
        }
        if (!services.readerStartup().reading().isDone()) {
            // Past the startup wait with Kafka still not read: a retry later loses nothing, an answer now would.
            Refusals.refused(services, "reader_starting", session.channel().remoteAddress());
            throw new RequestRefusedException(ErrorCodes.BUSY, "this node has not started reading Kafka yet; subscribe again"
                    + " after a backoff", request.id(), READER_STARTING_RETRY_MILLIS);
        }
        checkRecover(request);
    }

    /**
     * Each recover position costs a cache search under the hub's lock and possibly a Kafka read, so a subscribe may name
     * only partitions it covers: every partition of each topic it covers (an exact endpoint's key is in one partition
     * with Kafka's default partitioner, but in any with a custom one), and as many epochs this node does not read (a
     * recreated topic's old history, reported as gaps) as that, at least one.
     */
    private void checkRecover(ClientRequest.Subscribe request) throws RequestRefusedException {
        if (request.recover().isEmpty()) {
            return;
        }
        PartitionEpochs epochs = services.hub().epochs();
        Set<String> topics = services.hub().table().cover(request.endpoint()).stream()
                .map(EndpointTable.Cover::topic).collect(Collectors.toSet());
        int partitions = topics.stream().mapToInt(epochs::partitionCount).sum();
        int unknown = 0;
        for (ClientRequest.Position position : request.recover()) {
            TopicPartition partition = epochs.partition(position.epoch());
            if (partition == null) {
                unknown++;
            }
            else if (!topics.contains(partition.topic())) {
                // Not naming the topic: the client may not be allowed to know it.
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: recover epoch " + position.epoch()
                        + " is not a partition " + request.endpoint() + " covers", request.id());
            }
        }
        if (unknown > Math.max(1, partitions)) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "subscribe: recover names " + unknown + " epochs this node does"
                    + " not read; at most " + Math.max(1, partitions) + " (one per partition the subscription covers)", request.id());
        }
    }

    /** Whether the principal may read everything the pattern covers. */
    boolean permitted(String pattern) {
        Principal principal = session.principal();
        List<EndpointTable.Cover> covers = services.hub().table().cover(pattern);
        return !covers.isEmpty() && covers.stream().allMatch(c -> c.exact()
                ? principal.canSubscribe(c.topic(), c.key())
                : principal.canSubscribeAll(c.topic(), c.key()));
    }

    private void publish(ClientRequest.Publish request) throws RequestRefusedException {
        validEndpoint(request.endpoint(), false, request.id());
        EndpointTable.Target target = services.hub().table().resolve(request.endpoint());
        if (target == null) {
            throw new RequestRefusedException(ErrorCodes.UNKNOWN_ENDPOINT, "no endpoint " + request.endpoint() + " is configured", request.id());
        }
        if (!session.principal().canPublish(target.topic(), target.key())) {
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, "not allowed to publish to " + request.endpoint(), request.id());
        }
        byte[] value;
        try {
            value = MessageEncoder.decodePayload(request.format(), request.payload());
        }
        catch (IllegalArgumentException e) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "publish: " + e.getMessage(), request.id());
        }
        int bytes = value == null ? 0 : value.length;
        if (publishesInFlight > 0 && (publishesInFlight >= services.requests().publishesInFlight()
                || publishBytesInFlight + bytes > services.requests().publishBytesInFlight())) {
            Refusals.refused(services, "publishes_in_flight", session.channel().remoteAddress());
            throw new RequestRefusedException(ErrorCodes.BUSY, "this connection has " + publishesInFlight + " publishes ("
                    + publishBytesInFlight + " bytes) waiting for Kafka, as many as it may; publish again after an ack", request.id());
        }
        publishesInFlight++;
        publishBytesInFlight += bytes;
        // Key "" is how records without a key appear, so publishing to it writes no key.
        byte[] key = target.key().isEmpty() ? null : target.key().getBytes(StandardCharsets.UTF_8);
        Formats.TopicFormat format = services.formats().forTopic(target.topic());
        CompletableFuture<RecordMetadata> published = format == null
                ? services.publisher().publish(target.topic(), key, value)
                : services.publisher().publish(target.topic(), () -> serialize(format, target, key, request));
        published.whenComplete((metadata, error) ->
                session.channel().eventLoop().execute(() -> {
                    publishesInFlight--;
                    publishBytesInFlight -= bytes;
                    services.metrics().published(error == null);
                    if (error instanceof EncodeException refused) {
                        session.error(request.id(), ErrorCodes.INVALID_PAYLOAD, "the payload does not fit " + target.topic()
                                + "'s format, nothing was published: " + refused.getMessage());
                        return;
                    }
                    if (error != null) {
                        session.error(request.id(), ErrorCodes.PUBLISH_FAILED, "Kafka did not accept the message: " + error.getClass().getSimpleName()
                                + (error.getMessage() == null ? "" : ": " + error.getMessage()));
                        return;
                    }
                    String epoch = services.hub().epochs().epoch(new TopicPartition(metadata.topic(), metadata.partition()));
                    session.control(ServerMessages.ack(request.id(), request.endpoint(), epoch, metadata.offset()));
                }));
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

    private static void validEndpoint(String endpoint, boolean prefixAllowed, Long id) throws RequestRefusedException {
        if (!endpoint.startsWith("/")) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "an endpoint starts with '/'", id);
        }
        int star = endpoint.indexOf('*');
        if (star >= 0 && (!prefixAllowed || !EndpointTable.isPrefix(endpoint) || star != endpoint.length() - 1)) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, prefixAllowed
                    ? "'*' may only end an endpoint, after '/' (e.g. /scores/live/*)"
                    : "publish needs an exact endpoint, without '*'", id);
        }
    }
}
