package io.sluice.kms.fakes;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A nanosecond clock that moves only when told, so that age limits are tested without waiting. */
public final class ManualClock implements LongSupplier {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long getAsLong() {
        return nanos.get();
    }

    public void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }
}
