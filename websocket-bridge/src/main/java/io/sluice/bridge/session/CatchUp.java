package io.sluice.bridge.session;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.recovery.RecoveryPlan;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Group;
import io.sluice.bridge.subscription.Subscription;
import io.sluice.logging.RateLimitedByCause;

/**
 * A new subscription's catch-up. In: the hub's {@link RecoveryPlan} (cached messages, Kafka log ranges, gaps, the
 * positions the client is ahead); out: the subscription's backlog in {@link Outbound}, in order and as its group selects
 * it, with a {@code gap} notice for what cannot be had, and its live messages held behind it until the log reads are
 * done. It bounds the log reads a connection runs at once, and cuts a recovery that would not fit beside what the
 * connection already holds.
 *
 * <p>Event loop only, like its session; a log read completes elsewhere and continues on the loop.
 */
final class CatchUp {

    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);
    // Node-wide: during a Kafka outage every reconnecting client's recovery fails the same way.
    private static final RateLimitedByCause RECOVERY_FAILURES = new RateLimitedByCause(LOG);

    private final Session session;
    private final Channel channel;
    private final SessionServices services;
    private final Outbound outbound;
    // Kafka log reads this connection started that have not finished.
    private int pendingLogReads;

    CatchUp(Session session, SessionServices services, Outbound outbound) {
        this.session = session;
        this.channel = session.channel();
        this.services = services;
        this.outbound = outbound;
    }

    /**
     * Starts the plan's log reads if this connection and the node have room for them, else returns null. The
     * connection's count drops when the reads finish, not when the subscription ends: unsubscribing does not stop a
     * read, so it must not make room for another.
     */
    CompletableFuture<List<EncodedMessage>> readLog(ClientRequest.Subscribe request, RecoveryPlan plan) {
        int reads = plan.reads().size();
        // A connection with no read pending may always start one recovery, however many partitions it covers.
        if (pendingLogReads > 0 && pendingLogReads + reads > services.recovery().kafkaReadsPerConnection()) {
            Refusals.refused(services, "recovery_connection_busy", channel.remoteAddress());
            return null;
        }
        EndpointTable table = services.hub().table();
        CompletableFuture<List<EncodedMessage>> fromKafka = services.kafkaRecovery().recover(request.endpoint(), plan.reads(),
                (topic, key) -> table.endpointsFor(topic, key).stream().filter(e -> EndpointTable.matches(request.endpoint(), e)).toList());
        if (fromKafka == null) {
            Refusals.refused(services, "recovery_node_busy", channel.remoteAddress());
            return null;
        }
        pendingLogReads += reads;
        fromKafka.whenComplete((recovered, error) -> channel.eventLoop().execute(() -> pendingLogReads -= reads));
        return fromKafka;
    }

    /**
     * Puts what the plan has now in the subscription's backlog (its gaps, then its cached messages), marks the positions
     * the client is ahead, and, when the log is read ({@code fromKafka} not null), holds live messages until it is.
     */
    void start(Subscription<SubscriptionState> subscription, ClientRequest.Subscribe request, RecoveryPlan plan,
               CompletableFuture<List<EncodedMessage>> fromKafka) {
        SubscriptionState state = subscription.state();
        for (RecoveryPlan.Gap gap : plan.gaps()) {
            services.metrics().recoveryGap();
            outbound.toBacklog(state, MessageEncoder.gap(channel.alloc(), request.endpoint(),
                    gap.epoch(), gap.fromSeq(), gap.toSeq(), gap.reason()));
        }
        recoverInto(state, request.endpoint(), selected(subscription, plan.cached()));
        if (!plan.ahead().isEmpty()) {
            state.skipUpTo = new HashMap<>();
            plan.ahead().forEach(p -> state.skipUpTo.put(p.epoch(), p.seq()));
        }
        if (fromKafka != null) {
            state.recovering = true;
            fromKafka.whenComplete((recovered, error) -> channel.eventLoop().execute(
                    () -> recovered(subscription, request, plan, recovered, error)));
        }
    }

    private void recovered(Subscription<SubscriptionState> subscription, ClientRequest.Subscribe request, RecoveryPlan plan,
                           List<EncodedMessage> recovered, Throwable error) {
        SubscriptionState state = subscription.state();
        if (!state.active) {
            if (recovered != null) {
                recovered.forEach(EncodedMessage::release);
            }
            return;
        }
        if (error != null) {
            RECOVERY_FAILURES.logWithCause(error, "{}: recovery of {} from Kafka failed", channel.remoteAddress(), request.endpoint());
            session.error(request.id(), ErrorCodes.RECOVERY_FAILED, "recovery from the Kafka log failed; the missed messages are reported as gaps");
            for (RecoveryPlan.LogRead read : plan.reads()) {
                services.metrics().recoveryGap();
                outbound.toBacklog(state, MessageEncoder.gap(channel.alloc(), request.endpoint(),
                        read.epoch(), read.from(), read.to(), ErrorCodes.RECOVERY_FAILED));
            }
        }
        else {
            recoverInto(state, request.endpoint(), selected(subscription, recovered));
        }
        state.recovering = false;
        outbound.drainBacklogs();
        outbound.flush();
    }

    /**
     * Recovered messages as the subscription's group selects them (filtered, projected), in order; the same messages
     * when the subscription selects everything. Takes over the references.
     */
    private List<EncodedMessage> selected(Subscription<SubscriptionState> subscription, List<EncodedMessage> messages) {
        Group group = subscription.group();
        if (group == null) {
            return messages;
        }
        List<EncodedMessage> kept = new ArrayList<>(messages.size());
        for (EncodedMessage m : messages) {
            EncodedMessage out = group.recovered(m, channel.alloc());
            if (out != null) {
                kept.add(out);
            }
        }
        return kept;
    }

    /**
     * Puts a recovery's messages (from the cache or the Kafka log, in order per partition) in the backlog: as many of
     * the newest as fit in half of {@code outbound.maxBytes} beside what the connection already holds; the older ones
     * are reported as one {@code too_far_behind} gap per partition, as for {@code recovery.kafkaMaxRecords}. Half,
     * so that live messages arriving while the backlog goes out have room before the limit closes the connection;
     * cutting rather than closing, because a client closed for its recovery would reconnect and ask for the same.
     */
    private void recoverInto(SubscriptionState state, String endpoint, List<EncodedMessage> messages) {
        long budget = Math.max(0, services.outbound().maxBytes() / 2 - outbound.outstanding());
        int cut = messages.size();
        long kept = 0;
        while (cut > 0 && kept + messages.get(cut - 1).bytes() <= budget) {
            kept += messages.get(cut - 1).bytes();
            cut--;
        }
        Map<String, long[]> dropped = new LinkedHashMap<>();
        for (EncodedMessage m : messages.subList(0, cut)) {
            if (m.notice()) {
                // Gap notices are small and say something the client needs; they stay, in order.
                outbound.toBacklog(state, m);
                continue;
            }
            long[] range = dropped.computeIfAbsent(m.epoch(), e -> new long[] {m.seq(), m.seq()});
            range[0] = Math.min(range[0], m.seq());
            range[1] = Math.max(range[1], m.seq());
            m.release();
        }
        dropped.forEach((epoch, range) -> {
            services.metrics().recoveryGap();
            outbound.toBacklog(state, MessageEncoder.gap(channel.alloc(), endpoint,
                    epoch, range[0], range[1], RecoveryPlan.GAP_TOO_FAR_BEHIND));
        });
        if (!dropped.isEmpty()) {
            LOG.debug("{}: recovery of {} cut to {} bytes of outbound.maxBytes", channel.remoteAddress(), endpoint, budget);
        }
        for (EncodedMessage m : messages.subList(cut, messages.size())) {
            outbound.toBacklog(state, m);
        }
    }
}
