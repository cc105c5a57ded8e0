package io.sluice.filter.audit;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets through at most one event of a sampled type per principal per interval, and accounts for the rest: every
 * event it is asked about is either admitted or counted, and each count comes out as one {@code events.suppressed}
 * event for its principal, type and interval, never lost. The count is written just before the principal's next
 * admitted event of that type, by {@link #sweep} (run every interval) once the interval is over, or by {@link #flush}
 * at shutdown, whichever comes first.
 *
 * <p>A window opens with an admitted event and lasts {@code interval}. Windows are shared by the connections of all
 * event loops (a concurrent map, each decision one atomic {@code compute}); at most {@code maxPrincipals} windows are
 * tracked at once (one per type, virtual cluster and principal), and principals beyond that share their type's and
 * virtual cluster's window of {@value #OVERFLOW_PRINCIPAL}. The sweep forgets windows that are over.</p>
 */
final class Sampler {

    static final String OVERFLOW_PRINCIPAL = "*";

    record Key(EventType type, String virtualCluster, String principal) {
    }

    private static final class Window {
        long start;
        long suppressed;
        long firstSuppressed;
        long lastSuppressed;

        Window(long start) {
            this.start = start;
        }
    }

    /** A count to report: {@code suppressed} events of {@code key} between the two times. */
    record Suppressed(Key key, long count, Instant first, Instant last) {
    }

    /** What {@link #admit} decided: whether the event goes out, and a count to write before it. */
    record Decision(boolean admitted, Suppressed before) {
    }

    private final Clock clock;
    private final long intervalMillis;
    private final int maxPrincipals;
    private final Map<Key, Window> windows = new ConcurrentHashMap<>();

    Sampler(Clock clock, java.time.Duration interval, int maxPrincipals) {
        this.clock = clock;
        this.intervalMillis = interval.toMillis();
        this.maxPrincipals = maxPrincipals;
    }

    Decision admit(EventType type, String virtualCluster, String principal) {
        Key key = new Key(type, virtualCluster, principal == null ? "" : principal);
        if (!windows.containsKey(key) && windows.size() >= maxPrincipals) {
            key = new Key(type, virtualCluster, OVERFLOW_PRINCIPAL);
        }
        long now = clock.millis();
        boolean[] admitted = new boolean[1];
        Suppressed[] before = new Suppressed[1];
        Key k = key;
        windows.compute(key, (ignored, window) -> {
            if (window == null) {
                admitted[0] = true;
                return new Window(now);
            }
            if (now - window.start >= intervalMillis) {
                before[0] = report(k, window);
                window.start = now;
                window.suppressed = 0;
                admitted[0] = true;
                return window;
            }
            if (window.suppressed++ == 0) {
                window.firstSuppressed = now;
            }
            window.lastSuppressed = now;
            return window;
        });
        return new Decision(admitted[0], before[0]);
    }

    /** The counts of windows that are over, which it forgets. */
    List<Suppressed> sweep() {
        long now = clock.millis();
        List<Suppressed> due = new ArrayList<>();
        for (Key key : windows.keySet()) {
            windows.computeIfPresent(key, (k, window) -> {
                if (now - window.start < intervalMillis) {
                    return window;
                }
                Suppressed s = report(k, window);
                if (s != null) {
                    due.add(s);
                }
                return null;
            });
        }
        return due;
    }

    /** Every count not yet reported, at shutdown. */
    List<Suppressed> flush() {
        List<Suppressed> due = new ArrayList<>();
        for (Key key : windows.keySet()) {
            windows.computeIfPresent(key, (k, window) -> {
                Suppressed s = report(k, window);
                if (s != null) {
                    due.add(s);
                }
                return null;
            });
        }
        return due;
    }

    private static Suppressed report(Key key, Window window) {
        return window.suppressed == 0 ? null
                : new Suppressed(key, window.suppressed, Instant.ofEpochMilli(window.firstSuppressed), Instant.ofEpochMilli(window.lastSuppressed));
    }
}
