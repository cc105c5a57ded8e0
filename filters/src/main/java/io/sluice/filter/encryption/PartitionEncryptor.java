package io.sluice.filter.encryption;

import java.util.List;

import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.filter.records.BatchRewriter;
import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReader;

/**
 * Encrypts the records of produced partitions under one KEK, handing out its data keys record by record so no key
 * encrypts more than its quota. One per KEK per Produce request, used on the connection's event loop.
 */
final class PartitionEncryptor {

    // The marker header as a record carries it: key length, key, value length, value (varints of one byte each).
    private static final int MARKER_HEADER_BYTES = 1 + RecordCipher.MARKER_HEADER.length() + 1 + 1;

    private final String kek;
    private final List<DataKeys.DataKey> keys;
    private final int perKey;
    private final boolean withHeaders;
    private final RecordCipher cipher;
    private final int growthPerRecord;
    private int used;

    PartitionEncryptor(String kek, List<DataKeys.DataKey> keys, int perKey, boolean withHeaders, RecordCipher cipher) {
        this.kek = kek;
        this.keys = keys;
        this.perKey = perKey;
        this.withHeaders = withHeaders;
        this.cipher = cipher;
        this.growthPerRecord = RecordCipher.overhead(keys.get(0).wrapped().length, kek) + MARKER_HEADER_BYTES + 8;
    }

    /** For records already checked: within the default limits, counted as they are read. */
    MemoryRecords encrypt(String topic, MemoryRecords records) {
        RecordReader reader = RecordReader.forProduce(RecordLimits.DEFAULTS);
        return encrypt(topic, records, reader.count(records), RecordReader.forProduce(RecordLimits.DEFAULTS));
    }

    /**
     * @param counted the records {@code records} holds, counted by reading them ({@link RecordReader#count}), never a
     *                batch header's claim: the keys were reserved for that many
     * @return the records with every non-null value encrypted; tombstones stay tombstones so compaction still removes keys
     * @throws io.sluice.filter.records.UnreadableRecords when {@code reader} cannot read them
     * @throws UnencryptableRecordException when a record does not fit the encrypted format: the partition must be refused
     */
    MemoryRecords encrypt(String topic, MemoryRecords records, int counted, RecordReader reader) {
        int expected = (int) Math.min(Integer.MAX_VALUE - 16, records.sizeInBytes() + (long) counted * growthPerRecord + 1024);
        return BatchRewriter.rewrite(records, expected, reader, (batch, record) -> {
            if (!record.hasValue()) {
                return null;
            }
            int index = used++ / perKey;
            if (index >= keys.size()) {
                // Never encrypt past a data key's quota: the keys were reserved for the records counted.
                throw new IllegalStateException("more records to encrypt than the " + keys.size() * (long) perKey + " the data keys were reserved for");
            }
            DataKeys.DataKey dataKey = keys.get(index);
            RecordCipher.EncryptedRecord encrypted;
            try {
                encrypted = cipher.encrypt(topic, record.key(), new RecordCipher.Plain(record.value(), record.headers()),
                        dataKey.key(), dataKey.wrapped(), kek, withHeaders);
            } catch (UnencryptableRecordException e) {
                throw new UnencryptableRecordException("record " + (record.offset() - batch.baseOffset()) + " of its batch: " + e.getMessage());
            }
            return new BatchRewriter.Rewritten(encrypted.value(), encrypted.headers());
        });
    }

    /** Records encrypted so far. */
    int encrypted() {
        return used;
    }
}
