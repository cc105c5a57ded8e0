package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;


import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import io.sluice.filter.records.BatchRewriter;

/**
 * What the filter does to one partition's records, per MiB: encrypting a produced partition, decrypting a fetched
 * one, and (for scale) rebuilding the same batches without any cryptography. The difference between the last and
 * the first two is the cryptography; the last is the price of touching records at all. Keys are already unwrapped
 * here, as they are in the steady state. Run with
 * {@code mvn -pl filters -am test -Dtest=EncryptionBenchmarksTest#measurePartitionCrypto -Dsluice.bench=true -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PartitionCryptoBenchmark {

    /** One MiB of records per operation, in batches of 16 KiB as a producer with default settings sends them. */
    private static final int PARTITION_BYTES = 1 << 20;
    private static final int BATCH_BYTES = 16 << 10;

    @Param({ "1024" })
    public int recordBytes;

    @Param({ "none", "lz4" })
    public String compression;

    /** Where the fetched records lie: "direct" as the proxy decodes a Fetch response (views of Netty's buffers), or "heap". */
    @Param({ "direct" })
    public String fetched;

    private MemoryRecords plain;
    private MemoryRecords encrypted;
    private RecordCipher cipher;
    private DataKeys keys;
    private List<DataKeys.DataKey> dataKeys;

    @Setup
    public void setUp() throws Exception {
        byte[] wrapped = new byte[60];
        new SecureRandom().nextBytes(wrapped);
        TestDataKeys testKeys = TestDataKeys.atHand(TestDataKeys.newAesKey(), wrapped);
        keys = testKeys;
        dataKeys = List.of(testKeys.dataKey());
        cipher = new RecordCipher();
        plain = records(recordBytes, Compression.of(compression).build());
        encrypted = encrypt();
        if ("direct".equals(fetched)) {
            ByteBuffer direct = ByteBuffer.allocateDirect(encrypted.sizeInBytes());
            direct.put(encrypted.buffer().duplicate()).flip();
            encrypted = MemoryRecords.readableRecords(direct);
        }
    }

    static MemoryRecords records(int recordBytes, Compression compression) {
        ByteBuffer all = ByteBuffer.allocate(PARTITION_BYTES * 2);
        SecureRandom random = new SecureRandom();
        long offset = 0;
        int written = 0;
        while (written < PARTITION_BYTES) {
            MemoryRecordsBuilder batch = MemoryRecords.builder(ByteBuffer.allocate(BATCH_BYTES * 2), RecordBatch.CURRENT_MAGIC_VALUE, compression,
                    TimestampType.CREATE_TIME, offset);
            for (int b = 0; b < BATCH_BYTES / recordBytes && written < PARTITION_BYTES; b++, offset++) {
                byte[] value = new byte[recordBytes];
                // Half random, half repeated, so a codec has something to do but not everything.
                random.nextBytes(value);
                Arrays.fill(value, recordBytes / 2, recordBytes, (byte) 'x');
                batch.appendWithOffset(offset, System.currentTimeMillis(), ("key-" + offset).getBytes(StandardCharsets.UTF_8), value);
                written += recordBytes;
            }
            all.put(batch.build().buffer());
        }
        all.flip();
        return MemoryRecords.readableRecords(all);
    }

    @Benchmark
    public MemoryRecords rebuildOnly() {
        return BatchRewriter.rewrite(plain, (batch, record) -> new BatchRewriter.Rewritten(record.value(), record.headers()));
    }

    @Benchmark
    public MemoryRecords encrypt() {
        return new PartitionEncryptor("bench", dataKeys, Integer.MAX_VALUE, false, cipher).encrypt("bench-topic", plain);
    }

    @Benchmark
    public MemoryRecords decrypt() {
        return new PartitionDecryptor(keys, cipher).decrypt("bench-topic", encrypted);
    }
}
