package io.sluice.bridge.protocol;

import java.util.function.Consumer;

import org.slf4j.Logger;

import io.sluice.logging.RateLimitedByCause;

/**
 * What is done with one record's work that threw unexpectedly, live or in a recovery: a failure that is not
 * {@link PerRecord#contained contained} is rethrown; any other is counted by stage (the
 * {@code sluice_bridge_record_failures_total{stage}} counter) and logged once per cause per interval, and the caller
 * skips the record. One home, so that the live reader and the recoveries treat a failing record alike.
 */
public final class RecordFailures {

    private final RateLimitedByCause log;
    private final Consumer<String> counter;

    /**
     * @param logger  where the rate-limited lines go
     * @param counter counts one failure of the given stage ({@code BridgeMetrics::recordFailed})
     */
    public RecordFailures(Logger logger, Consumer<String> counter) {
        this.log = new RateLimitedByCause(logger);
        this.counter = counter;
    }

    /**
     * A record's work at {@code stage} ({@code decode}, {@code select}, {@code delta}, {@code recovery}) threw: rethrown
     * if fatal, else counted and logged; the caller then goes on without that record.
     */
    public void failed(String stage, Throwable failure) {
        PerRecord.rethrowIfFatal(failure);
        counter.accept(stage);
        log.log(failure, "A record's {} failed; it cost that record only: {}", stage, PerRecord.reason(failure));
    }
}
