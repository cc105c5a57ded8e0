package io.sluice.filter.records;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.config.ConfigLoader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordReaderTest {

    private static final RecordLimits SMALL = new RecordLimits(2 * 1024 * 1024, 4 * 1024 * 1024, 6 * 1024 * 1024);

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void aHeaderClaiming2To31RecordsIsCorruptAndNothingIsAllocatedForTheClaim(CompressionType codec) {
        MemoryRecords forged = ForgedBatches.forge(codec, Integer.MAX_VALUE, ForgedBatches.record(0, "k", "v"));
        long before = allocatedHere();

        assertUnreadable(() -> RecordKeys.firstRefused(forged, RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true), UnreadableRecords.Reason.CORRUPT);
        assertUnreadable(() -> RecordReader.forProduce(RecordLimits.DEFAULTS).count(forged), UnreadableRecords.Reason.CORRUPT);
        assertUnreadable(() -> BatchRewriter.rewrite(forged, (b, r) -> BatchRewriter.DROP), UnreadableRecords.Reason.CORRUPT);

        assertThat(allocatedHere() - before).as("bytes allocated while refusing").isLessThan(4 * 1024 * 1024);
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void fewerOrMoreRecordsThanTheHeaderSaysAreCorrupt(CompressionType codec) {
        byte[] first = ForgedBatches.record(0, "k", "v1");
        byte[] second = ForgedBatches.record(1, "k", "v2");
        MemoryRecords fewer = ForgedBatches.forge(codec, 3, first, second);
        MemoryRecords more = ForgedBatches.forge(codec, 1, first, second);
        MemoryRecords trailing = ForgedBatches.forge(codec, 2, first, second, new byte[] { 0, 0, 0 });
        MemoryRecords exact = ForgedBatches.forge(codec, 2, first, second);

        for (MemoryRecords bad : List.of(fewer, more, trailing)) {
            assertUnreadable(() -> RecordKeys.firstRefused(bad, RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true), UnreadableRecords.Reason.CORRUPT);
        }
        assertThat(RecordReader.forProduce(RecordLimits.DEFAULTS).count(exact)).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aRecordBodyClaiming2GiBIsRefusedBeforeItIsAllocated(CompressionType codec) {
        MemoryRecords forged = ForgedBatches.forge(codec, 1, ForgedBatches.bodyLength(Integer.MAX_VALUE - 8), new byte[16]);
        long before = allocatedHere();

        assertUnreadable(() -> RecordKeys.firstRefused(forged, RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true), UnreadableRecords.Reason.TOO_LARGE);

        assertThat(allocatedHere() - before).isLessThan(4 * 1024 * 1024);
    }

    @Test
    void anUncompressedRecordClaimingMoreThanItsBatchHoldsIsCorrupt() {
        MemoryRecords forged = ForgedBatches.forge(CompressionType.NONE, 1, ForgedBatches.bodyLength(Integer.MAX_VALUE - 8), new byte[16]);

        assertUnreadable(() -> RecordKeys.firstRefused(forged, RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true), UnreadableRecords.Reason.CORRUPT);
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = { "GZIP", "ZSTD" })
    void aDecompressionBombStopsAtTheBatchLimit(CompressionType codec) {
        MemoryRecords bomb = ForgedBatches.bomb(codec, "k", 16, 1024 * 1024);
        assertThat(bomb.sizeInBytes()).as("16 MiB of zeros, compressed").isLessThan(200 * 1024);
        long before = allocatedHere();

        assertUnreadable(() -> RecordKeys.firstRefused(bomb, RecordReader.forProduce(SMALL), key -> true), UnreadableRecords.Reason.TOO_LARGE);

        assertThat(allocatedHere() - before).as("the batch limit (4 MiB) and a record, not 16 MiB").isLessThan(12L * 1024 * 1024);
    }

    @Test
    void theRequestLimitCountsEveryBatchAndAFetchKeepsTheBatchesBeforeIt() {
        MemoryRecords one = ForgedBatches.bomb(CompressionType.ZSTD, "k", 3, 1024 * 1024);
        MemoryRecords three = ForgedBatches.concat(one, one, one);
        RecordReader reader = RecordReader.forFetch(SMALL);

        UnreadableRecords e = catchUnreadable(() -> BatchRewriter.rewrite(three, three.sizeInBytes(), reader, (b, r) -> BatchRewriter.DROP));

        assertThat(e.reason()).isEqualTo(UnreadableRecords.Reason.OVER_REQUEST_LIMIT);
        assertThat(ForgedBatches.batches(e.checked())).as("the first batch, emptied; the second crossed 6 MiB").hasSize(1);
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData().setRecords(three);
        e.answer(partition);
        assertThat(partition.errorCode()).isZero();
        assertThat(partition.records()).isSameAs(e.checked());
    }

    @Test
    void aTruncatedLastBatchOfAFetchIsLeftOutEvenWhenNothingElseChanges() {
        MemoryRecords allowed = MemoryRecords.withRecords(0L, Compression.NONE, new SimpleRecord(0L, bytes("live/1"), bytes("fine")));
        MemoryRecords secret = MemoryRecords.withRecords(1L, Compression.NONE, new SimpleRecord(0L, bytes("secret-key"), bytes("secret-value")));
        MemoryRecords whole = ForgedBatches.concat(allowed, secret);
        MemoryRecords cut = MemoryRecords.readableRecords(whole.buffer().limit(whole.sizeInBytes() - 5).slice());

        MemoryRecords unchanged = BatchRewriter.rewrite(cut, cut.sizeInBytes(), RecordReader.forFetch(RecordLimits.DEFAULTS), (b, r) -> null);

        assertThat(unchanged.sizeInBytes()).isEqualTo(allowed.sizeInBytes());
        assertThat(WireRecords.contains(unchanged, "secret-key")).isFalse();
        assertThat(WireRecords.contains(cut, "secret-key")).as("the cut batch still held the key").isTrue();
    }

    @Test
    void aTruncatedLastBatchOfAProduceIsCorrupt() {
        MemoryRecords whole = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(0L, bytes("k"), bytes("v")));
        MemoryRecords cut = MemoryRecords.readableRecords(whole.buffer().limit(whole.sizeInBytes() - 5).slice());

        assertUnreadable(() -> RecordKeys.firstRefused(cut, RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true), UnreadableRecords.Reason.CORRUPT);
    }

    @Test
    void oldFormatBatchesAreNotReadAndAFetchOfThemIsCorruptRatherThanUnfiltered() {
        MemoryRecords old = ForgedBatches.oldFormat("secret-key", "secret-value");

        assertUnreadable(() -> RecordKeys.firstRefused(old, RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true), UnreadableRecords.Reason.NOT_ACCEPTED);
        UnreadableRecords e = catchUnreadable(() -> BatchRewriter.rewrite(old, (b, r) -> BatchRewriter.DROP));
        FetchResponseData.PartitionData partition = new FetchResponseData.PartitionData().setRecords(old);
        e.answer(partition);
        assertThat(partition.errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
        assertThat(partition.records().sizeInBytes()).isZero();
    }

    @Test
    void recordsBehindACountOfZeroAreCorruptNotPassedOnUnread() {
        MemoryRecords hidden = ForgedBatches.forge(CompressionType.NONE, 0, ForgedBatches.record(0, "secret-key", "secret-value"));

        UnreadableRecords e = catchUnreadable(() -> BatchRewriter.rewrite(hidden, (b, r) -> BatchRewriter.DROP));

        assertThat(e.reason()).isEqualTo(UnreadableRecords.Reason.CORRUPT);
        assertThat(e.checked().sizeInBytes()).isZero();
    }

    @Test
    void recordsWhoseOffsetsDoNotRiseWithinTheirBatchAreCorruptAndNothingOfTheirBatchIsPassedOn() {
        MemoryRecords good = MemoryRecords.withRecords(0L, Compression.NONE, new SimpleRecord(0L, bytes("live/1"), bytes("fine")));
        MemoryRecords backwards = ForgedBatches.forge(CompressionType.NONE, 2, ForgedBatches.record(0, "live/2", "a"), ForgedBatches.record(0, "secret", "b"));

        UnreadableRecords e = catchUnreadable(() -> BatchRewriter.rewrite(ForgedBatches.concat(good, backwards),
                (b, r) -> new String(bytes(r.key()), StandardCharsets.UTF_8).startsWith("live/") ? null : BatchRewriter.DROP));

        assertThat(e.reason()).isEqualTo(UnreadableRecords.Reason.CORRUPT);
        assertThat(e.checked().sizeInBytes()).isEqualTo(good.sizeInBytes());
        assertThat(WireRecords.contains(e.checked(), "live/2")).isFalse();
    }

    @Test
    void clientsMayNotProduceControlBatches() {
        ByteBuffer marker = ByteBuffer.allocate(256);
        MemoryRecords.writeEndTransactionalMarker(marker, 0, 0L, 0, 1L, (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0));
        marker.flip();

        assertUnreadable(() -> RecordKeys.firstRefused(MemoryRecords.readableRecords(marker), RecordReader.forProduce(RecordLimits.DEFAULTS), key -> true),
                UnreadableRecords.Reason.NOT_ACCEPTED);
    }

    @Test
    void countsAreOfRecordsRead() {
        MemoryRecords three = MemoryRecords.withRecords(Compression.zstd().build(), new SimpleRecord(bytes("a")), new SimpleRecord(bytes("b")),
                new SimpleRecord(bytes("c")));
        assertThat(RecordReader.forProduce(RecordLimits.DEFAULTS).count(ForgedBatches.concat(three, three))).isEqualTo(6);
    }

    @Test
    void limitsMustLeaveRoomForOneRecordAndOneBatch() {
        assertThatThrownBy(() -> new RecordLimits(0, 1, 1)).hasMessageContaining("maxRecordBytes");
        assertThatThrownBy(() -> new RecordLimits(10, 5, 20)).hasMessageContaining("maxBatchBytes");
        assertThatThrownBy(() -> new RecordLimits(10, 20, 15)).hasMessageContaining("maxRequestBytes");
    }

    @Test
    void readersCountTheirRefusalsByDirectionAndReason() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RecordReaders readers = new RecordReaders(RecordLimits.DEFAULTS, registry, "routing");
        MemoryRecords forged = ForgedBatches.forge(CompressionType.GZIP, 7, ForgedBatches.record(0, "k", "v"));

        assertUnreadable(() -> RecordKeys.firstRefused(forged, readers.forProduce(), key -> true), UnreadableRecords.Reason.CORRUPT);
        assertUnreadable(() -> BatchRewriter.rewrite(forged, forged.sizeInBytes(), readers.forFetch(), (b, r) -> null), UnreadableRecords.Reason.CORRUPT);
        assertUnreadable(() -> readers.forProduce().count(ForgedBatches.oldFormat("k", "v")), UnreadableRecords.Reason.NOT_ACCEPTED);

        assertThat(registry.get("sluice.filter.records.unreadable").tags("filter", "routing", "direction", "produce", "reason", "corrupt").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("sluice.filter.records.unreadable").tags("direction", "fetch", "reason", "corrupt").counter().count()).isEqualTo(1);
        assertThat(registry.get("sluice.filter.records.unreadable").tags("direction", "produce", "reason", "not_accepted").counter().count()).isEqualTo(1);
    }

    @Test
    void limitsBindFromYamlWithDefaultsAndBadValuesAreNamed() throws Exception {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        assertThat(ConfigLoader.bind(yaml.readTree("maxRecordBytes: 1048576"), RecordLimits.class, "config.records"))
                .isEqualTo(new RecordLimits(1024 * 1024, RecordLimits.DEFAULT_MAX_BATCH_BYTES, RecordLimits.DEFAULT_MAX_REQUEST_BYTES));
        assertThatThrownBy(() -> ConfigLoader.bind(yaml.readTree("maxBatchBytes: 1000"), RecordLimits.class, "config.records"))
                .hasMessageContaining("config.records").hasMessageContaining("maxBatchBytes");
    }

    // ---- helpers ----

    private static void assertUnreadable(Runnable read, UnreadableRecords.Reason reason) {
        assertThat(catchUnreadable(read).reason()).isEqualTo(reason);
    }

    private static UnreadableRecords catchUnreadable(Runnable read) {
        try {
            read.run();
        } catch (UnreadableRecords e) {
            return e;
        }
        throw new AssertionError("read without complaint");
    }

    private static long allocatedHere() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

}
