package io.sluice.filter.encryption;

import org.slf4j.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.auth.Untrusted;
import io.sluice.logging.RateLimitedLog;

/**
 * What an operator sees of produce requests the filter refuses: a WARN line at most every
 * {@link RateLimitedLog#DEFAULT_INTERVAL} (with how many were not logged since), and a counter of partitions refused
 * because a record does not fit the encrypted format ({@code sluice.encryption.produce.unencryptable{filter}}). Any
 * client chooses how often it produces such a record, or to a topic whose KEK does not exist; one line per request
 * would let it fill the log.
 *
 * <p>Shared by every connection of one filter definition; thread-safe.</p>
 */
final class ProduceRefusals {

    private final Counter unencryptable;
    private final RateLimitedLog log;

    ProduceRefusals(MeterRegistry registry, String filterName, Logger logger) {
        this.unencryptable = Counter.builder("sluice.encryption.produce.unencryptable")
                .description("produce partitions refused because a record does not fit the encrypted format (too many headers, a header name too long)")
                .tag("filter", filterName).register(registry);
        this.log = new RateLimitedLog(logger);
    }

    /** A partition refused whole for a record the format cannot hold; {@code why} names sizes and bounds, not contents. */
    void unencryptable(String connection, String topic, int partition, String why) {
        unencryptable.increment();
        log.log("{}: refusing produce to {}-{} with INVALID_RECORD: {}", connection, Untrusted.text(topic), partition, why);
    }

    /** A request refused for want of a data key (the KEK does not exist, or the KMS cannot be reached). */
    void noDataKey(String connection, String topic, String why) {
        log.log("{}: refusing produce to {}: {}", connection, Untrusted.text(topic), Untrusted.text(why, Untrusted.MAX_MESSAGE_CHARS));
    }
}
