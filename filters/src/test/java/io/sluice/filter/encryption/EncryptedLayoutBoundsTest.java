package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import javax.crypto.SecretKey;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every bounded field of the encrypted format refuses a length it cannot hold instead of cutting it to its low bits,
 * and holds exactly its bound: the record that fits still decrypts to what was written.
 */
class EncryptedLayoutBoundsTest {

    private final RecordCipher cipher = new RecordCipher();
    private final SecretKey key = TestDataKeys.newAesKey();
    private final byte[] wrapped = "vault:v1:wrapped-dek".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aHeaderNameOfExactly65535BytesRoundTripsAndOneByteMoreIsRefused() throws Exception {
        String longest = "n".repeat(PlaintextLayout.MAX_NAME_BYTES);
        Header[] fits = { new RecordHeader(longest, bytes("v")) };
        RecordCipher.Plain plain = roundTrip(fits);
        assertThat(plain.headers()[0].key()).isEqualTo(longest);

        Header[] tooLong = { new RecordHeader("a", null), new RecordHeader(longest + "n", bytes("v")) };
        assertThatThrownBy(() -> encrypt(tooLong, true)).isInstanceOf(UnencryptableRecordException.class)
                .hasMessage("header 1: a name of 65536 bytes; the encrypted record format holds at most 65535");
    }

    @Test
    void aNameWhoseUtf8BytesExceedTheBoundIsRefusedThoughItsCharactersDoNot() {
        // 30,000 characters, 90,000 UTF-8 bytes: the field holds bytes.
        Header[] headers = { new RecordHeader("€".repeat(30_000), null) };
        assertThatThrownBy(() -> encrypt(headers, true)).isInstanceOf(UnencryptableRecordException.class).hasMessageContaining("90000 bytes");
    }

    @Test
    void exactly65535HeadersRoundTripAndOneMoreIsRefused() throws Exception {
        Header[] fits = headers(PlaintextLayout.MAX_HEADERS);
        RecordCipher.Plain plain = roundTrip(fits);
        assertThat(plain.headers()).hasSize(PlaintextLayout.MAX_HEADERS);
        assertThat(plain.headers()[PlaintextLayout.MAX_HEADERS - 1].key()).isEqualTo("h65534");

        assertThatThrownBy(() -> encrypt(headers(PlaintextLayout.MAX_HEADERS + 1), true)).isInstanceOf(UnencryptableRecordException.class)
                .hasMessage("65536 headers; with encrypted headers a record holds at most 65535");
    }

    @Test
    void withoutHeaderEncryptionTheHeadersStayInTheKafkaRecordAndAreNotBounded() {
        RecordCipher.EncryptedRecord encrypted = encrypt(headers(PlaintextLayout.MAX_HEADERS + 1), false);
        assertThat(encrypted.headers()).hasSize(PlaintextLayout.MAX_HEADERS + 2);
    }

    @Test
    void aKekNameOrWrappedKeyLongerThanItsFieldIsRefused() {
        String kek = "k".repeat(EncryptedValue.MAX_NAME_BYTES + 1);
        RecordCipher.Plain plain = new RecordCipher.Plain(bytesBuffer("v"), new Header[0]);
        assertThatThrownBy(() -> cipher.encrypt("t", null, plain, key, wrapped, kek, false)).isInstanceOf(UnencryptableRecordException.class)
                .hasMessage("a KEK name of 65536 bytes; the encrypted record format holds at most 65535");
        byte[] hugeWrapped = new byte[EncryptedValue.MAX_NAME_BYTES + 1];
        assertThatThrownBy(() -> cipher.encrypt("t", null, plain, key, hugeWrapped, "kek", false)).isInstanceOf(UnencryptableRecordException.class)
                .hasMessageStartingWith("a wrapped data key of 65536 bytes");
        assertThatThrownBy(() -> RecordCipher.overhead(1, kek)).isInstanceOf(UnencryptableRecordException.class);
    }

    private RecordCipher.Plain roundTrip(Header[] headers) throws Exception {
        RecordCipher.EncryptedRecord encrypted = encrypt(headers, true);
        return cipher.decrypt("t", null, EncryptedValue.parse(encrypted.value()), encrypted.headers(), key);
    }

    private RecordCipher.EncryptedRecord encrypt(Header[] headers, boolean withHeaders) {
        return cipher.encrypt("t", null, new RecordCipher.Plain(bytesBuffer("v"), headers), key, wrapped, "kek", withHeaders);
    }

    private static Header[] headers(int count) {
        Header[] headers = new Header[count];
        for (int i = 0; i < count; i++) {
            headers[i] = new RecordHeader("h" + i, null);
        }
        return headers;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer bytesBuffer(String s) {
        return ByteBuffer.wrap(bytes(s));
    }
}
