package io.sluice.sizing.plan;

import java.util.Locale;

/**
 * The traffic to size for, and how much margin to keep.
 *
 * @param produceMBps       MB/s (10^6 bytes of message values) produced through the proxy
 * @param consumerGroups    how many consumer groups read all of it; each reads every byte once more
 * @param messageBytes      typical message value size
 * @param headroom          multiplier on the measured need, e.g. 1.3
 * @param podMaxMillicores  the most CPU one pod may have; more traffic means more pods
 */
public record TrafficSpec(double produceMBps, int consumerGroups, int messageBytes, double headroom, int podMaxMillicores) {

    public TrafficSpec {
        if (!(produceMBps > 0)) {
            throw new IllegalArgumentException("produce rate must be positive, not " + produceMBps);
        }
        if (consumerGroups < 0) {
            throw new IllegalArgumentException("consumer groups cannot be negative: " + consumerGroups);
        }
        if (messageBytes <= 0) {
            throw new IllegalArgumentException("message size must be positive, not " + messageBytes);
        }
        if (headroom < 1) {
            throw new IllegalArgumentException("headroom is a multiplier of at least 1, not " + headroom);
        }
        if (podMaxMillicores < 100) {
            throw new IllegalArgumentException("a pod needs at least 100 millicores, not " + podMaxMillicores);
        }
    }

    /** One line for reports. */
    public String describe() {
        return String.format(Locale.ROOT, "%.1f MB/s produced, %d consumer group(s) = %.1f MB/s through the proxy, %d-byte messages, headroom x%.2f",
                produceMBps, consumerGroups, totalMBps(), messageBytes, headroom);
    }

    /** Every byte crosses the proxy once when produced and once per consumer group that reads it. */
    public double totalMBps() {
        return produceMBps * (1 + consumerGroups);
    }
}
