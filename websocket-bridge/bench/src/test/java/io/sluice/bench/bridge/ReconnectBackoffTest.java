package io.sluice.bench.bridge;

import java.util.Random;

import org.junit.jupiter.api.Test;

import io.sluice.cli.UsageException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReconnectBackoffTest {

    @Test
    void theFirstRetryIsSpreadOverTheFirstWindowAndLaterOnesDoubleUpToTheMax() {
        ReconnectBackoff backoff = new ReconnectBackoff(1000, 10_000);
        Random random = new Random(7);
        long lowest = Long.MAX_VALUE;
        long highest = 0;
        for (int i = 0; i < 10_000; i++) {
            long first = backoff.delayMillis(1, random);
            lowest = Math.min(lowest, first);
            highest = Math.max(highest, first);
            assertThat(backoff.delayMillis(2, random)).isBetween(1000L, 2000L);
            assertThat(backoff.delayMillis(3, random)).isBetween(2000L, 4000L);
            assertThat(backoff.delayMillis(5, random)).isBetween(8000L, 10_000L);
            assertThat(backoff.delayMillis(40, random)).isEqualTo(10_000L);
        }
        assertThat(lowest).as("spread: some retries come almost at once").isLessThan(50);
        assertThat(highest).as("spread: some wait almost the whole window").isGreaterThan(950).isLessThan(1000);
    }

    @Test
    void withoutAFirstWindowTheFirstRetryIsImmediateAndTheNextStillBacksOff() {
        ReconnectBackoff backoff = new ReconnectBackoff(0, 100);
        Random random = new Random(1);
        assertThat(backoff.delayMillis(1, random)).isZero();
        assertThat(backoff.delayMillis(2, random)).isBetween(1L, 2L);
    }

    @Test
    void aMaxBelowTheFirstWindowIsRefused() {
        assertThatThrownBy(() -> new ReconnectBackoff(1000, 500)).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> new ReconnectBackoff(0, 0)).isInstanceOf(UsageException.class);
    }
}
