package io.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenBucketTest {

    private static final long MS = 1_000_000L;

    @Test
    void aBurstIsTakenAtOnceAndThenTokensComeAtTheRate() {
        TokenBucket bucket = new TokenBucket(50, 3, 0);
        assertThat(bucket.take(0)).isZero();
        assertThat(bucket.take(0)).isZero();
        assertThat(bucket.take(0)).isZero();
        assertThat(bucket.take(0)).as("a token every 20 ms").isEqualTo(20);
        assertThat(bucket.take(20 * MS)).isZero();
    }

    @Test
    void theAdvisedWaitIsRoundedUpSoThatWaitingExactlyThatLongSucceeds() {
        TokenBucket bucket = new TokenBucket(50, 1, 0);
        assertThat(bucket.take(0)).isZero();
        // 1.9 ms short of the next token: advising 1 ms would send the client back too early.
        long advised = bucket.take(18 * MS + MS / 10);
        assertThat(advised).isEqualTo(2);
        assertThat(bucket.take(18 * MS + MS / 10 + advised * MS)).isZero();
    }

    @Test
    void aWaitOfLessThanAMillisecondIsAdvisedAsOne() {
        TokenBucket bucket = new TokenBucket(50, 1, 0);
        assertThat(bucket.take(0)).isZero();
        assertThat(bucket.take(20 * MS - 1)).isEqualTo(1);
        assertThat(bucket.take(20 * MS)).isZero();
    }

    @Test
    void tokensDoNotAccumulateBeyondTheBurst() {
        TokenBucket bucket = new TokenBucket(50, 2, 0);
        long later = 10_000 * MS;
        assertThat(bucket.take(later)).isZero();
        assertThat(bucket.take(later)).isZero();
        assertThat(bucket.take(later)).isEqualTo(20);
    }
}
