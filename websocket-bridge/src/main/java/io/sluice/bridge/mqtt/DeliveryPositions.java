package io.sluice.bridge.mqtt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.sluice.bridge.protocol.ClientRequest;

/**
 * Where a persistent session's client stands, per bridge subscription (pattern) and per partition (epoch), in the
 * bridge's own numbering (docs/bridge-protocol.md#recovery): in, every message the {@link MqttWire} handled for it
 * (done: sent at QoS 0, not for the client, or acknowledged; owed: a QoS 1 delivery sent or waiting for the window, until
 * its PUBACK); out, the {@link SessionState.Mark}s a resumed session recovers from, and, for the messages such a
 * recovery brings back, whether each was already done (skipped), may have been sent (resent with DUP) or is new.
 *
 * <p>A mark's {@code from} is the recover position: every message up to it is done. Above it, up to {@code seen},
 * messages are either listed in {@code done} (acknowledged out of order, or QoS 0 sent while an older QoS 1 one was
 * still owed) or owed. Event loop only, like the wire.
 */
final class DeliveryPositions {

    /** What to do with a recovered message of a resumed subscription. */
    enum Verdict { SEND, RESEND, SKIP }

    private static final class Stream {
        long seen = -1;
        final TreeSet<Long> owed = new TreeSet<>();
        // Done while something older was still owed: above owed.first() only.
        final TreeSet<Long> doneAbove = new TreeSet<>();
        // From a resumed mark, until the recovery has passed it: up to resumeSeen, messages not in resumeDone may have
        // been sent before.
        long resumeSeen = -1;
        TreeSet<Long> resumeDone;

        void handled(long seq) {
            seen = Math.max(seen, seq);
        }

        long from() {
            return owed.isEmpty() ? seen : owed.first() - 1;
        }
    }

    private final Map<String, Map<String, Stream>> patterns = new HashMap<>();
    private final Map<String, List<SessionState.Mark>> resumed = new HashMap<>();
    private boolean dirty;

    /** A subscription of a resumed session is to be made from these marks (now, or once the node can recover it). */
    void resume(String pattern, List<SessionState.Mark> marks) {
        resumed.put(pattern, marks);
    }

    /** The recover positions of a subscription to be made from resumed marks. */
    List<ClientRequest.Position> recover(String pattern) {
        List<SessionState.Mark> marks = resumed.getOrDefault(pattern, List.of());
        List<ClientRequest.Position> recover = new ArrayList<>(marks.size());
        marks.forEach(m -> recover.add(new ClientRequest.Position(m.epoch(), m.from())));
        return recover;
    }

    /** Whether the subscription is being made from a resumed session's marks (its messages are not retained ones). */
    boolean resuming(String pattern) {
        return resumed.containsKey(pattern);
    }

    /**
     * The subscription is made: each partition starts at the resumed mark's position when there is one (what follows
     * is recovered), else at the node's (live from there).
     */
    void subscribed(String pattern, List<ClientRequest.Position> nodePositions) {
        Map<String, Stream> streams = patterns.computeIfAbsent(pattern, p -> new HashMap<>());
        List<SessionState.Mark> marks = resumed.remove(pattern);
        for (ClientRequest.Position p : nodePositions) {
            streams.computeIfAbsent(p.epoch(), e -> new Stream()).handled(p.seq());
        }
        if (marks != null) {
            for (SessionState.Mark m : marks) {
                Stream s = streams.get(m.epoch());
                if (s == null) {
                    // An epoch this node does not read (the topic was recreated): its recovery is a gap.
                    continue;
                }
                s.seen = m.from();
                s.resumeSeen = m.seen();
                s.resumeDone = new TreeSet<>(m.done());
            }
        }
        dirty = true;
    }

    void forget(String pattern) {
        resumed.remove(pattern);
        if (patterns.remove(pattern) != null) {
            dirty = true;
        }
    }

    /** For a message of {@code pattern}: skipped if the client had it done before, resent with DUP if it may have it. */
    Verdict verdict(String pattern, String epoch, long seq) {
        Stream s = stream(pattern, epoch);
        if (s == null || s.resumeSeen < 0) {
            return Verdict.SEND;
        }
        if (seq > s.resumeSeen) {
            s.resumeSeen = -1;
            s.resumeDone = null;
            return Verdict.SEND;
        }
        return s.resumeDone.contains(seq) ? Verdict.SKIP : Verdict.RESEND;
    }

    /** The message is done for each of the patterns (sent at QoS 0, skipped, not for the client). */
    void done(List<String> of, String epoch, long seq) {
        for (String pattern : of) {
            Stream s = streamFor(pattern, epoch);
            s.handled(seq);
            if (!s.owed.isEmpty() && seq > s.owed.first()) {
                s.doneAbove.add(seq);
            }
        }
        dirty = true;
    }

    /** A QoS 1 delivery the client owes a PUBACK for (sent, or waiting for the window). */
    void owed(List<String> of, String epoch, long seq) {
        for (String pattern : of) {
            Stream s = streamFor(pattern, epoch);
            s.handled(seq);
            s.owed.add(seq);
        }
        dirty = true;
    }

    /** Its PUBACK came. */
    void acknowledged(List<String> of, String epoch, long seq) {
        for (String pattern : of) {
            Stream s = stream(pattern, epoch);
            if (s == null || !s.owed.remove(seq)) {
                continue;
            }
            if (s.owed.isEmpty()) {
                s.doneAbove.clear();
            }
            else {
                s.doneAbove.add(seq);
                s.doneAbove.headSet(s.owed.first()).clear();
            }
        }
        dirty = true;
    }

    /**
     * The marks to write, per pattern. {@code precise} false leaves out the {@code done} lists: what they named is then
     * resent with DUP after a resume, which keeps the state small without losing anything.
     */
    Map<String, List<SessionState.Mark>> marks(boolean precise) {
        Map<String, List<SessionState.Mark>> out = new HashMap<>();
        patterns.forEach((pattern, streams) -> {
            List<SessionState.Mark> marks = new ArrayList<>(streams.size());
            streams.forEach((epoch, s) -> {
                long from = s.from();
                List<Long> done = precise ? List.copyOf(s.doneAbove.tailSet(from, false)) : List.of();
                marks.add(new SessionState.Mark(epoch, from, Math.max(from, s.seen), done));
            });
            out.put(pattern, marks);
        });
        // Subscriptions still waiting to be made keep the marks they will recover from.
        resumed.forEach(out::putIfAbsent);
        return out;
    }

    /** Whether anything changed since the last {@link #clean}. */
    boolean dirty() {
        return dirty;
    }

    void clean() {
        dirty = false;
    }

    private Stream stream(String pattern, String epoch) {
        Map<String, Stream> streams = patterns.get(pattern);
        return streams == null ? null : streams.get(epoch);
    }

    private Stream streamFor(String pattern, String epoch) {
        return patterns.computeIfAbsent(pattern, p -> new HashMap<>()).computeIfAbsent(epoch, e -> new Stream());
    }
}
