package io.sluice.filter.quota;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WindowedRateTest {

    private static final long MS = 1_000_000L;
    private static final long S = 1_000 * MS;

    @Test
    void aNewRateIsMeasuredOverOneWindowAtLeastAndOverWhatHasPassedUpToTheFullSpan() {
        WindowedRate rate = new WindowedRate(S, 11);
        rate.record(1000, 0);
        assertThat(rate.rate(0)).as("one window, not ten: no start-up burst").isEqualTo(1000.0);
        assertThat(rate.rate(500 * MS)).isCloseTo(1000 / 1.5, within(1e-9));
        assertThat(rate.rate(3 * S)).isEqualTo(250.0);
        // Past the full span (10 whole windows before the current one + what has passed of it), the span stops growing.
        assertThat(rate.rate(10 * S + 500 * MS)).isCloseTo(1000 / 10.5, within(1e-9));
        assertThat(rate.rate(8 * S + 500 * MS)).as("still growing with the time passed").isCloseTo(1000 / 9.5, within(1e-9));
    }

    @Test
    void theThrottleIsTheTimeAfterWhichTheRateIsBackAtTheLimit() {
        WindowedRate rate = new WindowedRate(S, 11);
        rate.record(1000, 0);
        assertThat(rate.throttleNanos(1000, 0)).as("at the limit").isZero();
        rate.record(500, 0);
        // 1500 bytes over 1 s at 500/s: 3 s worth, 1 s of which has been accounted for.
        assertThat(rate.throttleNanos(500, 0)).isEqualTo(2 * S);
        assertThat(rate.throttleNanos(500, 2 * S)).as("after waiting it out").isZero();
        assertThat(rate.rate(2 * S)).isEqualTo(500.0);
    }

    @Test
    void theThrottleIsCappedAtTheWholeWindow() {
        WindowedRate rate = new WindowedRate(100 * MS, 5);
        rate.record(1e9, 0);
        assertThat(rate.throttleNanos(1, 0)).isEqualTo(500 * MS);
    }

    @Test
    void samplesLeaveTheWindowAndAnIdleRateStartsAfreshOnOneWindow() {
        WindowedRate rate = new WindowedRate(S, 11);
        rate.record(1000, 0);
        rate.record(1000, 5 * S);
        assertThat(rate.idle(10 * S)).isFalse();
        assertThat(rate.rate(11 * S)).as("the first sample has left").isCloseTo(1000 / 10.0, within(1e-9));
        assertThat(rate.rate(10 * S + 500 * MS)).as("both in, over the full span").isCloseTo(2000 / 10.5, within(1e-9));
        assertThat(rate.idle(16 * S)).isTrue();
        assertThat(rate.rate(16 * S)).isZero();

        rate.record(300, 20 * S);
        assertThat(rate.rate(20 * S)).as("measured over one window again, not over the 20 s since the first record").isEqualTo(300.0);
    }

    @Test
    void aSteadySenderUnderTheLimitIsNeverThrottledAndOneAboveItIsHeldToIt() {
        WindowedRate rate = new WindowedRate(100 * MS, 11);
        long now = 0;
        for (int i = 0; i < 300; i++, now += 10 * MS) {
            rate.record(9, now);
            assertThat(rate.throttleNanos(1000, now)).as("at %d ms", now / MS).isZero();
        }
        // Twice the limit, each send waiting out the throttle it is given: over 10 s it is held to the limit.
        WindowedRate flood = new WindowedRate(100 * MS, 11);
        long sent = 0;
        now = 0;
        while (now < 10 * S) {
            flood.record(100, now);
            sent += 100;
            now += Math.max(50 * MS, flood.throttleNanos(1000, now));
        }
        assertThat(sent / 10.0).isCloseTo(1000, within(1000 * 0.05));
    }
}
