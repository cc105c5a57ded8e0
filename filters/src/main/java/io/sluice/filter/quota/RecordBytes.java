package io.sluice.filter.quota;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.record.BaseRecords;

/**
 * The bytes of records a Produce request carries or a Fetch or ShareFetch response delivers: what the byte quotas
 * count. Only the record batches, as they travel (compressed, if the client compressed them), not the protocol around
 * them: the part that grows with the traffic, and the same figure whichever API version carries it. Reading it is a
 * sum of sizes the decoded message already knows; no record is read.
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

    static long fetched(FetchResponseData response) {
        long bytes = 0;
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                bytes += size(partition.records());
            }
        }
        return bytes;
    }

    static long fetched(ShareFetchResponseData response) {
        long bytes = 0;
        for (ShareFetchResponseData.ShareFetchableTopicResponse topic : response.responses()) {
            for (ShareFetchResponseData.PartitionData partition : topic.partitions()) {
                bytes += size(partition.records());
            }
        }
        return bytes;
    }

    private static long size(BaseRecords records) {
        return records == null ? 0 : records.sizeInBytes();
    }
}
