package io.sluice.filter.audit;

/** Where audit lines go. {@link #offer} is called on event loops and never blocks; {@link #close} drains and releases. */
interface EventSink extends AutoCloseable {

    /** The sink's name in metrics: {@code file}, {@code stdout} or {@code kafka}. */
    String name();

    /** Takes one event's line, or drops it (counted) when the sink's buffer is full. Never blocks. */
    void offer(String key, byte[] line);

    /** Writes what is buffered (for a bounded time) and releases the sink; later offers are dropped. */
    @Override
    void close();
}
