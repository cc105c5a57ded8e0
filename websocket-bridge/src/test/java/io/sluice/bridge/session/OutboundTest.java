package io.sluice.bridge.session;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.bridge.config.OutboundConfig;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.subscription.Subscription;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Outbound} in an {@link EmbeddedChannel}: the socket's writability is set by hand (a user-defined writability
 * flag) and the slow-client clock runs on the channel's frozen, hand-advanced time, so nothing here waits.
 */
class OutboundTest {

    private static final MessageEncoder ENCODER = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
    private static final Duration MAX_SLOW_TIME = Duration.ofSeconds(30);
    private static final int MAX_BYTES = 4096;

    private EmbeddedChannel channel;
    private RecordingWire wire;
    private SimpleMeterRegistry registry;
    private BridgeMetrics metrics;
    private final Map<String, Subscription<SubscriptionState>> subscriptions = new LinkedHashMap<>();
    private boolean closing;
    private final List<String> slowCloses = new ArrayList<>();
    private Outbound outbound;

    @BeforeEach
    void setUp() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        wire = new RecordingWire();
        registry = new SimpleMeterRegistry();
        metrics = new BridgeMetrics(registry);
        OutboundConfig config = new OutboundConfig(1024, 512, MAX_BYTES, MAX_SLOW_TIME, Duration.ofSeconds(1));
        outbound = new Outbound(channel, wire, metrics.transport("websocket"), metrics, config, subscriptions.values(),
                () -> closing, reason -> {
                    slowCloses.add(reason);
                    closing = true;
                });
    }

    @AfterEach
    void tearDown() {
        outbound.release();
        channel.finishAndReleaseAll();
    }

    private Subscription<SubscriptionState> subscribe(String pattern) {
        Subscription<SubscriptionState> s = new Subscription<>(outbound, pattern, false, null, null, new SubscriptionState(false));
        subscriptions.put(pattern, s);
        return s;
    }

    private static EncodedMessage message(String endpoint, long seq, String value) {
        return ENCODER.message(endpoint, "epoch-0", 0, seq, 1L, value.getBytes(StandardCharsets.UTF_8));
    }

    private void socketWritable(boolean writable) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, writable);
        assertThat(channel.isWritable()).isEqualTo(writable);
    }

    private double count(String counter, String... tags) {
        return registry.get(counter).tags(tags).counter().count();
    }

    private void advance(Duration by) {
        channel.advanceTimeBy(by.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void aMessageGoesOutWhileTheSocketKeepsUpAndIsFlushedOnceAtTheEndOfTheBatch() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        EncodedMessage first = message("/t/a", 1, "{\"n\":1}");
        EncodedMessage second = message("/t/b", 2, "{\"n\":2}");

        outbound.deliver(s, first);
        outbound.deliver(s, second);
        assertThat(wire.flushes).isZero();
        outbound.flush();
        outbound.flush();

        assertThat(wire.written).containsExactly("/t/a#1 for /t/*", "/t/b#2 for /t/*");
        assertThat(wire.flushes).as("one flush per batch, none when nothing was written since").isEqualTo(1);
        assertThat(first.frame().refCnt()).as("the caller's reference is released once written").isZero();
        assertThat(outbound.outstanding()).isZero();
    }

    @Test
    void whileTheSocketIsUnwritableTheLatestMessagePerEndpointIsKeptAndGoesOutOnWritabilityWithWhatWasDropped() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        socketWritable(false);
        EncodedMessage a1 = message("/t/a", 1, "{\"n\":1}");
        EncodedMessage a2 = message("/t/a", 2, "{\"n\":2}");
        EncodedMessage b3 = message("/t/b", 3, "{\"n\":3}");
        EncodedMessage a4 = message("/t/a", 4, "{\"n\":4}");
        int keptBytes = a4.bytes() + b3.bytes();

        outbound.deliver(s, a1);
        outbound.deliver(s, a2);
        outbound.deliver(s, b3);
        outbound.deliver(s, a4);

        assertThat(wire.written).isEmpty();
        assertThat(outbound.outstanding()).as("conflated bytes count against outbound.maxBytes").isEqualTo(keptBytes);
        assertThat(a1.frame().refCnt()).as("a replaced message is released").isZero();
        assertThat(a2.frame().refCnt()).isZero();

        socketWritable(true);
        outbound.writable();

        assertThat(wire.written).containsExactly("control {\"type\":\"conflated\",\"endpoint\":\"/t/a\",\"dropped\":2}",
                "/t/a#4 for null", "/t/b#3 for null");
        assertThat(wire.flushes).isEqualTo(1);
        assertThat(outbound.outstanding()).isZero();
        assertThat(count("sluice.bridge.messages.conflated")).isEqualTo(2);
    }

    @Test
    void aMessageArrivingWhileOthersAreConflatedWaitsBehindThemEvenOnceTheSocketIsWritable() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        socketWritable(false);
        outbound.deliver(s, message("/t/a", 1, "{}"));
        socketWritable(true);
        outbound.deliver(s, message("/t/b", 2, "{}"));

        assertThat(wire.written).as("not ahead of the older conflated message").isEmpty();
        outbound.writable();
        assertThat(wire.written).containsExactly("/t/a#1 for null", "/t/b#2 for null");
    }

    @Test
    void aClientStillBehindAtOutboundMaxSlowTimeIsClosedAsSlow() {
        socketWritable(false);
        outbound.unwritable();
        assertThat(outbound.slowClockRunning()).isTrue();

        advance(MAX_SLOW_TIME.minusMillis(1));
        assertThat(slowCloses).isEmpty();
        advance(Duration.ofMillis(1));

        assertThat(slowCloses).containsExactly("slow client: not reading for too long");
        assertThat(outbound.slowClockRunning()).isFalse();
        assertThat(count("sluice.bridge.slow.client.closes", "reason", "max_slow_time")).isEqualTo(1);
    }

    @Test
    void aClientThatCatchesUpStopsTheClock() {
        socketWritable(false);
        outbound.unwritable();
        advance(MAX_SLOW_TIME.minusSeconds(1));
        socketWritable(true);
        outbound.writable();

        assertThat(outbound.slowClockRunning()).isFalse();
        advance(MAX_SLOW_TIME.multipliedBy(2));
        assertThat(slowCloses).isEmpty();
    }

    @Test
    void aSecondUnwritableDoesNotRestartTheClock() {
        socketWritable(false);
        outbound.unwritable();
        advance(MAX_SLOW_TIME.minusSeconds(1));
        outbound.unwritable();
        advance(Duration.ofSeconds(1));

        assertThat(slowCloses).containsExactly("slow client: not reading for too long");
    }

    @Test
    void aClientThatDipsBelowTheLowWaterMarkWithMessagesStillConflatedStaysSlow() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        socketWritable(false);
        outbound.unwritable();
        outbound.deliver(s, message("/t/a", 1, "{}"));
        outbound.deliver(s, message("/t/b", 2, "{}"));
        // The socket takes one message and is full again.
        wire.onMessage = () -> socketWritable(false);
        socketWritable(true);
        outbound.writable();

        assertThat(wire.written).containsExactly("/t/a#1 for null");
        assertThat(outbound.slowClockRunning()).as("/t/b still waits: the client is still behind").isTrue();
        // Below the low-water mark again when the clock fires, with /t/b still conflated: still behind.
        socketWritable(true);
        advance(MAX_SLOW_TIME);
        assertThat(slowCloses).containsExactly("slow client: not reading for too long");
    }

    @Test
    void theClockFiringForAClientThatIsNoLongerBehindClosesNothing() {
        socketWritable(false);
        outbound.unwritable();
        // Writable again, but the writability event has not reached the session yet.
        socketWritable(true);
        advance(MAX_SLOW_TIME);

        assertThat(slowCloses).isEmpty();
        assertThat(outbound.slowClockRunning()).isFalse();
    }

    @Test
    void beyondOutboundMaxBytesTheConnectionIsClosedAsSlowAtOnce() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        socketWritable(false);
        String value = "{\"pad\":\"" + "p".repeat(1000) + "\"}";
        long before = 0;
        long delivered = 0;
        for (int i = 0; slowCloses.isEmpty(); i++) {
            EncodedMessage m = message("/t/e" + i, i, value);
            before = delivered;
            delivered += m.bytes();
            outbound.deliver(s, m);
        }

        assertThat(before).as("not closed before the limit").isLessThanOrEqualTo(MAX_BYTES);
        assertThat(delivered).isGreaterThan(MAX_BYTES);
        assertThat(slowCloses).containsExactly("slow client: outbound limit exceeded");
        assertThat(count("sluice.bridge.slow.client.closes", "reason", "max_bytes")).isEqualTo(1);
    }

    @Test
    void theTransportsOwnQueueCountsAgainstTheLimitWhenItReportsOne() {
        wire.queuedBytes = MAX_BYTES;
        outbound.control("{}".getBytes(StandardCharsets.UTF_8));
        assertThat(slowCloses).as("exactly at the limit is within it").isEmpty();

        wire.queuedBytes = MAX_BYTES + 1;
        outbound.control("{}".getBytes(StandardCharsets.UTF_8));
        assertThat(slowCloses).containsExactly("slow client: outbound limit exceeded");
    }

    @Test
    void withoutAQueueOfItsOwnTheTransportsUnflushedWritesAreCountedFromTheChannel() {
        wire.queuedBytes = -1;
        wire.writeToChannel = true;
        Subscription<SubscriptionState> s = subscribe("/t/*");
        EncodedMessage m = message("/t/a", 1, "{\"n\":1}");
        int frameBytes = m.frame().readableBytes();
        outbound.deliver(s, m);

        long pending = channel.unsafe().outboundBuffer().totalPendingWriteBytes();
        assertThat(pending).isGreaterThanOrEqualTo(frameBytes);
        assertThat(outbound.outstanding()).isEqualTo(pending);
        outbound.flush();
        assertThat(outbound.outstanding()).as("flushed to the socket").isZero();
    }

    @Test
    void liveMessagesOfACatchingUpSubscriptionWaitBehindItsBacklogCountedUntilTheyGoOut() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        SubscriptionState state = s.state();
        state.recovering = true;
        EncodedMessage recovered = message("/t/a", 1, "{\"n\":1}");
        EncodedMessage live = message("/t/a", 2, "{\"n\":2}");
        outbound.toBacklog(state, recovered);
        outbound.deliver(s, live);

        assertThat(wire.written).isEmpty();
        assertThat(outbound.outstanding()).isEqualTo(recovered.bytes() + live.bytes());
        outbound.drainBacklogs();
        assertThat(wire.written).as("nothing goes out while the log read runs").isEmpty();

        state.recovering = false;
        outbound.drainBacklogs();
        assertThat(wire.written).containsExactly("/t/a#1 for /t/*", "/t/a#2 for /t/*");
        assertThat(outbound.outstanding()).isZero();
    }

    @Test
    void anEndedSubscriptionsHeldMessagesAreReleasedAndNoLongerCounted() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        Subscription<SubscriptionState> other = subscribe("/u/*");
        s.state().recovering = true;
        other.state().recovering = true;
        EncodedMessage backlog = message("/t/a", 1, "{}");
        EncodedMessage held = message("/t/a", 2, "{}");
        EncodedMessage kept = message("/u/a", 3, "{}");
        outbound.toBacklog(s.state(), backlog);
        outbound.deliver(s, held);
        outbound.deliver(other, kept);

        outbound.forget(s.state());
        subscriptions.remove("/t/*");

        assertThat(backlog.frame().refCnt()).isZero();
        assertThat(held.frame().refCnt()).isZero();
        assertThat(outbound.outstanding()).isEqualTo(kept.bytes());
        outbound.deliver(s, message("/t/a", 4, "{}"));
        assertThat(outbound.outstanding()).as("an ended subscription takes nothing more").isEqualTo(kept.bytes());
    }

    @Test
    void aClosingSessionSendsNothingMore() {
        Subscription<SubscriptionState> s = subscribe("/t/*");
        closing = true;
        EncodedMessage m = message("/t/a", 1, "{}");
        outbound.deliver(s, m);
        outbound.control("{}".getBytes(StandardCharsets.UTF_8));
        outbound.unwritable();

        assertThat(wire.written).isEmpty();
        assertThat(m.frame().refCnt()).isZero();
        assertThat(outbound.slowClockRunning()).isFalse();
    }

    @Test
    void aDeltaSubscriptionGetsTheDeltaFrameOnlyWhenItHoldsTheBase() {
        Subscription<SubscriptionState> s = new Subscription<>(outbound, "/t/*", true, null, null, new SubscriptionState(true));
        subscriptions.put("/t/*", s);
        EncodedMessage base = message("/t/a", 1, "{\"n\":1,\"m\":0}");
        EncodedMessage next = message("/t/a", 2, "{\"n\":2,\"m\":0}");
        EncodedMessage skipped = message("/t/a", 4, "{\"n\":4,\"m\":0}");
        next.attachDelta(Unpooled.copiedBuffer("delta-2", StandardCharsets.UTF_8), 1);
        skipped.attachDelta(Unpooled.copiedBuffer("delta-4", StandardCharsets.UTF_8), 3);

        outbound.deliver(s, base);
        outbound.deliver(s, next);
        outbound.deliver(s, skipped);

        assertThat(wire.written).containsExactly("/t/a#1 for /t/*", "/t/a#2 delta for /t/*", "/t/a#4 for /t/*");
    }

    /** A transport that records what it is asked to write. */
    private final class RecordingWire implements Wire {
        final List<String> written = new ArrayList<>();
        int flushes;
        long queuedBytes;
        boolean writeToChannel;
        Runnable onMessage = () -> { };

        @Override
        public String transport() {
            return "websocket";
        }

        @Override
        public void message(EncodedMessage message, ByteBuf frame, boolean delta, String pattern) {
            written.add(message.endpoint() + "#" + message.seq() + (delta ? " delta" : "") + " for " + pattern);
            if (writeToChannel) {
                channel.write(frame.retainedDuplicate());
            }
            onMessage.run();
        }

        @Override
        public void control(byte[] json) {
            written.add("control " + new String(json, StandardCharsets.UTF_8));
        }

        @Override
        public void flush() {
            flushes++;
            channel.flush();
        }

        @Override
        public long queuedBytes() {
            return queuedBytes;
        }

        @Override
        public ChannelFuture close(int code, String reason) {
            return channel.newSucceededFuture();
        }
    }
}
