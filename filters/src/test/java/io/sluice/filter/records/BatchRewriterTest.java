package io.sluice.filter.records;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BatchRewriterTest {

    /**
     * An uncompressed batch is framed by hand (UncompressedBatch), not through MemoryRecordsBuilder: its bytes must be
     * the builder's, byte for byte, with records replaced, kept and dropped, null keys, values and header values, and
     * either timestamp type.
     */
    @ParameterizedTest
    @EnumSource(value = TimestampType.class, names = { "CREATE_TIME", "LOG_APPEND_TIME" })
    void anUncompressedBatchIsWrittenAsTheBuilderWritesIt(TimestampType type) {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        MemoryRecordsBuilder original = new MemoryRecordsBuilder(buffer, RecordBatch.CURRENT_MAGIC_VALUE, Compression.NONE, type, 100L,
                type == TimestampType.LOG_APPEND_TIME ? 9_000L : RecordBatch.NO_TIMESTAMP, 7L, (short) 3, 40, true, false, 5, 4096);
        original.appendWithOffset(100L, 3_000L, bytes("k1"), bytes("v1"), new Header[] { new RecordHeader("h", (byte[]) null) });
        original.appendWithOffset(101L, 1_000L, bytes("k2"), null, new Header[0]);
        original.appendWithOffset(103L, 2_000L, null, bytes("v3"), new Header[] { new RecordHeader("é", "x".getBytes(StandardCharsets.UTF_8)) });
        original.appendWithOffset(104L, 4_000L, bytes("k4"), bytes("dropped"), new Header[0]);
        original.overrideLastOffset(106L);
        MemoryRecords records = original.build();
        BatchRewriter.RecordTransform transform = (batch, record) -> {
            if (record.offset() == 104L) {
                return BatchRewriter.DROP;
            }
            return record.hasValue() && record.offset() == 103L
                    ? new BatchRewriter.Rewritten(ByteBuffer.wrap(new byte[300]), new Header[] { new RecordHeader("n", new byte[] { 1 }) })
                    : null;
        };

        MemoryRecords rewritten = BatchRewriter.rewrite(records, transform);

        MutableRecordBatch batch = records.batches().iterator().next();
        MemoryRecordsBuilder expected = new MemoryRecordsBuilder(ByteBuffer.allocate(4096), batch.magic(), Compression.NONE, type, 100L,
                type == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP, 7L, (short) 3, 40, true, false, 5, Integer.MAX_VALUE);
        for (Record record : batch) {
            BatchRewriter.Rewritten changed = transform.apply(batch, record);
            if (changed == null) {
                expected.appendWithOffset(record.offset(), record.timestamp(), record.key(), record.value(), record.headers());
            } else if (changed != BatchRewriter.DROP) {
                expected.appendWithOffset(record.offset(), record.timestamp(), record.key(), changed.value(), changed.headers());
            }
        }
        expected.overrideLastOffset(106L);
        assertThat(rewritten.buffer()).isEqualTo(expected.build().buffer());
        rewritten.batches().iterator().next().ensureValid();
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void rewrittenBatchesKeepOffsetsProducerStateTimestampsAndCodec(CompressionType codec) {
        MemoryRecords original = MemoryRecords.withTransactionalRecords((byte) 2, 100L, Compression.of(codec).build(), 7L, (short) 3, 40, 5,
                new SimpleRecord(1_000L, bytes("k1"), bytes("v1")),
                new SimpleRecord(2_000L, bytes("k2"), null),
                new SimpleRecord(3_000L, null, bytes("v3"), new Header[] { new RecordHeader("h", "x".getBytes(StandardCharsets.UTF_8)) }));

        MemoryRecords rewritten = BatchRewriter.rewrite(original, (batch, record) -> record.hasValue()
                ? new BatchRewriter.Rewritten(ByteBuffer.wrap(("new-" + string(record.value())).getBytes(StandardCharsets.UTF_8)), record.headers())
                : null);

        MutableRecordBatch before = original.batches().iterator().next();
        MutableRecordBatch after = rewritten.batches().iterator().next();
        assertThat(after.baseOffset()).isEqualTo(before.baseOffset());
        assertThat(after.lastOffset()).isEqualTo(before.lastOffset());
        assertThat(after.producerId()).isEqualTo(7L);
        assertThat(after.producerEpoch()).isEqualTo((short) 3);
        assertThat(after.baseSequence()).isEqualTo(40);
        assertThat(after.isTransactional()).isTrue();
        assertThat(after.partitionLeaderEpoch()).isEqualTo(5);
        assertThat(after.compressionType()).isEqualTo(codec);
        after.ensureValid();
        List<Record> records = new ArrayList<>();
        after.forEach(records::add);
        assertThat(records).extracting(Record::offset).containsExactly(100L, 101L, 102L);
        assertThat(records).extracting(Record::timestamp).containsExactly(1_000L, 2_000L, 3_000L);
        assertThat(string(records.get(0).value())).isEqualTo("new-v1");
        assertThat(records.get(1).hasValue()).as("tombstones stay tombstones").isFalse();
        assertThat(string(records.get(2).value())).isEqualTo("new-v3");
        assertThat(records.get(2).headers()).hasSize(1);
        assertThat(records.get(2).key()).isNull();
    }

    @Test
    void controlBatchesAndUntouchedBatchesAreCopiedAsTheyAre() {
        ByteBufferOutputStream out = new ByteBufferOutputStream(1024);
        MemoryRecords first = MemoryRecords.withRecords(0L, Compression.NONE, new SimpleRecord(bytes("a")));
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(1L, 1_000L, 0, 9L, (short) 1, new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        MemoryRecords third = MemoryRecords.withRecords(2L, Compression.NONE, new SimpleRecord(bytes("c")));
        out.write(first.buffer().duplicate());
        out.write(marker.buffer().duplicate());
        out.write(third.buffer().duplicate());
        ByteBuffer all = out.buffer().flip();
        MemoryRecords records = MemoryRecords.readableRecords(all);

        MemoryRecords unchanged = BatchRewriter.rewrite(records, (batch, record) -> null);
        assertThat(unchanged).isSameAs(records);

        MemoryRecords rewritten = BatchRewriter.rewrite(records, (batch, record) ->
                string(record.value()).equals("c") ? new BatchRewriter.Rewritten(bytes("C"), record.headers()) : null);
        List<MutableRecordBatch> batches = new ArrayList<>();
        rewritten.batches().forEach(batches::add);
        assertThat(batches).hasSize(3);
        assertThat(batches.get(0).checksum()).isEqualTo(first.batches().iterator().next().checksum());
        assertThat(batches.get(1).isControlBatch()).isTrue();
        assertThat(string(batches.get(2).iterator().next().value())).isEqualTo("C");
        assertThat(batches.get(2).baseOffset()).isEqualTo(2L);
        assertThat(batches.get(2).timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(RecordBatch.CURRENT_MAGIC_VALUE).isEqualTo(batches.get(2).magic());
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String string(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    @Test
    void droppedRecordsKeepTheirOffsetsTakenSoConsumersMovePastThem() {
        MemoryRecords original = MemoryRecords.withIdempotentRecords((byte) 2, 10L, Compression.lz4().build(), 5L, (short) 0, 0, 0,
                new SimpleRecord(bytes("keep")), new SimpleRecord(bytes("drop")), new SimpleRecord(bytes("keep")), new SimpleRecord(bytes("drop")));

        MemoryRecords filtered = BatchRewriter.rewrite(original, (batch, record) -> string(record.value()).equals("drop") ? BatchRewriter.DROP : null);
        MutableRecordBatch batch = filtered.batches().iterator().next();
        batch.ensureValid();
        assertThat(batch.baseOffset()).isEqualTo(10L);
        assertThat(batch.lastOffset()).as("trailing dropped record still counted").isEqualTo(13L);
        assertThat(batch.nextOffset()).isEqualTo(14L);
        List<Long> offsets = new ArrayList<>();
        batch.forEach(r -> offsets.add(r.offset()));
        assertThat(offsets).containsExactly(10L, 12L);

        MemoryRecords emptied = BatchRewriter.rewrite(original, (b, record) -> BatchRewriter.DROP);
        MutableRecordBatch empty = emptied.batches().iterator().next();
        empty.ensureValid();
        assertThat(empty.countOrNull()).isZero();
        assertThat(empty.baseOffset()).isEqualTo(10L);
        assertThat(empty.lastOffset()).isEqualTo(13L);
        assertThat(empty.producerId()).isEqualTo(5L);
    }
}
