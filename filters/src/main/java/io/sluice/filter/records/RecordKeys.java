package io.sluice.filter.records;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.function.Predicate;

import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;

/** Questions about the keys of produced records (JwtAuth's key permissions, KeyRouting's virtual topics). */
public final class RecordKeys {

    /** A key that was refused; {@code key} is null for a record without a key. */
    public record Refused(ByteBuffer key) {
    }

    private RecordKeys() {
    }

    /**
     * The first record key {@code allowed} refuses, if any; a record without a key is tested as {@code null}.
     * Compressed batches are decompressed to look, within the reader's limits.
     *
     * @param reader a {@link RecordReader#forProduce produce} reader: every batch must be complete and readable
     * @throws UnreadableRecords when the records cannot all be read, or are not what their headers say; the
     *                           partition must then be refused with {@link UnreadableRecords#error()}
     */
    public static Optional<Refused> firstRefused(MemoryRecords records, RecordReader reader, Predicate<ByteBuffer> allowed) {
        RecordReader.Batches batches = reader.batches(records);
        if (batches.problem() != null) {
            throw batches.problem();
        }
        Refused[] refused = { null };
        for (MutableRecordBatch batch : batches.complete()) {
            reader.forEach(batch, (Record record) -> {
                if (refused[0] == null && !allowed.test(record.key())) {
                    refused[0] = new Refused(record.key());
                }
            });
            if (refused[0] != null) {
                return Optional.of(refused[0]);
            }
        }
        return Optional.empty();
    }
}
