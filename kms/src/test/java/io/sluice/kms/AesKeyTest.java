package io.sluice.kms;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A KMS's plaintext answer into a key: copied, the answer wiped whatever its length, a wrong length refused. */
class AesKeyTest {

    @Test
    void aKmsPlaintextBecomesAKeyAndIsWipedEvenWhenRefused() {
        byte[] answer = new byte[32];
        answer[0] = 7;
        AesKey key = AesKey.aes256From(answer, "the test KMS's key for k");
        assertThat(key.getEncoded()[0]).isEqualTo((byte) 7);
        assertThat(answer).containsOnly(0);

        byte[] short128 = new byte[16];
        short128[3] = 9;
        assertThatThrownBy(() -> AesKey.aes256From(short128, "the test KMS's key for k")).isExactlyInstanceOf(KmsException.class)
                .hasMessage("the test KMS's key for k is 128 bits, expected 256");
        assertThat(short128).containsOnly(0);
        assertThatThrownBy(() -> AesKey.aes256From(null, "the test KMS's key for k")).hasMessage("the test KMS's key for k is missing, expected 256");
        key.destroy();
        assertThatThrownBy(key::getEncoded).isInstanceOf(IllegalStateException.class);
    }
}
