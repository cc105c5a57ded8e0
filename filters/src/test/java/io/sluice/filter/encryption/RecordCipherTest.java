package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import javax.crypto.AEADBadTagException;
import javax.crypto.SecretKey;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordCipherTest {

    private final RecordCipher cipher = new RecordCipher();
    private final SecretKey key = TestDataKeys.newAesKey();
    private final byte[] wrapped = "vault:v1:wrapped-dek".getBytes(StandardCharsets.US_ASCII);

    @Test
    void roundTripKeepsValueAndHeadersAndCarriesTheWrappedKey() throws Exception {
        Header[] headers = { new RecordHeader("trace", bytes("abc")) };
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("secure.orders", buf("order-1"), new RecordCipher.Plain(buf("{\"total\":42}"), headers),
                key, wrapped, "kek-secure.orders", false);

        assertThat(RecordCipher.isEncrypted(encrypted.headers())).isTrue();
        assertThat(new String(encrypted.value().array(), StandardCharsets.ISO_8859_1)).doesNotContain("total");
        EncryptedValue parsed = EncryptedValue.parse(encrypted.value());
        assertThat(parsed.wrappedKey()).isEqualTo(wrapped);
        assertThat(parsed.kekName()).isEqualTo("kek-secure.orders");

        RecordCipher.Plain plain = cipher.decrypt("secure.orders", buf("order-1"), parsed, encrypted.headers(), key);
        assertThat(string(plain.value())).isEqualTo("{\"total\":42}");
        assertThat(plain.headers()).extracting(Header::key).containsExactly("trace");
    }

    @Test
    void headersCanBeEncryptedTooAndThenOnlyTheMarkerIsVisible() throws Exception {
        Header[] headers = { new RecordHeader("customer-email", bytes("a@example.com")), new RecordHeader("empty", null) };
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("t", null, new RecordCipher.Plain(buf("v"), headers), key, wrapped, "k", true);
        assertThat(encrypted.headers()).extracting(Header::key).containsExactly(RecordCipher.MARKER_HEADER);

        RecordCipher.Plain plain = cipher.decrypt("t", null, EncryptedValue.parse(encrypted.value()), encrypted.headers(), key);
        assertThat(plain.headers()).extracting(Header::key).containsExactly("customer-email", "empty");
        assertThat(plain.headers()[0].value()).isEqualTo(bytes("a@example.com"));
        assertThat(plain.headers()[1].value()).isNull();
    }

    @Test
    void ciphertextIsBoundToItsTopicAndKey() {
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("a", buf("k"), new RecordCipher.Plain(buf("v"), new Header[0]), key, wrapped, "kek", false);
        EncryptedValue parsed = EncryptedValue.parse(encrypted.value());
        assertThatThrownBy(() -> cipher.decrypt("b", buf("k"), parsed, encrypted.headers(), key)).isInstanceOf(AEADBadTagException.class);
        assertThatThrownBy(() -> cipher.decrypt("a", buf("other"), parsed, encrypted.headers(), key)).isInstanceOf(AEADBadTagException.class);
        assertThatThrownBy(() -> cipher.decrypt("a", null, parsed, encrypted.headers(), key)).isInstanceOf(AEADBadTagException.class);
        assertThatThrownBy(() -> cipher.decrypt("a", buf("k"), parsed, encrypted.headers(), TestDataKeys.newAesKey())).isInstanceOf(AEADBadTagException.class);
    }

    @Test
    void valuesInDirectBuffersRoundTripAsWell() throws Exception {
        // The proxy decodes requests and responses in place, so record values are views into Netty's direct buffers.
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("t", buf("k"), new RecordCipher.Plain(direct("a value from the wire"), new Header[0]),
                key, wrapped, "kek", false);
        ByteBuffer ciphertext = direct(encrypted.value());

        RecordCipher.Plain plain = cipher.decrypt("t", buf("k"), EncryptedValue.parse(ciphertext), encrypted.headers(), key);

        assertThat(string(plain.value())).isEqualTo("a value from the wire");
    }

    private static ByteBuffer direct(String s) {
        return direct(buf(s));
    }

    private static ByteBuffer direct(ByteBuffer heap) {
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.remaining());
        direct.put(heap.duplicate()).flip();
        return direct;
    }

    @Test
    void tamperedCiphertextFailsTheTag() {
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("a", buf("k"), new RecordCipher.Plain(buf("value"), new Header[0]), key, wrapped, "kek", false);
        ByteBuffer tampered = encrypted.value().duplicate();
        byte[] bytes = new byte[tampered.remaining()];
        tampered.get(bytes);
        bytes[bytes.length - 20] ^= 1;
        EncryptedValue parsed = EncryptedValue.parse(ByteBuffer.wrap(bytes));
        assertThatThrownBy(() -> cipher.decrypt("a", buf("k"), parsed, encrypted.headers(), key)).isInstanceOf(AEADBadTagException.class);
    }

    @Test
    void everyRecordGetsAFreshIv() {
        RecordCipher.Plain plain = new RecordCipher.Plain(buf("same"), new Header[0]);
        EncryptedValue first = EncryptedValue.parse(cipher.encrypt("a", null, plain, key, wrapped, "kek", false).value());
        EncryptedValue second = EncryptedValue.parse(cipher.encrypt("a", null, plain, key, wrapped, "kek", false).value());
        assertThat(first.iv()).isNotEqualTo(second.iv());
        assertThat(first.ciphertext()).isNotEqualTo(second.ciphertext());
    }

    @Test
    void malformedValuesAreRejectedWithTheReason() {
        assertThatThrownBy(() -> EncryptedValue.parse(ByteBuffer.wrap(new byte[] { 9 }))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version 9");
        assertThatThrownBy(() -> EncryptedValue.parse(ByteBuffer.wrap(new byte[] { 1, 0, 0, 50 }))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
    }

    private static ByteBuffer buf(String s) {
        return ByteBuffer.wrap(bytes(s));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }
}
