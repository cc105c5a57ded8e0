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

    // ---- format v2: every envelope byte is authenticated; v1 is still read ----

    /**
     * A version 1 value as the code before format v2 wrote it (checked against that code: it decrypts to the value
     * below), for topic "secure.orders", key "order-1", data key 0x00..0x1f, KEK "kek-secure.orders".
     */
    static final String V1_VECTOR = "010000147661756c743a76313a777261707065642d64656b00116b656b2d7365637572652e6f72646572730102030405060708090a0b0c"
            + "7ec82eba98f59ca47696513a67eb06141438e1800edc87ce9a7f5337";

    @Test
    void aVersion1ValueWrittenByTheOldCodeStillDecrypts() throws Exception {
        EncryptedValue v1 = EncryptedValue.parse(ByteBuffer.wrap(java.util.HexFormat.of().parseHex(V1_VECTOR)));
        assertThat(v1.version()).isEqualTo(1);
        assertThat(v1.kekName()).isEqualTo("kek-secure.orders");

        RecordCipher.Plain plain = cipher.decrypt("secure.orders", buf("order-1"), v1, new Header[0], vectorKey());

        assertThat(string(plain.value())).isEqualTo("{\"total\":42}");
        assertThatThrownBy(() -> cipher.decrypt("secure.other", buf("order-1"), v1, new Header[0], vectorKey())).isInstanceOf(AEADBadTagException.class);
    }

    /**
     * Version 2 values as the code of commit c8c46e9 wrote them (before the encryption path wrote into its output in
     * place, issue 36), for topic "secure.orders", key "order-1", data key 0x00..0x1f, KEK "kek-secure.orders",
     * value {"total":42} and headers trace=t-1 and nul=null: the first with the headers in clear, the second with
     * them inside the ciphertext. Whatever the writing code becomes, these must still decrypt.
     */
    static final String V2_VECTOR = "020000147661756c743a76313a777261707065642d64656b00116b656b2d7365637572652e6f7264657273c2fca8859f03ad96"
            + "00000000bda0c386d8e7dfc1b103c539602368921f083c50a3a1bc336b82f4f2";
    static final String V2_HEADERS_VECTOR = "020100147661756c743a76313a777261707065642d64656b00116b656b2d7365637572652e6f7264657273c2fca8859f03ad96"
            + "0000000178296290bec9d1e8d1fef337fd28499002839487017953d68ace8968fb24a780eddfc097ca4968a4ba0c9df4661c4ed57b7150ebef7aa52b48";

    @Test
    void version2ValuesWrittenByTheEarlierCodeStillDecrypt() throws Exception {
        Header[] clear = { new RecordHeader("trace", bytes("t-1")), new RecordHeader("nul", null) };
        EncryptedValue plainV2 = EncryptedValue.parse(ByteBuffer.wrap(java.util.HexFormat.of().parseHex(V2_VECTOR)));
        Header[] stored = { new RecordHeader(RecordCipher.MARKER_HEADER, new byte[] { 2 }), clear[0], clear[1] };
        RecordCipher.Plain plain = cipher.decrypt("secure.orders", buf("order-1"), plainV2, stored, vectorKey());
        assertThat(string(plain.value())).isEqualTo("{\"total\":42}");
        assertThat(plain.headers()).extracting(Header::key).containsExactly("trace", "nul");

        EncryptedValue packed = EncryptedValue.parse(ByteBuffer.wrap(java.util.HexFormat.of().parseHex(V2_HEADERS_VECTOR)));
        assertThat(packed.headersEncrypted()).isTrue();
        RecordCipher.Plain unpacked = cipher.decrypt("secure.orders", buf("order-1"), packed,
                new Header[] { new RecordHeader(RecordCipher.MARKER_HEADER, new byte[] { 2 }) }, vectorKey());
        assertThat(string(unpacked.value())).isEqualTo("{\"total\":42}");
        assertThat(unpacked.headers()).extracting(Header::key).containsExactly("trace", "nul");
        assertThat(unpacked.headers()[0].value()).isEqualTo(bytes("t-1"));
        assertThat(unpacked.headers()[1].value()).isNull();
        assertThatThrownBy(() -> cipher.decrypt("secure.orders", buf("order-2"), packed, new Header[0], vectorKey())).isInstanceOf(AEADBadTagException.class);
    }

    @Test
    void newRecordsAreVersion2AndCarryAVersion2Marker() {
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("t", buf("k"), new RecordCipher.Plain(buf("v"), new Header[0]), key, wrapped, "kek", false);
        assertThat(encrypted.value().get(0)).isEqualTo((byte) 2);
        assertThat(encrypted.headers()[0].value()).containsExactly(2);
        assertThat(EncryptedValue.parse(encrypted.value()).version()).isEqualTo(2);
    }

    @Test
    void everyEnvelopeFieldOfAVersion2ValueIsAuthenticated() {
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("t", buf("k"), new RecordCipher.Plain(buf("value"), new Header[0]), key, wrapped, "kek-a", false);
        byte[] original = bytes(encrypted.value());
        int wrappedAt = 4;
        int kekAt = wrappedAt + wrapped.length + 2;
        int ivAt = kekAt + "kek-a".length();

        // The data key here unwraps from anything, so only the tag can notice each change.
        assertTampered(original, encrypted.headers(), b -> b[1] ^= EncryptedValue.FLAG_HEADERS);
        assertTampered(original, encrypted.headers(), b -> b[kekAt + 4] = 'b');
        assertTampered(original, encrypted.headers(), b -> b[ivAt] ^= 1);
        assertTampered(original, encrypted.headers(), b -> b[wrappedAt + 3] ^= 1);
        assertTampered(original, encrypted.headers(), b -> b[0] = EncryptedValue.VERSION_1);
    }

    @Test
    void aVersion2ValueWithAnUnknownFlagIsMalformed() {
        RecordCipher.EncryptedRecord encrypted = cipher.encrypt("t", buf("k"), new RecordCipher.Plain(buf("v"), new Header[0]), key, wrapped, "kek", false);
        byte[] bytes = bytes(encrypted.value());
        bytes[1] |= 0x40;
        assertThatThrownBy(() -> EncryptedValue.parse(ByteBuffer.wrap(bytes))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown flags");
    }

    @Test
    void formatVersion1CanStillBeWrittenForARollingUpgradeAndReadsBack() throws Exception {
        RecordCipher v1Writer = new RecordCipher(EncryptedValue.VERSION_1, null);
        RecordCipher.EncryptedRecord encrypted = v1Writer.encrypt("t", buf("k"), new RecordCipher.Plain(buf("old"), new Header[0]), key, wrapped, "kek", false);
        assertThat(encrypted.value().get(0)).isEqualTo((byte) 1);
        assertThat(string(cipher.decrypt("t", buf("k"), EncryptedValue.parse(encrypted.value()), encrypted.headers(), key).value())).isEqualTo("old");
    }

    /**
     * ACCP (AesGcmProvider AUTO on linux-x86_64) and the JDK's AES-GCM read each other's records, so a proxy can switch
     * between them, or run beside one that differs, without a record becoming unreadable; and both refuse a changed one.
     */
    @Test
    void accpAndTheJdkReadEachOthersRecordsAndBothRefuseTamperedOnes() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux")
                && System.getProperty("os.arch").equals("amd64"), "ACCP's native library ships for linux-x86_64 only");
        java.security.Provider accp = AesGcmProvider.AUTO.resolve();
        assertThat(accp).as("AUTO picks ACCP on linux-x86_64").isNotNull();
        assertThat(AesGcmProvider.ACCP.resolve()).isSameAs(accp);
        assertThat(AesGcmProvider.JCE.resolve()).isNull();
        RecordCipher withAccp = new RecordCipher(EncryptedValue.VERSION, accp);
        Header[] headers = { new RecordHeader("trace", bytes("abc")) };
        for (boolean withHeaders : new boolean[] { false, true }) {
            RecordCipher.EncryptedRecord byAccp = withAccp.encrypt("t", buf("k"), new RecordCipher.Plain(buf("from accp"), headers), key, wrapped, "kek", withHeaders);
            RecordCipher.EncryptedRecord byJdk = cipher.encrypt("t", buf("k"), new RecordCipher.Plain(buf("from the jdk"), headers), key, wrapped, "kek", withHeaders);
            assertThat(string(cipher.decrypt("t", buf("k"), EncryptedValue.parse(byAccp.value()), byAccp.headers(), key).value())).isEqualTo("from accp");
            assertThat(string(withAccp.decrypt("t", buf("k"), EncryptedValue.parse(byJdk.value()), byJdk.headers(), key).value())).isEqualTo("from the jdk");

            byte[] tampered = bytes(byJdk.value());
            tampered[tampered.length - 1] ^= 1;
            EncryptedValue parsed = EncryptedValue.parse(ByteBuffer.wrap(tampered));
            assertThatThrownBy(() -> withAccp.decrypt("t", buf("k"), parsed, byJdk.headers(), key)).isInstanceOf(AEADBadTagException.class);
            assertThatThrownBy(() -> withAccp.decrypt("other", buf("k"), EncryptedValue.parse(byAccp.value()), byAccp.headers(), key))
                    .as("bound to its topic").isInstanceOf(AEADBadTagException.class);
        }
    }

    private void assertTampered(byte[] original, Header[] headers, java.util.function.Consumer<byte[]> change) {
        byte[] tampered = original.clone();
        change.accept(tampered);
        EncryptedValue parsed = EncryptedValue.parse(ByteBuffer.wrap(tampered));
        assertThatThrownBy(() -> cipher.decrypt("t", buf("k"), parsed, headers, key)).isInstanceOf(AEADBadTagException.class);
    }

    private static SecretKey vectorKey() {
        byte[] material = new byte[32];
        for (int i = 0; i < material.length; i++) {
            material[i] = (byte) i;
        }
        return new javax.crypto.spec.SecretKeySpec(material, "AES");
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
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
