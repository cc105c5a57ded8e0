package io.sluice.filter.jwt.enforce;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import io.sluice.auth.KeyAccess;
import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReader;
import io.sluice.auth.Permissions;

import static io.sluice.filter.records.ForgedBatches.batches;
import static io.sluice.filter.records.ForgedBatches.concat;
import static org.assertj.core.api.Assertions.assertThat;

class RecordKeyFilterTest {

    private static final long PRODUCER_ID = 4711;
    private static final short EPOCH = 3;
    private static final KeyAccess LIVE = Permissions.fromClaim(Map.of("keys", Map.of("t", Map.of("read", List.of("live/*"))))).topic("t").read();

    @Test
    void batchesWithNothingToRemoveAreReturnedAsTheyAre() {
        MemoryRecords records = concat(batch(0, Compression.NONE, false, "live/1", "live/2"));

        assertThat(filter(records, LIVE)).isSameAs(records);
        assertThat(filter(records, KeyAccess.ALL)).isSameAs(records);
    }

    @Test
    void mixedBatchKeepsItsOffsetsProducerStateAndCompression() {
        MemoryRecords records = concat(batch(10, Compression.gzip().build(), true, "live/1", "dead/1", "live/2", "dead/2"));

        MemoryRecords filtered = filter(records, LIVE);

        List<RecordBatch> batches = batches(filtered);
        assertThat(batches).hasSize(1);
        RecordBatch b = batches.get(0);
        assertThat(b.baseOffset()).isEqualTo(10);
        assertThat(b.lastOffset()).as("the last, removed record's offset is still covered").isEqualTo(13);
        assertThat(b.producerId()).isEqualTo(PRODUCER_ID);
        assertThat(b.producerEpoch()).isEqualTo(EPOCH);
        assertThat(b.baseSequence()).isEqualTo(100);
        assertThat(b.isTransactional()).isTrue();
        assertThat(b.compressionType()).isEqualTo(CompressionType.GZIP);
        assertThat(b.isValid()).isTrue();
        assertThat(keysAndOffsets(filtered)).containsExactly("live/1@10", "live/2@12");
    }

    @Test
    void batchWithEveryRecordRemovedBecomesAnEmptyBatchCoveringTheSameOffsets() {
        MemoryRecords records = concat(batch(0, Compression.NONE, false, "live/1"), batch(1, Compression.NONE, false, "dead/1", "dead/2"),
                batch(3, Compression.NONE, false, "live/2"));

        MemoryRecords filtered = filter(records, LIVE);

        List<RecordBatch> batches = batches(filtered);
        assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(0L, 1L, 3L);
        RecordBatch empty = batches.get(1);
        assertThat(empty.lastOffset()).isEqualTo(2);
        assertThat(empty.nextOffset()).isEqualTo(3);
        assertThat(empty.countOrNull()).isZero();
        assertThat(empty.isValid()).isTrue();
        assertThat(keysAndOffsets(filtered)).containsExactly("live/1@0", "live/2@3");
    }

    @Test
    void controlBatchesAreKeptUnchanged() {
        ByteBuffer marker = ByteBuffer.allocate(256);
        MemoryRecords.writeEndTransactionalMarker(marker, 5, System.currentTimeMillis(), 0, PRODUCER_ID, EPOCH,
                new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        marker.flip();
        MemoryRecords records = concat(batch(0, Compression.NONE, true, "dead/1", "dead/2", "dead/3", "dead/4", "dead/5"),
                MemoryRecords.readableRecords(marker));

        List<RecordBatch> batches = batches(filter(records, LIVE));

        assertThat(batches).hasSize(2);
        assertThat(batches.get(1).isControlBatch()).isTrue();
        assertThat(batches.get(1).baseOffset()).isEqualTo(5);
    }

    @Test
    void nullKeysAreTreatedAsEmptyKeys() {
        MemoryRecords records = concat(batch(0, Compression.NONE, false, "live/1", null));

        assertThat(keysAndOffsets(filter(records, LIVE))).containsExactly("live/1@0");
    }

    // ---- helpers ----

    private static MemoryRecords batch(long baseOffset, Compression compression, boolean transactional, String... keys) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.CURRENT_MAGIC_VALUE, compression,
                TimestampType.CREATE_TIME, baseOffset, System.currentTimeMillis(), PRODUCER_ID, EPOCH, 100, transactional, 0);
        for (String key : keys) {
            builder.append(new SimpleRecord(System.currentTimeMillis(), key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                    ("value-" + key).getBytes(StandardCharsets.UTF_8)));
        }
        return builder.build();
    }

    private static List<String> keysAndOffsets(MemoryRecords records) {
        List<String> out = new ArrayList<>();
        for (RecordBatch batch : records.batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (Record r : batch) {
                out.add((r.key() == null ? "null" : StandardCharsets.UTF_8.decode(r.key()).toString()) + "@" + r.offset());
            }
        }
        return out;
    }

    private static MemoryRecords filter(MemoryRecords records, KeyAccess read) {
        return RecordKeyFilter.filter(records, RecordReader.forFetch(RecordLimits.DEFAULTS), read);
    }
}
