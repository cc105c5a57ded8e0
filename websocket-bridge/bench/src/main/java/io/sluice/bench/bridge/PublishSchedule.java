package io.sluice.bench.bridge;

import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * One publishing client's even schedule, whatever its transport: every {@code period} from a first time, each publish
 * stamped with its <em>scheduled</em> time, so a client that falls behind shows it as latency rather than hiding it (no
 * coordinated omission). The transport writes publish {@code index}; the schedule flushes once per wake-up. Runs on the
 * channel's event loop only.
 */
final class PublishSchedule {

    /** Writes publish {@code index}, scheduled at {@code scheduled} ({@link LatencyStamp#now()} clock); not flushed. */
    @FunctionalInterface
    interface Writer {
        void write(long index, long scheduled);
    }

    private final ChannelHandlerContext ctx;
    private final BenchPublishers run;
    private final Writer writer;
    private long firstDue;
    private long periodNanos;
    // Apart from the period: an ack that arrives after stop() still has its publish's due time.
    private boolean running;
    private long next;
    private ScheduledFuture<?> timer;

    PublishSchedule(ChannelHandlerContext ctx, BenchPublishers run, Writer writer) {
        this.ctx = ctx;
        this.run = run;
        this.writer = writer;
    }

    /** Starts publishing every {@code periodNanos}, the first at {@code firstDue}. Any thread. */
    void start(long firstDue, long periodNanos) {
        ctx.executor().execute(() -> {
            this.firstDue = firstDue;
            this.periodNanos = periodNanos;
            this.running = true;
            schedule();
        });
    }

    /** Stops publishing; what was sent is still acked. Any thread. */
    void stop() {
        ctx.executor().execute(this::cancel);
    }

    /** The channel closed, or stop: no more wake-ups. Event loop. */
    void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        running = false;
    }

    /** When publish {@code index} was due. */
    long due(long index) {
        return firstDue + index * periodNanos;
    }

    private void schedule() {
        if (!running || !ctx.channel().isActive()) {
            return;
        }
        long delay = Math.max(0, due(next) - LatencyStamp.now());
        timer = ctx.executor().schedule(this::publishDue, delay, TimeUnit.NANOSECONDS);
    }

    /** Every publish whose time has come, then the next wake-up. */
    private void publishDue() {
        long now = LatencyStamp.now();
        boolean wrote = false;
        while (running && due(next) <= now) {
            long scheduled = due(next);
            run.onSent(now - scheduled);
            writer.write(next, scheduled);
            next++;
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
        }
        schedule();
    }
}
