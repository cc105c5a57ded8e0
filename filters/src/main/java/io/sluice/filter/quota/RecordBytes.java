package io.sluice.filter.quota;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.BaseRecords;

/**
 * The bytes of records a Produce request carries: what the produce quota counts. Only the record batches, as they
 * travel (compressed, if the client compressed them), not the protocol around them: the part that grows with the
 * traffic, and the same figure whichever API version carries it. Reading it is a sum of sizes the decoded message
 * already knows; no record is read. (The fetch quota counts a fetch response's whole size, as a broker does, from its
 * frame: the response is never decoded for it.)
 */
final class RecordBytes {

    private RecordBytes() {
    }

    static long produced(ProduceRequestData request) {
        long bytes = 0;
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                bytes += size(partition.records());
            }
        }
        return bytes;
    }

    private static long size(BaseRecords records) {
        return records == null ? 0 : records.sizeInBytes();
    }
}
