package io.sluice.bridge.mqtt;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The per-subject and per-cluster bounds on persistent sessions, as CONNECTs reserve and the reader applies. */
class SessionIndexTest {

    private static final int PER_SUBJECT = 3;
    private static final int IN_ALL = 5;

    private static SessionIndex.Entry entry(long offset) {
        return new SessionIndex.Entry(offset, 1, "node/x", true, Long.MAX_VALUE);
    }

    @Test
    void aSessionReadBackIsCountedOnceBeforeItsConnectionReleasesItsPlace() {
        SessionIndex index = new SessionIndex();
        for (int i = 0; i < PER_SUBJECT; i++) {
            SessionKey key = new SessionKey("flooder", "c" + i);
            assertThat(index.reserve(key, PER_SUBJECT, IN_ALL)).as("session %d", i).isNull();
            // The reader applies the first record; the connection's release runs later, on its event loop.
            index.apply(key, entry(i));
        }
        assertThat(index.reserve(new SessionKey("flooder", "c3"), PER_SUBJECT, IN_ALL)).contains("maxPerSubject (3)");
        // The late releases change nothing: the sessions exist.
        for (int i = 0; i < PER_SUBJECT; i++) {
            index.release(new SessionKey("flooder", "c" + i));
        }
        assertThat(index.reserve(new SessionKey("flooder", "c3"), PER_SUBJECT, IN_ALL)).contains("maxPerSubject (3)");
        assertThat(index.reserve(new SessionKey("other", "c0"), PER_SUBJECT, IN_ALL)).isNull();
    }

    @Test
    void aPlaceNeverWrittenIsGivenBackAndATombstoneFreesOne() {
        SessionIndex index = new SessionIndex();
        SessionKey a = new SessionKey("s", "a");
        SessionKey b = new SessionKey("s", "b");
        SessionKey c = new SessionKey("s", "c");
        assertThat(index.reserve(a, PER_SUBJECT, IN_ALL)).isNull();
        assertThat(index.reserve(b, PER_SUBJECT, IN_ALL)).isNull();
        assertThat(index.reserve(c, PER_SUBJECT, IN_ALL)).isNull();
        assertThat(index.reserve(new SessionKey("s", "d"), PER_SUBJECT, IN_ALL)).isNotNull();
        index.release(c);
        index.release(c);
        assertThat(index.reserve(new SessionKey("s", "d"), PER_SUBJECT, IN_ALL)).isNull();
        index.apply(a, entry(1));
        index.apply(a, null);
        assertThat(index.size()).isZero();
        assertThat(index.reserve(new SessionKey("s", "e"), PER_SUBJECT, IN_ALL)).isNull();
        assertThat(index.reserve(new SessionKey("s", "f"), PER_SUBJECT, IN_ALL)).isNotNull();
    }

    @Test
    void theClusterBoundCountsEverySubject() {
        SessionIndex index = new SessionIndex();
        for (int i = 0; i < IN_ALL; i++) {
            SessionKey key = new SessionKey("subject-" + i, "c");
            assertThat(index.reserve(key, PER_SUBJECT, IN_ALL)).isNull();
            index.apply(key, entry(i));
        }
        assertThat(index.reserve(new SessionKey("subject-x", "c"), PER_SUBJECT, IN_ALL)).contains("maxSessions (5)");
    }
}
