package io.sluice.bridge.session;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.common.TopicPartition;

import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.rate.TokenBucket;
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
    private final Publishes publishes;

    Requests(Session session, SessionServices services) {
        this.session = session;
        this.services = services;
        this.publishes = new Publishes(services, session.channel());
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

    void subscribe(ClientRequest.Subscribe request) throws RequestRefusedException {
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
        publishes.publish(session.principal(), request, outcome -> {
            if (outcome instanceof Publishes.Acked acked) {
                session.control(ServerMessages.ack(request.id(), acked.endpoint(), acked.epoch(), acked.seq()));
            }
            else if (outcome instanceof Publishes.Failed failed) {
                session.error(request.id(), failed.code(), failed.message());
            }
        });
    }

    static void validEndpoint(String endpoint, boolean prefixAllowed, Long id) throws RequestRefusedException {
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
