package io.sluice.sizing.plan;

import java.util.Locale;

/**
 * The Produce plus Fetch requests per second a traffic makes through the proxy, and where the figure came from.
 *
 * <p>From a shape: Produce requests by {@link ProducerBatching}; Fetch requests as many again per consumer group. A
 * consumer's Fetch waits at the broker until data arrives (fetch.min.bytes 1), so each Produce request releases about
 * one Fetch per group; when batches land faster than a Fetch round trip, several share one Fetch, so this is an upper
 * bound at high request rates. Consumers' idle Fetches (one per fetch.max.wait.ms, 2/s by default), Metadata,
 * heartbeats and commits are a few per client per second and stay in the fitted baseline.
 *
 * @param perSecond Produce + Fetch requests per second, all clients together
 * @param source    how it was obtained, for the report
 */
public record RequestRate(double perSecond, String source) {

    public RequestRate {
        if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("requests per second must be 0 or more, not " + perSecond);
        }
    }

    public static RequestRate given(double perSecond) {
        return new RequestRate(perSecond, "given");
    }

    /** From the shape: {@code messagesPerSecond} produced in all, read by {@code consumerGroups} groups. */
    public static RequestRate of(ProducerBatching batching, double messagesPerSecond, int messageBytes, int consumerGroups, boolean defaulted) {
        double produce = batching.produceRequestsPerSecond(messagesPerSecond, messageBytes);
        return new RequestRate(produce * (1 + consumerGroups), String.format(Locale.ROOT,
                "%,.0f Produce/s + %,.0f Fetch/s from the shape (%s%s)", produce, produce * consumerGroups, batching.describe(),
                defaulted ? "; not given: the runs' own producer settings" : ""));
    }
}
