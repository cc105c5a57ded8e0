package io.sluice.filter.audit;

import java.time.Clock;
import java.time.Instant;
import java.util.List;

import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedLog;

/**
 * What every connection of one Audit definition writes through: each event is serialised once, on the event loop that
 * made it, and offered to every sink (which never blocks), all sinks in the same order; sampled types pass the
 * {@link Sampler} first. Shared by the connections of all event loops.
 */
final class AuditLog implements AutoCloseable {

    private static final RateLimitedLog PROBLEMS = new RateLimitedLog(LoggerFactory.getLogger(AuditLog.class));

    private final Clock clock;
    private final Sampler sampler;
    private final AuditMetrics metrics;
    private final List<EventSink> sinks;

    AuditLog(Clock clock, Sampler sampler, AuditMetrics metrics, List<EventSink> sinks) {
        this.clock = clock;
        this.sampler = sampler;
        this.metrics = metrics;
        this.sinks = List.copyOf(sinks);
    }

    Instant now() {
        return clock.instant();
    }

    void emit(AuditEvent event) {
        byte[] line;
        try {
            line = event.line();
        } catch (RuntimeException e) {
            PROBLEMS.log("an audit event of type {} could not be serialised: {}", event.type().wireName(), e.toString());
            return;
        }
        metrics.made(event.type());
        // One order for every sink, whichever event loops emit at once: the topic is a copy of the file. Held only
        // while lines are appended to lock-free queues, which never wait.
        synchronized (sinks) {
            for (EventSink sink : sinks) {
                sink.offer(event.key(), line);
            }
        }
    }

    /** Emits {@code event} if sampling lets it through, after the count of those suppressed before it, if any. */
    void emitSampled(AuditEvent event, String virtualCluster, String principal) {
        Sampler.Decision decision = sampler.admit(event.type(), virtualCluster, principal);
        if (decision.before() != null) {
            emit(suppressedEvent(decision.before()));
        }
        if (decision.admitted()) {
            emit(event);
        } else {
            metrics.suppressed(event.type());
        }
    }

    /** Writes the counts of the sampling windows that are over; run periodically. */
    void sweep() {
        try {
            sampler.sweep().forEach(s -> emit(suppressedEvent(s)));
        } catch (RuntimeException e) {
            // A periodic task that throws is never run again.
            PROBLEMS.log("audit: the sampling sweep failed: {}", e.toString());
        }
    }

    private AuditEvent suppressedEvent(Sampler.Suppressed s) {
        String principal = s.key().principal().isEmpty() ? null : s.key().principal();
        return new AuditEvent(EventType.EVENTS_SUPPRESSED, clock.instant(), s.key().virtualCluster(), null, null, principal, principal)
                .with("suppressedType", s.key().type().wireName())
                .with("count", s.count())
                .with("firstSuppressed", AuditEvent.formatTime(s.first()))
                .with("lastSuppressed", AuditEvent.formatTime(s.last()));
    }

    /** At shutdown, after every connection closed: the counts not yet written, then every sink drains and closes. */
    @Override
    public void close() {
        sampler.flush().forEach(s -> emit(suppressedEvent(s)));
        for (EventSink sink : sinks) {
            try {
                sink.close();
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(AuditLog.class).warn("audit sink {} failed to close: {}", sink.name(), e.toString());
            }
        }
    }
}
