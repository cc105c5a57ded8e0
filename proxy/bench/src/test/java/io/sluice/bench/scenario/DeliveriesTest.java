package io.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class DeliveriesTest {

    @Test
    void anAcknowledgedRecordNeverReceivedIsLostAndOneReceivedTwiceIsADuplicate() {
        Deliveries deliveries = new Deliveries();
        for (int i = 0; i < 5; i++) {
            deliveries.acknowledged(i);
        }
        assertThat(deliveries.received(0)).isTrue();
        assertThat(deliveries.received(1)).isTrue();
        assertThat(deliveries.received(1)).isFalse();
        assertThat(deliveries.received(3)).isTrue();
        // Received without an acknowledgement (the ack was lost with the connection): delivered, neither lost nor duplicate.
        assertThat(deliveries.received(7)).isTrue();

        assertThat(deliveries.acknowledgedCount()).isEqualTo(5);
        assertThat(deliveries.receivedCount()).isEqualTo(5);
        assertThat(deliveries.duplicates()).isEqualTo(1);
        assertThat(deliveries.lost()).isEqualTo(2);
        assertThat(deliveries.allReceived()).isFalse();

        deliveries.received(2);
        deliveries.received(4);
        assertThat(deliveries.lost()).isZero();
        assertThat(deliveries.allReceived()).isTrue();
    }

    @Test
    void cellsAreInTheSeedsUnits() {
        Histogram latency = new Histogram(3);
        for (int us = 1; us <= 1000; us++) {
            latency.recordValue(us * 10L);
        }
        assertThat(KafScaleRun.percentiles(latency)).isEqualTo("5.00 / 9.50 / 9.90 ms");
        assertThat(KafScaleRun.rate(4115, 256)).isEqualTo("4,115 msg/s (1.1 MB/s)");
        assertThat(KafScaleRun.count(2000, 256)).isEqualTo("2,000 x 256 B");
    }

    @Test
    void aRecordCarriesItsSequenceAndSendTime() {
        byte[] value = java.nio.ByteBuffer.allocate(32).putLong(41).putLong(123_456_789L).array();
        assertThat(KafScaleLoad.sequence(value)).isEqualTo(41);
        assertThat(KafScaleLoad.sentNanos(value)).isEqualTo(123_456_789L);
    }
}
