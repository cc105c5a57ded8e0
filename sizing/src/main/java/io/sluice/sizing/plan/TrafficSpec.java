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
 * @param requests          Produce + Fetch requests per second the traffic makes through the proxy: what the CPU
 *                          follows where the fit has requests in it
 */
public record TrafficSpec(double produceMBps, int consumerGroups, int messageBytes, double headroom, int podMaxMillicores,
                          RequestRate requests) {

    /** Requests from the shape of the runs' own producers (linger.ms 1, batch.size 128 KiB), as nothing else was said. */
    public TrafficSpec(double produceMBps, int consumerGroups, int messageBytes, double headroom, int podMaxMillicores) {
        this(produceMBps, consumerGroups, messageBytes, headroom, podMaxMillicores,
                runsShape(produceMBps, consumerGroups, messageBytes));
    }

    private static RequestRate runsShape(double produceMBps, int consumerGroups, int messageBytes) {
        if (!(produceMBps > 0) || messageBytes <= 0 || consumerGroups < 0) {
            return new RequestRate(0, "none: the traffic is invalid"); // the canonical constructor says why
        }
        return RequestRate.of(ProducerBatching.OF_THE_RUNS, produceMBps * 1e6 / messageBytes, messageBytes, consumerGroups, true);
    }

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
        if (requests == null) {
            throw new IllegalArgumentException("requests per second must be given, or derived from the traffic's shape");
        }
        if (podMaxMillicores < 100) {
            throw new IllegalArgumentException("a pod needs at least 100 millicores, not " + podMaxMillicores);
        }
    }

    /** One line for reports. */
    public String describe() {
        return String.format(Locale.ROOT, "%.1f MB/s produced, %d consumer group(s) = %.1f MB/s through the proxy, %d-byte messages, headroom x%.2f;"
                        + " %,.0f requests/s (%s)", produceMBps, consumerGroups, totalMBps(), messageBytes, headroom, requests.perSecond(), requests.source());
    }

    /** Requests per MB of total traffic: the shape the fit's derived figures are evaluated at. */
    public double requestsPerMB() {
        return requests.perSecond() / totalMBps();
    }

    /** Every byte crosses the proxy once when produced and once per consumer group that reads it. */
    public double totalMBps() {
        return produceMBps * (1 + consumerGroups);
    }
}
