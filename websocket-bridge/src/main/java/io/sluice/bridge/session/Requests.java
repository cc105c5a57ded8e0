package io.sluice.bridge.session;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.TopicPartition;

import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.ProtocolException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Subscription;

/** Checks each client request against the protocol and the principal's permissions, then has the session act on it. */
final class Requests {

    private final Session session;
    private final SessionServices services;

    Requests(Session session, SessionServices services) {
        this.session = session;
        this.services = services;
    }

    void handle(ClientRequest request) throws ProtocolException {
        if (request instanceof ClientRequest.Connect connect) {
            session.connect(connect);
            return;
        }
        if (session.principal() == null) {
            throw new ProtocolException(ErrorCodes.NOT_CONNECTED, "send connect with a token first", request.id());
        }
        if (request instanceof ClientRequest.Refresh refresh) {
            session.refresh(refresh);
        }
        else if (request instanceof ClientRequest.Subscribe subscribe) {
            subscribe(subscribe);
        }
        else if (request instanceof ClientRequest.Unsubscribe unsubscribe) {
            Subscription s = session.subscription(unsubscribe.endpoint());
            if (s == null) {
                throw new ProtocolException(ErrorCodes.NOT_SUBSCRIBED, "not subscribed to " + unsubscribe.endpoint(), request.id());
            }
            session.unsubscribe(s);
            session.control(ServerMessages.unsubscribed(unsubscribe.id(), unsubscribe.endpoint(), null));
        }
        else if (request instanceof ClientRequest.Publish publish) {
            publish(publish);
        }
    }

    private void subscribe(ClientRequest.Subscribe request) throws ProtocolException {
        String pattern = request.endpoint();
        validEndpoint(pattern, true, request.id());
        if (session.subscribed(pattern)) {
            throw new ProtocolException(ErrorCodes.ALREADY_SUBSCRIBED, "already subscribed to " + pattern, request.id());
        }
        if (session.subscriptionCount() >= services.maxSubscriptions()) {
            throw new ProtocolException(ErrorCodes.TOO_MANY_SUBSCRIPTIONS, "this connection already has "
                    + session.subscriptionCount() + " subscriptions, the most allowed; unsubscribe first or use a prefix", request.id());
        }
        if (services.hub().table().cover(pattern).isEmpty()) {
            throw new ProtocolException(ErrorCodes.UNKNOWN_ENDPOINT, "no endpoint " + pattern + " is configured", request.id());
        }
        if (!permitted(pattern)) {
            throw new ProtocolException(ErrorCodes.FORBIDDEN, "not allowed to subscribe to " + pattern, request.id());
        }
        session.subscribe(request);
    }

    /** Whether the principal may read everything the pattern covers. */
    boolean permitted(String pattern) {
        Principal principal = session.principal();
        List<EndpointTable.Cover> covers = services.hub().table().cover(pattern);
        return !covers.isEmpty() && covers.stream().allMatch(c -> c.exact()
                ? principal.canSubscribe(c.topic(), c.key())
                : principal.canSubscribeAll(c.topic(), c.key()));
    }

    private void publish(ClientRequest.Publish request) throws ProtocolException {
        validEndpoint(request.endpoint(), false, request.id());
        EndpointTable.Target target = services.hub().table().resolve(request.endpoint());
        if (target == null) {
            throw new ProtocolException(ErrorCodes.UNKNOWN_ENDPOINT, "no endpoint " + request.endpoint() + " is configured", request.id());
        }
        if (!session.principal().canPublish(target.topic(), target.key())) {
            throw new ProtocolException(ErrorCodes.FORBIDDEN, "not allowed to publish to " + request.endpoint(), request.id());
        }
        byte[] value;
        try {
            value = MessageEncoder.decodePayload(request.format(), request.payload());
        }
        catch (IllegalArgumentException e) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "publish: " + e.getMessage(), request.id());
        }
        // Key "" is how records without a key appear, so publishing to it writes no key.
        byte[] key = target.key().isEmpty() ? null : target.key().getBytes(StandardCharsets.UTF_8);
        services.publisher().publish(target.topic(), key, value).whenComplete((metadata, error) ->
                session.channel().eventLoop().execute(() -> {
                    services.metrics().published(error == null);
                    if (error != null) {
                        session.error(request.id(), ErrorCodes.PUBLISH_FAILED, "Kafka did not accept the message: " + error.getClass().getSimpleName()
                                + (error.getMessage() == null ? "" : ": " + error.getMessage()));
                        return;
                    }
                    String epoch = services.hub().epochs().epoch(new TopicPartition(metadata.topic(), metadata.partition()));
                    session.control(ServerMessages.ack(request.id(), request.endpoint(), epoch, metadata.offset()));
                }));
    }

    private static void validEndpoint(String endpoint, boolean prefixAllowed, Long id) throws ProtocolException {
        if (!endpoint.startsWith("/")) {
            throw new ProtocolException(ErrorCodes.MALFORMED, "an endpoint starts with '/'", id);
        }
        int star = endpoint.indexOf('*');
        if (star >= 0 && (!prefixAllowed || !EndpointTable.isPrefix(endpoint) || star != endpoint.length() - 1)) {
            throw new ProtocolException(ErrorCodes.MALFORMED, prefixAllowed
                    ? "'*' may only end an endpoint, after '/' (e.g. /scores/live/*)"
                    : "publish needs an exact endpoint, without '*'", id);
        }
    }
}
