package io.sluice.bench.bridge;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DeliveryCheckTest {

    private static final long[] OWED = {3, 7, 8, 12};

    @Test
    void everyOwedRecordOnceInOrderIsExact() {
        DeliveryCheck check = DeliveryCheck.of(OWED, new long[] {3, 7, 8, 12});
        assertThat(check).isEqualTo(new DeliveryCheck(4, 4, 0, 0, 0, 0));
        assertThat(check.exact()).isTrue();
    }

    @Test
    void aMissingRecordIsAGap() {
        DeliveryCheck check = DeliveryCheck.of(OWED, new long[] {3, 12});
        assertThat(check.missing()).isEqualTo(2);
        assertThat(check.exact()).isFalse();
    }

    @Test
    void aRecordTwiceIsADuplicateAndGoingBackIsOutOfOrder() {
        DeliveryCheck check = DeliveryCheck.of(OWED, new long[] {3, 7, 8, 7, 8, 12});
        assertThat(check.duplicates()).isEqualTo(2);
        assertThat(check.outOfOrder()).isEqualTo(1);
        assertThat(check.missing()).isZero();
        assertThat(check.exact()).isFalse();
    }

    @Test
    void aRecordNotOwedIsCountedAsUnexpected() {
        DeliveryCheck check = DeliveryCheck.of(OWED, new long[] {2, 3, 7, 8, 12});
        assertThat(check.unexpected()).isEqualTo(1);
        assertThat(check.exact()).isFalse();
    }

    @Test
    void whatAClientIsOwedStartsAfterItsFirstPosition() {
        TopicRecords.KeyRecords records = new TopicRecords.KeyRecords(1, OWED);
        assertThat(records.after(-1)).containsExactly(3, 7, 8, 12);
        assertThat(records.after(7)).containsExactly(8, 12);
        assertThat(records.after(9)).containsExactly(12);
        assertThat(records.after(12)).isEmpty();
        assertThat(records.last()).isEqualTo(12);
    }

    @Test
    void theEpochsPartitionFollowsItsLastDashEvenWhenTheTopicIdHasDashes() {
        assertThat(Epochs.partition("Vb2x-Q_a-3")).isEqualTo(3);
        assertThat(Epochs.partition("abc-12")).isEqualTo(12);
    }
}
