package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import javax.crypto.AEADBadTagException;
import javax.crypto.SecretKey;

import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.filter.records.BatchRewriter;
import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReader;

/**
 * Decrypts the records of fetched partitions in one pass over each: a compressed batch is decompressed once, and a
 * record's data key is looked up as the record is reached. Keys come from the KMS cache; when a partition needs a
 * key that is not unwrapped yet, the pass stops with {@link KeysPending} and is simply run again once the keys are
 * there (rare: the first records of a new data key).
 *
 * <p>One per Fetch response, used on the connection's event loop. The keys it has looked up live as long as it
 * does, so a failed unwrap is retried on the next response rather than remembered.</p>
 */
final class PartitionDecryptor {

    private final DataKeys keys;
    private final RecordCipher cipher;
    private final RecordReader reader;
    private final Map<WrappedKey, CompletableFuture<SecretKey>> looked = new HashMap<>();
    // Consecutive records nearly always share a data key: compare bytes with the last one before hashing.
    private String lastKek;
    private byte[] lastWrapped;
    private CompletableFuture<SecretKey> lastKey;
    private int decrypted;

    PartitionDecryptor(DataKeys keys, RecordCipher cipher) {
        this(keys, cipher, RecordReader.forFetch(RecordLimits.DEFAULTS));
    }

    /** @param reader the response's reader: every partition's records are read within its limits */
    PartitionDecryptor(DataKeys keys, RecordCipher cipher, RecordReader reader) {
        this.keys = keys;
        this.cipher = cipher;
        this.reader = reader;
    }

    /**
     * @return the records with every encrypted value replaced by its plaintext; {@code records} itself when none is encrypted
     * @throws KeysPending              when some data keys of this partition are still being unwrapped
     * @throws KeyFailure               when a data key cannot be unwrapped
     * @throws IllegalArgumentException when a value is malformed or fails its authentication tag
     * @throws io.sluice.filter.records.UnreadableRecords when the records cannot be read within the limits
     */
    MemoryRecords decrypt(String topic, MemoryRecords records) {
        List<CompletableFuture<SecretKey>> pending = new ArrayList<>(0);
        int before = decrypted;
        MemoryRecords result = BatchRewriter.rewrite(records, records.sizeInBytes(), reader, (batch, record) -> {
            if (!record.hasValue() || !RecordCipher.isEncrypted(record.headers())) {
                return null;
            }
            EncryptedValue value = EncryptedValue.parse(record.value());
            CompletableFuture<SecretKey> key = key(value);
            if (!key.isDone()) {
                // Keep scanning, only to ask for every key this partition needs at once.
                if (!pending.contains(key)) {
                    pending.add(key);
                }
                return null;
            }
            if (!pending.isEmpty()) {
                return null;
            }
            if (key.isCompletedExceptionally()) {
                throw new KeyFailure(cause(key), record.offset());
            }
            try {
                RecordCipher.Plain plain = cipher.decrypt(topic, record.key(), value, record.headers(), key.join());
                decrypted++;
                return new BatchRewriter.Rewritten(plain.value(), plain.headers());
            } catch (AEADBadTagException e) {
                throw new IllegalArgumentException("authentication tag mismatch at offset " + record.offset()
                        + " (tampered with, or copied from another topic or key)");
            }
        });
        if (!pending.isEmpty()) {
            decrypted = before;
            throw new KeysPending(CompletableFuture.allOf(pending.stream().map(f -> f.handle((k, e) -> null)).toArray(CompletableFuture[]::new)));
        }
        return result;
    }

    /** Records decrypted so far by this decryptor. */
    int decrypted() {
        return decrypted;
    }

    private CompletableFuture<SecretKey> key(EncryptedValue value) {
        if (lastKey != null && Arrays.equals(lastWrapped, value.wrappedKey()) && lastKek.equals(value.kekName())) {
            return lastKey;
        }
        CompletableFuture<SecretKey> key = looked.computeIfAbsent(new WrappedKey(value.kekName(), ByteBuffer.wrap(value.wrappedKey())),
                k -> keys.forDecryption(value.kekName(), value.wrappedKey()).toCompletableFuture());
        lastKek = value.kekName();
        lastWrapped = value.wrappedKey();
        lastKey = key;
        return key;
    }

    static Throwable cause(CompletableFuture<?> failed) {
        try {
            failed.join();
            return new IllegalStateException("not failed");
        } catch (CompletionException e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    /** A data key as it sits in records: which KEK, and the wrapped bytes. */
    private record WrappedKey(String kek, ByteBuffer wrapped) {
    }

    /** Some data keys are still being unwrapped; {@link #ready} completes (never exceptionally) when all are done. */
    static final class KeysPending extends RuntimeException {
        final CompletableFuture<Void> ready;

        KeysPending(CompletableFuture<Void> ready) {
            super("data keys pending", null, false, false);
            this.ready = ready;
        }
    }

    /** A data key could not be unwrapped; carries the offset of the first record that needed it. */
    static final class KeyFailure extends RuntimeException {
        final long offset;

        KeyFailure(Throwable cause, long offset) {
            super(cause.getMessage(), cause, false, false);
            this.offset = offset;
        }
    }
}
