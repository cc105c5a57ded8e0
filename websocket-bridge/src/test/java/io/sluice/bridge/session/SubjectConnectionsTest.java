package io.sluice.bridge.session;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SubjectConnectionsTest {

    @Test
    void aSubjectGetsAtMostMaxPlacesAndEachReleaseGivesOneBack() {
        SubjectConnections subjects = new SubjectConnections(2);
        assertThat(subjects.acquire("ivy")).isTrue();
        assertThat(subjects.acquire("ivy")).isTrue();
        assertThat(subjects.acquire("ivy")).isFalse();
        assertThat(subjects.acquire("bob")).isTrue();
        assertThat(subjects.held("ivy")).isEqualTo(2);

        subjects.release("ivy");
        assertThat(subjects.acquire("ivy")).isTrue();
        assertThat(subjects.acquire("ivy")).isFalse();
    }

    @Test
    void aSubjectWhoseLastSessionEndedIsForgotten() {
        SubjectConnections subjects = new SubjectConnections(3);
        for (int i = 0; i < 1000; i++) {
            String subject = "user-" + i;
            subjects.acquire(subject);
            subjects.release(subject);
            // A release without a place (a bug elsewhere) must not make room beyond max.
            subjects.release(subject);
        }
        assertThat(subjects.tracked()).isZero();
    }

    @Test
    void zeroMeansNoLimitAndNothingTracked() {
        SubjectConnections subjects = new SubjectConnections(0);
        for (int i = 0; i < 100; i++) {
            assertThat(subjects.acquire("shared")).isTrue();
        }
        assertThat(subjects.tracked()).isZero();
    }
}
