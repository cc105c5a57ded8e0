package io.sluice.proxy.testing.filters;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/** Rebuilds the records of a Produce request, one record at a time (test filters only: drops producer state). */
final class RecordRewriter {

    private RecordRewriter() {
    }

    static void rewrite(ProduceRequestData request, UnaryOperator<SimpleRecord> change) {
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                MemoryRecords records = (MemoryRecords) partition.records();
                List<SimpleRecord> out = new ArrayList<>();
                for (RecordBatch batch : records.batches()) {
                    for (Record r : batch) {
                        out.add(change.apply(new SimpleRecord(r.timestamp(), r.key(), r.value(), r.headers())));
                    }
                }
                partition.setRecords(MemoryRecords.withRecords(Compression.NONE, out.toArray(SimpleRecord[]::new)));
            }
        }
    }
}
