package io.sluice.bridge.recovery;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.bridge.config.RecoveryConfig;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/** The cache answers only when it holds every message asked for; otherwise the caller must read Kafka. */
class RecoveryCacheTest {

    private final MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);

    private EncodedMessage message(String endpoint, long seq) {
        return encoder.message(endpoint, "e-0", 0, seq, 0, ("v" + seq).getBytes(StandardCharsets.UTF_8));
    }

    private static List<Long> seqs(List<EncodedMessage> messages) {
        List<Long> seqs = messages.stream().map(EncodedMessage::seq).toList();
        messages.forEach(EncodedMessage::release);
        return seqs;
    }

    @Test
    void answersFromTheReaderStartAndNotBefore() {
        RecoveryCache cache = new RecoveryCache(new RecoveryConfig(10, Duration.ofMinutes(1), 100, 1000, 1, Duration.ofSeconds(5)));
        cache.started("e-0", 100);
        cache.append(message("/t/a", 100), 0);
        cache.append(message("/t/b", 101), 0);
        cache.append(message("/t/a", 102), 0);
        assertThat(seqs(cache.exact("/t/a", "e-0", 99, 102))).containsExactly(100L, 102L);
        assertThat(seqs(cache.exact("/t/a", "e-0", 100, 101))).isEmpty();
        assertThat(seqs(cache.prefix("/t/", "e-0", 99, 102))).containsExactly(100L, 101L, 102L);
        assertThat(cache.exact("/t/a", "e-0", 98, 102)).as("offset 99 was never read by this node").isNull();
        assertThat(cache.exact("/t/a", "other-epoch", 99, 102)).isNull();
        cache.clear();
    }

    @Test
    void evictionOfABusyKeyKeepsAQuietKeyRecoverableButNotThePrefix() {
        RecoveryCache cache = new RecoveryCache(new RecoveryConfig(2, Duration.ofMinutes(1), 100, 1000, 1, Duration.ofSeconds(5)));
        cache.started("e-0", 0);
        cache.append(message("/t/quiet", 0), 0);
        for (long seq = 1; seq <= 5; seq++) {
            cache.append(message("/t/busy", seq), 0);
        }
        assertThat(seqs(cache.exact("/t/quiet", "e-0", -1, 5))).containsExactly(0L);
        assertThat(cache.exact("/t/busy", "e-0", 2, 5)).as("offset 3 was evicted").isNull();
        assertThat(seqs(cache.exact("/t/busy", "e-0", 3, 5))).containsExactly(4L, 5L);
        assertThat(cache.prefix("/t/", "e-0", -1, 5)).isNull();
        cache.clear();
    }

    @Test
    void droppedEndpointsAndExpiredMessagesRaiseTheFloor() {
        RecoveryCache cache = new RecoveryCache(new RecoveryConfig(10, Duration.ofSeconds(1), 2, 1000, 1, Duration.ofSeconds(5)));
        cache.started("e-0", 0);
        cache.append(message("/t/a", 0), 0);
        cache.append(message("/t/b", 1), 0);
        cache.append(message("/t/c", 2), 0);
        assertThat(cache.endpointCount()).isEqualTo(2);
        assertThat(cache.exact("/t/a", "e-0", -1, 2)).as("/t/a was dropped").isNull();
        assertThat(seqs(cache.exact("/t/c", "e-0", 0, 2))).containsExactly(2L);
        cache.expire(Duration.ofSeconds(2).toNanos());
        assertThat(cache.endpointCount()).isZero();
        assertThat(cache.exact("/t/c", "e-0", 1, 3)).isNull();
        assertThat(seqs(cache.exact("/t/c", "e-0", 2, 3))).isEmpty();
    }
}
