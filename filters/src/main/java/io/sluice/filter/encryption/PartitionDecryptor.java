package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import javax.crypto.AEADBadTagException;
import javax.crypto.SecretKey;

import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.auth.KeyAccess;
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
 * does; a refused unwrap is remembered by the KMS cache for its {@code failureTtl}, so that the next responses do not
 * ask the KMS again.</p>
 */
final class PartitionDecryptor {

    private final DataKeys keys;
    private final RecordCipher cipher;
    private final RecordReader reader;
    private final boolean dropUndecryptable;
    private final Map<WrappedKey, CompletableFuture<SecretKey>> looked = new HashMap<>();
    private final List<Undecryptable> undecryptable = new ArrayList<>(0);
    private int hidden;
    // Consecutive records nearly always share a data key: compare bytes with the last one before hashing.
    private String lastKek;
    private byte[] lastWrapped;
    private CompletableFuture<SecretKey> lastKey;
    private int decrypted;

    /** A decryptor for which an undecryptable record fails its partition (the default policy). */
    PartitionDecryptor(DataKeys keys, RecordCipher cipher) {
        this(keys, cipher, false);
    }

    /**
     * @param dropUndecryptable drop a record that cannot be decrypted (malformed, refused key, tag mismatch) and go on,
     *                          rather than fail its partition; never while the KMS is merely unavailable
     */
    PartitionDecryptor(DataKeys keys, RecordCipher cipher, boolean dropUndecryptable) {
        this(keys, cipher, RecordReader.forFetch(RecordLimits.DEFAULTS), dropUndecryptable);
    }

    /** @param reader the response's reader: every partition's records are read within its limits */
    PartitionDecryptor(DataKeys keys, RecordCipher cipher, RecordReader reader, boolean dropUndecryptable) {
        this.keys = keys;
        this.cipher = cipher;
        this.reader = reader;
        this.dropUndecryptable = dropUndecryptable;
    }

    /** {@link #decrypt(String, MemoryRecords, KeyAccess)} for a reader who may see every record. */
    MemoryRecords decrypt(String topic, MemoryRecords records) {
        return decrypt(topic, records, KeyAccess.ALL);
    }

    /**
     * @param visible the records the reader may see at all, by key: encrypted records outside it are dropped before
     *                decryption (the filters nearer the client would drop them anyway), so that they are never
     *                decrypted for this reader and one it could never see cannot fail its partition
     * @return the records with every encrypted value replaced by its plaintext; {@code records} itself when none is encrypted
     * @throws KeysPending              when some data keys of this partition are still being unwrapped
     * @throws KeyFailure               when a data key cannot be unwrapped: always while the KMS is unavailable,
     *                                  otherwise only when undecryptable records are not dropped
     * @throws IllegalArgumentException when a value is malformed or fails its authentication tag, and undecryptable
     *                                  records are not dropped
     * @throws io.sluice.filter.records.UnreadableRecords when the records cannot be read within the limits
     */
    MemoryRecords decrypt(String topic, MemoryRecords records, KeyAccess visible) {
        List<CompletableFuture<SecretKey>> pending = new ArrayList<>(0);
        int before = decrypted;
        int undecryptableBefore = undecryptable.size();
        MemoryRecords result = BatchRewriter.rewrite(records, records.sizeInBytes(), reader, (batch, record) -> {
            if (!record.hasValue() || !RecordCipher.isEncrypted(record.headers())) {
                return null;
            }
            // Each key() is a new view of the record's buffer: taken once, for the access check and the AAD alike.
            ByteBuffer recordKey = record.key();
            if (!visible.all() && !visible.allows(recordKey)) {
                hidden++;
                return BatchRewriter.DROP;
            }
            EncryptedValue value;
            try {
                value = EncryptedValue.parse(record.value());
            } catch (IllegalArgumentException malformed) {
                return undecryptable(Reason.MALFORMED, record.offset(), malformed);
            }
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
                Throwable cause = cause(key);
                if (cause instanceof DataKeys.KeysUnavailableException) {
                    // An outage is not the record's fault: the partition is fetched again instead.
                    throw new KeyFailure(cause, record.offset());
                }
                return undecryptable(Reason.KEY, record.offset(), cause);
            }
            try {
                RecordCipher.Plain plain = cipher.decrypt(topic, recordKey, value, record.headers(), key.join());
                decrypted++;
                return new BatchRewriter.Rewritten(plain.value(), plain.headers());
            } catch (AEADBadTagException e) {
                return undecryptable(Reason.TAG, record.offset(), new IllegalArgumentException("authentication tag mismatch at offset " + record.offset()
                        + " (tampered with, or copied from another topic or key)"));
            } catch (IllegalArgumentException unusable) {
                // A data key of the wrong size, or a v1 value whose unauthenticated headers flag was set.
                return undecryptable(Reason.MALFORMED, record.offset(), new IllegalArgumentException("offset " + record.offset() + ": "
                        + unusable.getMessage()));
            }
        });
        if (!pending.isEmpty()) {
            decrypted = before;
            undecryptable.subList(undecryptableBefore, undecryptable.size()).clear();
            throw new KeysPending(CompletableFuture.allOf(pending.stream().map(f -> f.handle((k, e) -> null)).toArray(CompletableFuture[]::new)));
        }
        return result;
    }

    /** Drops the record, or (the default) fails the partition with {@code why}; either way it is listed. */
    private BatchRewriter.Rewritten undecryptable(Reason reason, long offset, Throwable why) {
        undecryptable.add(new Undecryptable(reason, offset, why.getMessage()));
        if (!dropUndecryptable) {
            throw why instanceof IllegalArgumentException e ? e : new KeyFailure(why, offset);
        }
        return BatchRewriter.DROP;
    }

    /** Records that could not be decrypted so far: dropped, or (the last one) the one that failed its partition. */
    List<Undecryptable> undecryptable() {
        return undecryptable;
    }

    /** Encrypted records dropped unread because the reader may not see their keys. */
    int hidden() {
        return hidden;
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
        } catch (CancellationException e) {
            return e;
        }
    }

    /** Why a record could not be decrypted; the metric's {@code reason} tag. */
    enum Reason {
        /** The value is not a well-formed envelope: truncated, unknown version or flags. */
        MALFORMED,
        /** The KMS refused its wrapped key: unknown KEK, forbidden, or not a ciphertext of that KEK. */
        KEY,
        /** The authentication tag failed: tampered with, or moved to another topic or key. */
        TAG;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A dropped record: why, where, and the detail for the log line. */
    record Undecryptable(Reason reason, long offset, String detail) {
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
