package io.sluice.app.cli;

import java.util.List;

import io.sluice.cli.UsageException;
import io.sluice.sizing.plan.ProducerBatching;
import io.sluice.sizing.plan.RequestRate;
import io.sluice.sizing.plan.TrafficSpec;

/**
 * {@code sluice size}'s traffic from its options: the bytes (--produce-mb-s, or --message-rate × --message-bytes) and
 * the requests they come in (--requests-per-second, or the producers' batching). Each bad value is refused with the
 * option that holds it, before any result is read.
 */
final class TrafficShapeOptions {

    private static final List<String> BATCHING = List.of("--linger-ms", "--batch-bytes", "--producers", "--partitions");

    private TrafficShapeOptions() {
    }

    static TrafficSpec traffic(SizeCommand c) {
        positive("--message-bytes", c.messageBytes);
        if (c.consumerGroups < 0) {
            throw new UsageException("--consumer-groups must be 0 or more, not " + c.consumerGroups);
        }
        if (c.given("--message-rate") && c.given("--produce-mb-s")) {
            throw new UsageException("--message-rate and --produce-mb-s both say how much is produced: give one");
        }
        double messagesPerSecond;
        double produceMBps;
        if (c.messageRate != null) {
            positive("--message-rate", c.messageRate);
            messagesPerSecond = c.messageRate;
            produceMBps = messagesPerSecond * c.messageBytes / 1e6;
        } else {
            positive("--produce-mb-s", c.produceMbS);
            produceMBps = c.produceMbS;
            messagesPerSecond = produceMBps * 1e6 / c.messageBytes;
        }
        RequestRate requests;
        List<String> batching = BATCHING.stream().filter(c::given).toList();
        if (c.requestsPerSecond != null) {
            if (!batching.isEmpty()) {
                throw new UsageException("--requests-per-second is the requests themselves; " + String.join(", ", batching)
                        + " derive them: give one or the other");
            }
            if (!(c.requestsPerSecond >= 0) || c.requestsPerSecond.isInfinite()) {
                throw new UsageException("--requests-per-second must be 0 or more, not " + c.requestsPerSecond);
            }
            requests = RequestRate.given(c.requestsPerSecond);
        } else {
            ProducerBatching runs = ProducerBatching.OF_THE_RUNS;
            if (c.lingerMs != null && (!(c.lingerMs >= 0) || c.lingerMs.isInfinite())) {
                throw new UsageException("--linger-ms must be 0 or more, not " + c.lingerMs);
            }
            positive("--batch-bytes", c.batchBytes);
            positive("--producers", c.producers);
            positive("--partitions", c.partitions);
            ProducerBatching shape = new ProducerBatching(c.lingerMs != null ? c.lingerMs : runs.lingerMs(),
                    c.batchBytes != null ? c.batchBytes : runs.batchBytes(), c.producers != null ? c.producers : runs.producers(),
                    c.partitions != null ? c.partitions : runs.partitions());
            requests = RequestRate.of(shape, messagesPerSecond, c.messageBytes, c.consumerGroups, batching.isEmpty());
        }
        try {
            return new TrafficSpec(produceMBps, c.consumerGroups, c.messageBytes, c.headroom, c.podMaxMillicores, requests);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    private static void positive(String option, Number value) {
        if (value != null && !(value.doubleValue() > 0 && Double.isFinite(value.doubleValue()))) {
            throw new UsageException(option + " must be positive, not " + value);
        }
    }
}
