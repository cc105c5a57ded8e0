package io.sluice.filter.audit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedLog;

/**
 * A sink with a buffer bounded in bytes and one thread of its own that writes: event loops only append to a lock-free
 * queue ({@link #offer} never blocks, and drops and counts a line the buffer has no room for), and whatever writing
 * costs or waits for (a slow disk, a Kafka cluster that is down) is this thread's.
 *
 * <p>The writer takes up to {@value #BATCH} lines at a time and hands them to {@link #write}, then {@link #flush}es
 * when the queue is empty, so lines reach their destination as soon as nothing else waits.</p>
 */
abstract class QueuedSink implements EventSink {

    private static final int BATCH = 512;
    private static final long IDLE_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

    /** One line and the key it goes with. */
    record Line(String key, byte[] bytes) {
    }

    protected final RateLimitedLog problems = new RateLimitedLog(LoggerFactory.getLogger(getClass()));
    private final String name;
    private final long maxBufferBytes;
    private final AuditMetrics.SinkCounters counters;
    private final ConcurrentLinkedQueue<Line> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong buffered = new AtomicLong();
    private final Thread writer;
    private volatile boolean idle;
    private volatile boolean closing;

    QueuedSink(String name, String filterName, long maxBufferBytes, AuditMetrics metrics) {
        this.name = name;
        this.maxBufferBytes = maxBufferBytes;
        this.counters = metrics.sink(name);
        metrics.bufferGauge(name, buffered, AtomicLong::get);
        this.writer = new Thread(this::run, "sluice-audit-" + filterName + "-" + name);
        this.writer.setDaemon(true);
    }

    /** Starts the writer; the subclass calls it once its resources are open. */
    protected final void start() {
        writer.start();
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final void offer(String key, byte[] line) {
        if (closing || buffered.addAndGet(line.length) > maxBufferBytes) {
            if (!closing) {
                buffered.addAndGet(-line.length);
            }
            counters.dropped().increment();
            return;
        }
        queue.offer(new Line(key, line));
        if (idle) {
            LockSupport.unpark(writer);
        }
    }

    /** Writes lines in order; a line it could not write it reports with {@link #failed}. */
    protected abstract void write(List<Line> lines);

    /** Pushes what {@link #write} buffered on to its destination. */
    protected abstract void flush();

    /** Releases the destination, after the writer stopped. */
    protected abstract void release();

    protected final void failed(int lines) {
        counters.failed().increment(lines);
    }

    protected final void written(int lines) {
        counters.written().increment(lines);
    }

    private void run() {
        List<Line> batch = new ArrayList<>(BATCH);
        boolean unflushed = false;
        while (true) {
            Line line = queue.poll();
            if (line == null) {
                if (unflushed) {
                    flushSafely();
                    unflushed = false;
                    continue;
                }
                if (closing) {
                    return;
                }
                idle = true;
                if (queue.isEmpty() && !closing) {
                    LockSupport.parkNanos(this, IDLE_PARK_NANOS);
                }
                idle = false;
                continue;
            }
            long bytes = 0;
            do {
                batch.add(line);
                bytes += line.bytes().length;
            } while (batch.size() < BATCH && (line = queue.poll()) != null);
            try {
                write(batch);
            } catch (RuntimeException e) {
                problems.log("audit sink {}: {} events could not be written: {}", name, batch.size(), e.toString());
                failed(batch.size());
            }
            buffered.addAndGet(-bytes);
            batch.clear();
            unflushed = true;
        }
    }

    private void flushSafely() {
        try {
            flush();
        } catch (RuntimeException e) {
            problems.log("audit sink {}: flush failed: {}", name, e.toString());
        }
    }

    /** Lets the writer finish what is buffered, for at most {@link #CLOSE_WAIT}; what is left then is counted as dropped. */
    @Override
    public final void close() {
        closing = true;
        LockSupport.unpark(writer);
        try {
            if (writer.isAlive()) {
                writer.join(CLOSE_WAIT.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            writer.interrupt();
            problems.log("audit sink {}: closing with events still buffered after {} ms", name, CLOSE_WAIT.toMillis());
        }
        int left = 0;
        while (queue.poll() != null) {
            left++;
        }
        if (left > 0) {
            counters.dropped().increment(left);
        }
        release();
    }
}
