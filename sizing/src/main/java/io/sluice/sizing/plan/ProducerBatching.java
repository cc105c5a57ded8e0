package io.sluice.sizing.plan;

import java.util.Locale;

/**
 * How producers batch, and the Produce requests per second that follows for a message rate. The model, per producer
 * (m messages/s of s bytes, batch.size B, linger.ms L, k partitions open at once):
 *
 * <pre>
 *   batches/s = min(m, max(m × s / B, k × 1000 / max(L, 0.2)))
 * </pre>
 *
 * A batch is sent when it is full or when it has waited linger.ms, whichever comes first, so the rate is the
 * <em>larger</em> of the two triggers: full batches (m × s / B) when they fill within linger.ms, else one batch per
 * open partition per linger.ms. It is never more than one per message. {@code k} is 1 for records without keys:
 * the producer's default (sticky) partitioner fills one partition's batch at a time; with keys it is the partitions a
 * producer writes to. With linger.ms 0 a batch goes as soon as the sender is free, which is bounded by round trips,
 * not by linger: 0.2 ms stands for a 1 ms round trip over 5 requests in flight (loopback or a LAN); measure the
 * requests ({@code sluice_requests_total}) instead where that matters. Each batch is counted as one Produce request:
 * batches for several partitions on one broker that are ready together share a request, so with keys this is an
 * upper bound.
 *
 * @param lingerMs   the producers' linger.ms
 * @param batchBytes the producers' batch.size
 * @param producers  producers sharing the message rate evenly
 * @param partitions partitions each producer's batches are open for at once (1 for records without keys)
 */
public record ProducerBatching(double lingerMs, int batchBytes, int producers, int partitions) {

    /** linger.ms 0 sends as fast as round trips allow: a 1 ms round trip over 5 requests in flight. */
    static final double MIN_EFFECTIVE_LINGER_MS = 0.2;

    /** The runs' own producers (sluice bench and the OMB drivers here): linger.ms 1, batch.size 128 KiB, one producer, no keys. */
    public static final ProducerBatching OF_THE_RUNS = new ProducerBatching(1, 131_072, 1, 1);

    public ProducerBatching {
        if (!(lingerMs >= 0) || Double.isInfinite(lingerMs)) {
            throw new IllegalArgumentException("linger.ms must be 0 or more, not " + lingerMs);
        }
        if (batchBytes <= 0) {
            throw new IllegalArgumentException("batch.size must be positive, not " + batchBytes);
        }
        if (producers <= 0) {
            throw new IllegalArgumentException("producers must be at least 1, not " + producers);
        }
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
        }
    }

    /** Produce requests per second for {@code messagesPerSecond} produced in all, of {@code messageBytes} each. */
    public double produceRequestsPerSecond(double messagesPerSecond, int messageBytes) {
        double perProducer = messagesPerSecond / producers;
        double full = perProducer * messageBytes / batchBytes;
        double lingered = partitions * 1000 / Math.max(lingerMs, MIN_EFFECTIVE_LINGER_MS);
        return producers * Math.min(perProducer, Math.max(full, lingered));
    }

    public String describe() {
        return String.format(Locale.ROOT, "linger.ms %s, batch.size %d, %d producer(s), %d partition(s) open per producer",
                lingerMs == Math.rint(lingerMs) ? Long.toString((long) lingerMs) : Double.toString(lingerMs), batchBytes, producers, partitions);
    }
}
