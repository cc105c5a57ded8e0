package io.sluice.filter.encryption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import javax.crypto.SecretKey;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

class PartitionDecryptorTest {

    private final RecordCipher cipher = new RecordCipher();
    private final SecretKey key = TestDataKeys.newAesKey();
    private final byte[] wrapped = "wrapped-key-1".getBytes(StandardCharsets.US_ASCII);
    private final List<CompletableFuture<SecretKey>> asked = new ArrayList<>();

    /** Unwraps only when the test says so, like a KMS round trip in flight. */
    private final DataKeys slowKms = TestDataKeys.unwrappedBy(key, wrapped, () -> {
        CompletableFuture<SecretKey> future = new CompletableFuture<>();
        asked.add(future);
        return future;
    });

    @Test
    void aPartitionWaitingForItsKeyIsDecryptedOnceTheKeyArrives() {
        MemoryRecords encrypted = encrypted("t", "a", "b", "c");
        PartitionDecryptor decryptor = new PartitionDecryptor(slowKms, cipher);

        assertThatThrownBy(() -> decryptor.decrypt("t", encrypted)).isInstanceOf(PartitionDecryptor.KeysPending.class);
        // Three records under one data key: the KMS is asked once.
        assertThat(asked).hasSize(1);
        asked.get(0).complete(key);

        assertThat(values(decryptor.decrypt("t", encrypted))).containsExactly("a", "b", "c");
        assertThat(decryptor.decrypted()).isEqualTo(3);
    }

    @Test
    void aKeyThatCannotBeUnwrappedNamesTheFirstRecordThatNeedsIt() {
        MemoryRecords encrypted = encrypted("t", "a", "b");
        PartitionDecryptor decryptor = new PartitionDecryptor(slowKms, cipher);
        assertThatThrownBy(() -> decryptor.decrypt("t", encrypted)).isInstanceOf(PartitionDecryptor.KeysPending.class);
        asked.get(0).completeExceptionally(new DataKeys.UnknownKekException("KEK 'k' is gone", null));

        assertThatThrownBy(() -> decryptor.decrypt("t", encrypted))
                .isInstanceOfSatisfying(PartitionDecryptor.KeyFailure.class, failure -> assertThat(failure.offset).isEqualTo(0))
                .hasMessageContaining("KEK 'k' is gone");
    }

    @Test
    void recordsOfAnotherTopicFailTheirTagInsteadOfDecrypting() {
        MemoryRecords encrypted = encrypted("secure.a", "secret");
        PartitionDecryptor decryptor = new PartitionDecryptor(keysAtHand(), cipher);

        assertThatThrownBy(() -> decryptor.decrypt("secure.b", encrypted)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("authentication tag mismatch at offset 0");
    }

    @Test
    void plaintextRecordsAreLeftAsTheyAre() {
        MemoryRecords plain = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), "v".getBytes()));

        assertThat(new PartitionDecryptor(keysAtHand(), cipher).decrypt("t", plain)).isSameAs(plain);
    }

    @Test
    void underDropAnUndecryptableRecordIsLeftOutAndTheRestDelivered() {
        MemoryRecords records = withBogusSecond(encrypted("t", "a", "b", "c"));
        PartitionDecryptor decryptor = new PartitionDecryptor(keysAtHand(), cipher, true);

        MemoryRecords result = decryptor.decrypt("t", records);

        assertThat(values(result)).containsExactly("a", "c");
        assertThat(offsets(result)).containsExactly(0L, 2L);
        assertThat(decryptor.undecryptable()).singleElement().satisfies(u -> {
            assertThat(u.reason()).isEqualTo(PartitionDecryptor.Reason.TAG);
            assertThat(u.offset()).isEqualTo(1);
        });
    }

    @Test
    void byDefaultAnUndecryptableRecordFailsItsPartition() {
        MemoryRecords records = withBogusSecond(encrypted("t", "a", "b", "c"));

        assertThatThrownBy(() -> new PartitionDecryptor(keysAtHand(), cipher).decrypt("t", records))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offset 1");
    }

    @Test
    void aRecordTheReaderMayNotSeeIsDroppedBeforeDecryptionAndCannotFailThePartition() {
        // key-1's record is bogus, but this reader may only see key-0 and key-2.
        MemoryRecords records = withBogusSecond(encrypted("t", "a", "b", "c"));
        io.sluice.auth.KeyAccess visible = io.sluice.auth.Permissions.builder().keys("t", List.of("key-0", "key-2"), List.of()).build().topic("t").read();
        PartitionDecryptor decryptor = new PartitionDecryptor(keysAtHand(), cipher);

        MemoryRecords result = decryptor.decrypt("t", records, visible);

        assertThat(values(result)).containsExactly("a", "c");
        assertThat(decryptor.hidden()).isEqualTo(1);
        assertThat(decryptor.decrypted()).isEqualTo(2);
    }

    @Test
    void aRefusedKeyUnderDropDropsItsRecordsButAnOutageStillWaits() {
        MemoryRecords encrypted = encrypted("t", "a");
        PartitionDecryptor refused = new PartitionDecryptor(TestDataKeys.unwrappedBy(key, wrapped,
                () -> CompletableFuture.failedFuture(new DataKeys.UnknownKekException("KEK 'k' is gone", null))), cipher, true);
        assertThat(values(refused.decrypt("t", encrypted))).isEmpty();
        assertThat(refused.undecryptable()).singleElement().extracting(PartitionDecryptor.Undecryptable::reason).isEqualTo(PartitionDecryptor.Reason.KEY);

        PartitionDecryptor outage = new PartitionDecryptor(TestDataKeys.unwrappedBy(key, wrapped,
                () -> CompletableFuture.failedFuture(new DataKeys.KeysUnavailableException("KMS down", null))), cipher, true);
        assertThatThrownBy(() -> outage.decrypt("t", encrypted)).isInstanceOf(PartitionDecryptor.KeyFailure.class);
    }

    @Test
    void aVersion1RecordWhoseUnauthenticatedFlagWasSetIsUndecryptableNotACrash() {
        // A value that, read as packed value-and-headers, claims a 2 GiB value.
        byte[] hostile = { 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 'x' };
        SimpleRecord plain = new SimpleRecord("key-0".getBytes(StandardCharsets.UTF_8), hostile);
        MemoryRecords v1 = new PartitionEncryptor("k", List.of(new DataKeys.DataKey(key, wrapped)), Integer.MAX_VALUE, false,
                new RecordCipher(EncryptedValue.VERSION_1, null)).encrypt("t", MemoryRecords.withRecords(Compression.NONE, plain));
        MemoryRecords flagged = withSecondValue(v1, 0, bytes -> bytes[1] |= EncryptedValue.FLAG_HEADERS);

        PartitionDecryptor dropping = new PartitionDecryptor(keysAtHand(), cipher, true);
        assertThat(values(dropping.decrypt("t", flagged))).isEmpty();
        assertThat(dropping.undecryptable()).singleElement().extracting(PartitionDecryptor.Undecryptable::reason).isEqualTo(PartitionDecryptor.Reason.MALFORMED);
        assertThatThrownBy(() -> new PartitionDecryptor(keysAtHand(), cipher).decrypt("t", flagged)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length");
    }

    /** The records with the second one's value replaced by a copy whose IV is changed: it fails its tag. */
    private MemoryRecords withBogusSecond(MemoryRecords records) {
        return withSecondValue(records, 1, bytes -> bytes[bytes.length - 17 - 1] ^= 1);
    }

    private static MemoryRecords withSecondValue(MemoryRecords records, int which, java.util.function.Consumer<byte[]> change) {
        int[] index = { 0 };
        return io.sluice.filter.records.BatchRewriter.rewrite(records, (batch, record) -> {
            if (index[0]++ != which) {
                return null;
            }
            ByteBuffer value = record.value();
            byte[] bytes = new byte[value.remaining()];
            value.duplicate().get(bytes);
            change.accept(bytes);
            return new io.sluice.filter.records.BatchRewriter.Rewritten(ByteBuffer.wrap(bytes), record.headers());
        });
    }

    private static List<Long> offsets(MemoryRecords records) {
        List<Long> offsets = new ArrayList<>();
        records.records().forEach(r -> offsets.add(r.offset()));
        return offsets;
    }

    private DataKeys keysAtHand() {
        return TestDataKeys.atHand(key, wrapped);
    }

    private MemoryRecords encrypted(String topic, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(("key-" + i).getBytes(StandardCharsets.UTF_8), values[i].getBytes(StandardCharsets.UTF_8));
        }
        MemoryRecords plain = MemoryRecords.withRecords(Compression.lz4().build(), records);
        return new PartitionEncryptor("k", List.of(new DataKeys.DataKey(key, wrapped)), Integer.MAX_VALUE, false, cipher).encrypt(topic, plain);
    }

    private static List<String> values(MemoryRecords records) {
        List<String> values = new ArrayList<>();
        for (Record record : records.records()) {
            ByteBuffer value = record.value();
            byte[] bytes = new byte[value.remaining()];
            value.get(bytes);
            values.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return values;
    }
}
