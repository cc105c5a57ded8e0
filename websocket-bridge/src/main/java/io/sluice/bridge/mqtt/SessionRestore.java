package io.sluice.bridge.mqtt;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private final Session session;
    private final Principal principal;
    private final MqttSubscriptions subscriptions;
    private final DeliveryPositions positions;
    private final MqttWire wire;

    SessionRestore(Session session, Principal principal, MqttSubscriptions subscriptions, DeliveryPositions positions, MqttWire wire) {
        this.session = session;
        this.principal = principal;
        this.subscriptions = subscriptions;
        this.positions = positions;
        this.wire = wire;
    }

    /**
     * Makes the subscriptions; false when the node cannot now (recovery busy, its reader not started): the caller then
     * closes, so that the session stays as Kafka has it and a later resume gets everything.
     */
    boolean restore(SessionState state) {
        Set<String> patterns = new LinkedHashSet<>();
        for (Map.Entry<String, Integer> f : state.filters().entrySet()) {
            MqttTopics.Mapping mapping = MqttTopics.map(f.getKey());
            if (mapping.refused()) {
                continue;
            }
            subscriptions.put(f.getKey(), mapping.pattern(), Math.min(1, Math.max(0, f.getValue())));
            patterns.add(mapping.pattern());
        }
        for (String pattern : patterns) {
            List<ClientRequest.Position> recover = positions.resume(pattern, state.marks().getOrDefault(pattern, List.of()));
            ClientRequest.Subscribe request = new ClientRequest.Subscribe(null, pattern, recover, false, false);
            try {
                session.check(principal, request);
                session.subscribeChecked(request);
            }
            catch (RequestRefusedException e) {
                positions.forget(pattern);
                wire.unsubscribed(pattern);
                if (e.code().equals(ErrorCodes.BUSY) || e.code().equals(ErrorCodes.TOO_MANY_GROUPS)) {
                    return false;
                }
                LOG.debug("MQTT session of {}: subscription {} dropped on resume: {} {}", principal.subject(), pattern, e.code(), e.getMessage());
                subscriptions.filtersOn(pattern).forEach(subscriptions::remove);
            }
        }
        return true;
    }
}
