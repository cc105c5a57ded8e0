package io.sluice.sizing.plan;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The shape-to-requests model: batches/s per producer = min(msgs/s, max(bytes/s / batch.size, partitions × 1000 / linger.ms)). */
class ProducerBatchingTest {

    @Test
    void lingerBoundsTheRequestsWhenBatchesDoNotFill() {
        // The runs' own producer at 40,000 msg/s of 1 KiB: batches of 128 KiB would fill 312 times a second, but
        // linger.ms 1 sends one every millisecond first.
        assertThat(ProducerBatching.OF_THE_RUNS.produceRequestsPerSecond(40_000, 1024)).isCloseTo(1_000, within(1e-9));
        // linger.ms 50: 20 a second.
        assertThat(new ProducerBatching(50, 1 << 20, 1, 1).produceRequestsPerSecond(20_000, 1024)).isCloseTo(20, within(1e-9));
    }

    @Test
    void fullBatchesGoFirstWhenTheyFillWithinLinger() {
        // 20 MB/s in 16 KiB batches: 1,250 full batches a second, more than linger.ms 5's 200.
        assertThat(new ProducerBatching(5, 16_000, 1, 1).produceRequestsPerSecond(20_000, 1_000)).isCloseTo(1_250, within(1e-9));
    }

    @Test
    void neverMoreThanOneRequestPerMessage() {
        // linger.ms 0 would allow 5,000 a second; 100 messages make at most 100 batches.
        assertThat(new ProducerBatching(0, 16_384, 1, 1).produceRequestsPerSecond(100, 1024)).isCloseTo(100, within(1e-9));
        assertThat(new ProducerBatching(0, 16_384, 1, 1).produceRequestsPerSecond(20_000, 1024))
                .isCloseTo(1000 / ProducerBatching.MIN_EFFECTIVE_LINGER_MS, within(1e-9));
    }

    @Test
    void producersAndOpenPartitionsMultiplyTheLingerBound() {
        // 4 producers, each 5,000 msg/s with keys over 8 partitions at linger.ms 10: 8 × 100 = 800 each, 3,200 in all.
        assertThat(new ProducerBatching(10, 1 << 20, 4, 8).produceRequestsPerSecond(20_000, 1024)).isCloseTo(3_200, within(1e-9));
    }

    @Test
    void fetchesAreAsManyAgainPerConsumerGroup() {
        RequestRate rate = RequestRate.of(new ProducerBatching(50, 1 << 20, 1, 1), 20_000, 1024, 2, false);

        assertThat(rate.perSecond()).isCloseTo(20 * 3, within(1e-9));
        assertThat(rate.source()).contains("20 Produce/s + 40 Fetch/s").contains("linger.ms 50");
    }

    @Test
    void badSettingsAreNamed() {
        assertThatThrownBy(() -> new ProducerBatching(-1, 16_384, 1, 1)).hasMessageContaining("linger.ms");
        assertThatThrownBy(() -> new ProducerBatching(1, 0, 1, 1)).hasMessageContaining("batch.size");
        assertThatThrownBy(() -> new ProducerBatching(1, 16_384, 0, 1)).hasMessageContaining("producers");
        assertThatThrownBy(() -> new ProducerBatching(1, 16_384, 1, 0)).hasMessageContaining("partitions");
    }
}
