package io.sluice.bridge.mqtt;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.bridge.protocol.ClientRequest;

import static org.assertj.core.api.Assertions.assertThat;

/** Where a persistent session's client stands, and what a resume does with each recovered message. */
class DeliveryPositionsTest {

    private static final List<String> P = List.of("/t/*");

    private static DeliveryPositions subscribedAt(long seq) {
        DeliveryPositions positions = new DeliveryPositions();
        positions.subscribed("/t/*", List.of(new ClientRequest.Position("e0", seq)));
        return positions;
    }

    @Test
    void everythingAcknowledgedRecoversFromTheLastMessage() {
        DeliveryPositions positions = subscribedAt(9);
        positions.owed(P, "e0", 10);
        positions.done(P, "e0", 11);
        positions.acknowledged(P, "e0", 10);
        assertThat(positions.marks(true).get("/t/*")).containsExactly(new SessionState.Mark("e0", 11, 11, List.of()));
    }

    @Test
    void theOldestUnacknowledgedDeliveryIsWhereARecoveryStartsAndWhatWasDoneAfterItIsListed() {
        DeliveryPositions positions = subscribedAt(9);
        positions.owed(P, "e0", 10);
        positions.owed(P, "e0", 12);
        positions.done(P, "e0", 13);
        positions.acknowledged(P, "e0", 12);
        assertThat(positions.marks(true).get("/t/*")).containsExactly(new SessionState.Mark("e0", 9, 13, List.of(12L, 13L)));
        // Without the list (a state too large): the same positions, so nothing is lost, only resent.
        assertThat(positions.marks(false).get("/t/*")).containsExactly(new SessionState.Mark("e0", 9, 13, List.of()));
        positions.acknowledged(P, "e0", 10);
        assertThat(positions.marks(true).get("/t/*")).containsExactly(new SessionState.Mark("e0", 13, 13, List.of()));
    }

    @Test
    void aResumeSkipsWhatWasDoneResendsWhatMayHaveBeenSentAndSendsTheRest() {
        DeliveryPositions positions = new DeliveryPositions();
        positions.resume("/t/*", List.of(new SessionState.Mark("e0", 9, 13, List.of(12L))));
        assertThat(positions.recover("/t/*")).containsExactly(new ClientRequest.Position("e0", 9));
        assertThat(positions.resuming("/t/*")).isTrue();
        positions.subscribed("/t/*", List.of(new ClientRequest.Position("e0", 20)));
        assertThat(positions.resuming("/t/*")).isFalse();
        assertThat(positions.verdict("/t/*", "e0", 10)).isEqualTo(DeliveryPositions.Verdict.RESEND);
        assertThat(positions.verdict("/t/*", "e0", 12)).isEqualTo(DeliveryPositions.Verdict.SKIP);
        assertThat(positions.verdict("/t/*", "e0", 13)).isEqualTo(DeliveryPositions.Verdict.RESEND);
        assertThat(positions.verdict("/t/*", "e0", 14)).isEqualTo(DeliveryPositions.Verdict.SEND);
        assertThat(positions.verdict("/t/*", "e0", 13)).isEqualTo(DeliveryPositions.Verdict.SEND);
    }

    @Test
    void aSubscriptionStillWaitingToBeMadeKeepsItsMarksInTheState() {
        DeliveryPositions positions = new DeliveryPositions();
        List<SessionState.Mark> marks = List.of(new SessionState.Mark("e0", 5, 7, List.of()));
        positions.resume("/t/*", marks);
        assertThat(positions.marks(true).get("/t/*")).isEqualTo(marks);
        positions.forget("/t/*");
        assertThat(positions.marks(true)).isEmpty();
    }
}
