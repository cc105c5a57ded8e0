package io.sluice.bench.bridge;

/**
 * What the publishing clients of one run measured. Rates and latencies are over the measured window; the
 * exactly-once check is over the whole run (warm-up included), after every ack was in and Kafka was read to the end.
 *
 * @param clientsConnected  clients connected when publishing started
 * @param published         publishes sent in the window
 * @param acked             acks received in the window
 * @param ackLatency        scheduled publish time → ack read by the client
 * @param kafkaLatency      scheduled publish time → record read by a kafka-clients consumer
 * @param ackedInAll        publishes acked over the whole run
 * @param inKafka           distinct publishes read from Kafka over the whole run
 * @param lost              acked but not in Kafka
 * @param duplicates        read from Kafka more than once (each extra copy counts)
 * @param writtenNotAcked   in Kafka without an ack received (the ack was lost, or refused yet written: both wrong)
 * @param refused           publishes answered with an error (busy, publish_failed)
 * @param sentNotAnswered   publishes neither acked nor refused when the run gave up waiting
 * @param publisherMaxLagMs how far behind its schedule a client has been at worst
 * @param bridgeCpuSeconds  bridge CPU over the window; NaN when measured by the run it was part of
 */
public record PublishResult(int clients, int clientsConnected, int connectFailures, double ratePerClient, int payloadBytes, double seconds,
                            long published, long acked, double publishesPerSecond,
                            Latency ackLatency, Latency kafkaLatency,
                            long ackedInAll, long inKafka, long lost, long duplicates, long writtenNotAcked, long refused, long sentNotAnswered,
                            double publisherMaxLagMs, double bridgeCpuSeconds, long bridgeRssBytes, String firstProblem) {

    /** Latency percentiles in ms. */
    public record Latency(long count, double meanMs, double p50Ms, double p99Ms, double maxMs) {

        static Latency of(org.HdrHistogram.Histogram micros) {
            return new Latency(micros.getTotalCount(), micros.getMean() / 1000, micros.getValueAtPercentile(50) / 1000.0,
                    micros.getValueAtPercentile(99) / 1000.0, micros.getMaxValue() / 1000.0);
        }
    }

    /** Every acked publish is in Kafka exactly once, nothing is there that was not acked, nothing was left unanswered. */
    public boolean exactlyOnce() {
        return lost == 0 && duplicates == 0 && writtenNotAcked == 0 && sentNotAnswered == 0 && ackedInAll == inKafka;
    }

    public double bridgeCores() {
        return bridgeCpuSeconds / seconds;
    }

    /** Bridge CPU seconds per million publishes acked in the window. */
    public double bridgeCpuSecondsPerMillion() {
        return acked == 0 ? Double.NaN : bridgeCpuSeconds / (acked / 1e6);
    }

    PublishResult withBridge(double cpuSeconds, long rssBytes) {
        return new PublishResult(clients, clientsConnected, connectFailures, ratePerClient, payloadBytes, seconds, published, acked, publishesPerSecond,
                ackLatency, kafkaLatency, ackedInAll, inKafka, lost, duplicates, writtenNotAcked, refused, sentNotAnswered, publisherMaxLagMs,
                cpuSeconds, rssBytes, firstProblem);
    }
}
