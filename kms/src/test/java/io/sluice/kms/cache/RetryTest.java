package io.sluice.kms.cache;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.fakes.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0, 0.5, 0.999999})
    void delaysGrowExponentiallyWithinTheirBounds(double random) {
        RetryPolicy policy = new RetryPolicy(20, Duration.ofMillis(100), Duration.ofSeconds(3), null);
        Backoff backoff = new Backoff(policy, () -> random);
        long expectedBound = Duration.ofMillis(100).toNanos();
        for (int failures = 1; failures <= 20; failures++) {
            long bound = backoff.boundNanos(failures);
            assertThat(bound).isEqualTo(Math.min(expectedBound, Duration.ofSeconds(3).toNanos()));
            assertThat(backoff.delayNanos(failures)).isBetween(bound / 2, bound);
            expectedBound = Math.min(expectedBound * 2, Duration.ofSeconds(3).toNanos());
        }
    }

    @Test
    void boundNeverOverflows() {
        Backoff backoff = new Backoff(new RetryPolicy(100, Duration.ofDays(1), Duration.ofDays(365), null), () -> 0.5);
        assertThat(backoff.boundNanos(100)).isEqualTo(Duration.ofDays(365).toNanos());
        assertThat(backoff.boundNanos(64)).isEqualTo(Duration.ofDays(365).toNanos());
    }

    @Test
    void unavailableIsRetriedUpToMaxAttemptsThenReportedAsIs() {
        Failing kms = new Failing(() -> new KmsUnavailableException("down"), Integer.MAX_VALUE);
        Kms retrying = retrying(kms, new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(4), Duration.ofMinutes(1)), System::nanoTime);

        assertThatThrownBy(() -> retrying.unwrap(new WrappedKey("k", new byte[]{ 1 })).toCompletableFuture().join())
                .hasCauseInstanceOf(KmsUnavailableException.class);
        assertThat(kms.calls).hasValue(4);
        assertThat(registry.get(RetryingKms.RETRIES).tag("operation", "unwrap").counter().count()).isEqualTo(3);
    }

    @Test
    void transientFailuresAreRetriedAway() {
        Failing kms = new Failing(() -> new KmsUnavailableException("down"), 2);
        Kms retrying = retrying(kms, new RetryPolicy(5, Duration.ofMillis(1), Duration.ofMillis(4), Duration.ofMinutes(1)), System::nanoTime);

        assertThat(retrying.resolveKek("k").toCompletableFuture().join()).isEqualTo(new KekRef("k", 1));
        assertThat(kms.calls).hasValue(3);
    }

    @Test
    void forbiddenAndUnknownAreNeverRetried() {
        RetryPolicy policy = new RetryPolicy(5, Duration.ofMillis(1), Duration.ofMillis(4), Duration.ofMinutes(1));
        Failing forbidden = new Failing(() -> new KmsForbiddenException("permission denied"), Integer.MAX_VALUE);
        assertThatThrownBy(() -> retrying(forbidden, policy, System::nanoTime).resolveKek("k").toCompletableFuture().join())
                .hasCauseInstanceOf(KmsForbiddenException.class);
        assertThat(forbidden.calls).hasValue(1);

        Failing unknown = new Failing(() -> new UnknownKeyException("no such key"), Integer.MAX_VALUE);
        assertThatThrownBy(() -> retrying(unknown, policy, System::nanoTime).resolveKek("k").toCompletableFuture().join())
                .hasCauseInstanceOf(UnknownKeyException.class);
        assertThat(unknown.calls).hasValue(1);

        Failing other = new Failing(() -> new KmsException("invalid ciphertext"), Integer.MAX_VALUE);
        assertThatThrownBy(() -> retrying(other, policy, System::nanoTime).resolveKek("k").toCompletableFuture().join())
                .hasCauseInstanceOf(KmsException.class);
        assertThat(other.calls).hasValue(1);
    }

    @Test
    void noAttemptStartsPastMaxElapsed() {
        ManualClock clock = new ManualClock();
        // Each call takes one second of (manual) time; the budget allows the third to start, not the fourth.
        Failing kms = new Failing(() -> {
            clock.advance(Duration.ofSeconds(1));
            return new KmsUnavailableException("down");
        }, Integer.MAX_VALUE);
        Kms retrying = retrying(kms, new RetryPolicy(100, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMillis(2500)), clock);

        assertThatThrownBy(() -> retrying.resolveKek("k").toCompletableFuture().join()).hasCauseInstanceOf(KmsUnavailableException.class);
        assertThat(kms.calls).hasValue(3);
    }

    @Test
    void aThrowingProviderCountsAsAFailedCall() {
        Kms throwing = new Failing(null, 0) {
            @Override
            public CompletionStage<KekRef> resolveKek(String name) {
                calls.incrementAndGet();
                throw new KmsUnavailableException("thrown, not returned");
            }
        };
        Kms retrying = retrying(throwing, new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofMinutes(1)), System::nanoTime);
        assertThatThrownBy(() -> retrying.resolveKek("k").toCompletableFuture().join()).hasCauseInstanceOf(KmsUnavailableException.class);
        assertThat(((Failing) throwing).calls).hasValue(2);
    }

    private Kms retrying(Kms kms, RetryPolicy policy, java.util.function.LongSupplier clock) {
        return new RetryingKms(kms, policy, timer, registry, clock, () -> 0.5);
    }

    /** Fails its first {@code failures} calls with the given exception, then answers. */
    private static class Failing implements Kms {
        final AtomicInteger calls = new AtomicInteger();
        private final java.util.function.Supplier<KmsException> exception;
        private final int failures;

        Failing(java.util.function.Supplier<KmsException> exception, int failures) {
            this.exception = exception;
            this.failures = failures;
        }

        private <T> CompletionStage<T> answer(T value) {
            return calls.incrementAndGet() <= failures ? CompletableFuture.failedFuture(exception.get()) : CompletableFuture.completedFuture(value);
        }

        @Override
        public CompletionStage<KekRef> resolveKek(String name) {
            return answer(new KekRef(name, 1));
        }

        @Override
        public CompletionStage<DataKey> generateDataKey(KekRef kek) {
            return answer(null);
        }

        @Override
        public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
            return answer(null);
        }
    }
}
