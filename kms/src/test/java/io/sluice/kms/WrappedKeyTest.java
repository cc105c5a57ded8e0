package io.sluice.kms;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WrappedKeyTest {

    @Test
    void bytesRoundTrip() {
        WrappedKey wrapped = new WrappedKey("kek-örders", "vault:v3:abc=".getBytes(StandardCharsets.US_ASCII));
        WrappedKey parsed = WrappedKey.parse(wrapped.toBytes());
        assertThat(parsed).isEqualTo(wrapped).hasSameHashCodeAs(wrapped);
        assertThat(parsed.kekName()).isEqualTo("kek-örders");
        assertThat(parsed.ciphertextText()).isEqualTo("vault:v3:abc=");
    }

    @Test
    void differentNameOrCiphertextIsADifferentKey() {
        byte[] ct = {1, 2, 3};
        assertThat(new WrappedKey("a", ct)).isNotEqualTo(new WrappedKey("b", ct));
        assertThat(new WrappedKey("a", ct)).isNotEqualTo(new WrappedKey("a", new byte[]{1, 2, 4}));
    }

    @Test
    void garbageIsNotAWrappedKey() {
        assertThatThrownBy(() -> WrappedKey.parse(new byte[]{9, 0, 1, 65, 66})).isInstanceOf(KmsException.class);
        assertThatThrownBy(() -> WrappedKey.parse(new byte[]{1, 0, 5, 65, 66})).isInstanceOf(KmsException.class);
        assertThatThrownBy(() -> WrappedKey.parse(new byte[0])).isInstanceOf(KmsException.class);
    }

    @Test
    void toStringShowsNoCiphertext() {
        assertThat(new WrappedKey("kek", "vault:v1:SECRETISH".getBytes(StandardCharsets.US_ASCII)).toString())
                .doesNotContain("SECRETISH").contains("kek");
    }

    @Test
    void aesKeyWorksWithTheJdkCiphersAndIsWipedOnDestroy() throws Exception {
        byte[] material = new byte[32];
        material[0] = 42;
        AesKey key = AesKey.copyOf(material);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, new byte[12]));
        assertThat(cipher.doFinal(new byte[]{1})).hasSize(17);
        assertThat(key.toString()).isEqualTo("AesKey[256 bits]");

        key.destroy();

        assertThat(key.isDestroyed()).isTrue();
        assertThatThrownBy(key::getEncoded).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, new byte[12])))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void kmsExceptionIsFoundThroughCompletionWrappers() {
        KmsUnavailableException cause = new KmsUnavailableException("down");
        assertThat(KmsException.find(new CompletionException(cause))).containsSame(cause);
        assertThat(KmsException.find(new IllegalStateException(cause))).isEmpty();
        assertThat(cause.isRetriable()).isTrue();
        assertThat(new KmsForbiddenException("no").isRetriable()).isFalse();
    }
}
