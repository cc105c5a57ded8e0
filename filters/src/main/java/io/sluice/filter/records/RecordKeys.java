package io.sluice.filter.records;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Predicate;

import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

/** Questions about the keys of produced records (JwtAuth's key permissions, KeyRouting's virtual topics). */
public final class RecordKeys {

    /** A key that was refused; {@code key} is null for a record without a key. */
    public record Refused(ByteBuffer key) {
    }

    private RecordKeys() {
    }

    /**
     * The first record key {@code allowed} refuses, if any; a record without a key is tested as {@code null}.
     * Compressed batches are decompressed to look.
     */
    public static Optional<Refused> firstRefused(MemoryRecords records, Predicate<ByteBuffer> allowed) {
        for (RecordBatch batch : records.batches()) {
            for (Record record : batch) {
                if (!allowed.test(record.key())) {
                    return Optional.of(new Refused(record.key()));
                }
            }
        }
        return Optional.empty();
    }
}
