package io.sluice.bridge.mqtt;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.session.Session;

/**
 * A resumed session's subscriptions made again on this connection (docs/bridge-mqtt.md#sessions): in, the
 * {@link SessionState}'s filters and marks; out, the filters in {@link MqttSubscriptions} and one bridge subscription
 * per pattern, each recovering from its marks through the bridge's own recovery (cache, Kafka log, or a gap), exactly
 * as a WebSocket {@code subscribe} with {@code recover}. Every subscription is checked against the token of this
 * connection: one it may no longer read (or no endpoint covers any more) is dropped from the session, silently, as MQTT
 * has no packet to say so. Not counted against the subscribe rate: they were paid for when they were made.
 */
final class SessionRestore {

    private static final Logger LOG = LoggerFactory.getLogger(SessionRestore.class);
    static final long RETRY_MILLIS = 200;

    private final Session session;
    private final Principal principal;
    private final MqttSubscriptions subscriptions;
    private final DeliveryPositions positions;
    private final MqttWire wire;
    private final Channel channel;

    SessionRestore(Session session, Principal principal, MqttSubscriptions subscriptions, DeliveryPositions positions, MqttWire wire,
                   Channel channel) {
        this.channel = channel;
        this.session = session;
        this.principal = principal;
        this.subscriptions = subscriptions;
        this.positions = positions;
        this.wire = wire;
    }

    /**
     * Makes the subscriptions. One whose recovery cannot start now (the connection's or node's log reads are taken,
     * or the node's reader has not started) is tried again every {@link #RETRY_MILLIS} while the connection lasts:
     * it recovers from the same marks whenever it is made, so waiting loses nothing, and a session with more
     * subscriptions than {@code recovery.kafkaReadsPerConnection} still resumes. Its marks stay in the session's record
     * meanwhile.
     */
    void restore(SessionState state) {
        Set<String> patterns = new LinkedHashSet<>();
        for (Map.Entry<String, Integer> f : state.filters().entrySet()) {
            MqttTopics.Mapping mapping = MqttTopics.map(f.getKey());
            if (mapping.refused()) {
                continue;
            }
            subscriptions.put(f.getKey(), mapping.pattern(), Math.min(1, Math.max(0, f.getValue())));
            patterns.add(mapping.pattern());
        }
        List<String> later = new ArrayList<>();
        for (String pattern : patterns) {
            positions.resume(pattern, state.marks().getOrDefault(pattern, List.of()));
            if (!subscribe(pattern)) {
                later.add(pattern);
            }
        }
        retryLater(later);
    }

    /** Makes the pattern's subscription from its resumed marks; false when it must wait (busy). */
    private boolean subscribe(String pattern) {
        ClientRequest.Subscribe request = new ClientRequest.Subscribe(null, pattern, positions.recover(pattern), false, false);
        try {
            session.check(principal, request);
            session.subscribeChecked(request);
            return true;
        }
        catch (RequestRefusedException e) {
            if (e.code().equals(ErrorCodes.BUSY)) {
                return false;
            }
            LOG.debug("MQTT session of {}: subscription {} dropped on resume: {} {}", principal.subject(), pattern, e.code(), e.getMessage());
            positions.forget(pattern);
            wire.unsubscribed(pattern);
            subscriptions.filtersOn(pattern).forEach(subscriptions::remove);
            return true;
        }
    }

    private void retryLater(List<String> patterns) {
        if (patterns.isEmpty()) {
            return;
        }
        channel.eventLoop().schedule(() -> {
            if (!channel.isActive()) {
                return;
            }
            List<String> still = new ArrayList<>();
            for (String pattern : patterns) {
                // Unsubscribed meanwhile (UNSUBSCRIBE of its filters): nothing to make.
                if (positions.resuming(pattern) && !subscribe(pattern)) {
                    still.add(pattern);
                }
            }
            retryLater(still);
        }, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
}
