package io.sluice.filter.encryption;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class IvSourceTest {

    @Test
    void ivsOfOneSourceNeverRepeatAndCountUpBehindOnePrefix() {
        IvSource source = new IvSource(new SecureRandom());
        Set<ByteBuffer> seen = new HashSet<>();
        long prefix = ByteBuffer.wrap(source.next()).getLong();
        for (int i = 1; i < 100_000; i++) {
            byte[] iv = source.next();
            assertThat(iv).hasSize(EncryptedValue.IV_BYTES);
            assertThat(ByteBuffer.wrap(iv).getLong()).isEqualTo(prefix);
            assertThat(ByteBuffer.wrap(iv).getInt(8)).isEqualTo(i);
            assertThat(seen.add(ByteBuffer.wrap(iv))).isTrue();
        }
    }

    @Test
    void twoSourcesDrawDifferentPrefixes() {
        SecureRandom random = new SecureRandom();
        long first = ByteBuffer.wrap(new IvSource(random).next()).getLong();
        long second = ByteBuffer.wrap(new IvSource(random).next()).getLong();
        assertThat(first).isNotEqualTo(second);
    }
}
