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
