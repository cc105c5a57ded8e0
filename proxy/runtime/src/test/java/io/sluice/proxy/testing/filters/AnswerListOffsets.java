package io.sluice.proxy.testing.filters;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.ListOffsetsRequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Test filter that answers every ListOffsets request itself (short-circuit) with offset {@link #OFFSET} for every
 * partition asked about. Written against the typed ListOffsetsRequestFilter interface: no casts.
 */
public final class AnswerListOffsets extends NoConfigFilterFactory {

    public static final long OFFSET = 42;

    @Override
    public Filter createFilter(FilterFactoryContext context, Void data) {
        return new ListOffsetsRequestFilter() {
            @Override
            public CompletionStage<RequestFilterResult> onListOffsetsRequest(short apiVersion, RequestHeaderData header, ListOffsetsRequestData request,
                                                                             FilterContext ctx) {
                ListOffsetsResponseData response = new ListOffsetsResponseData();
                for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
                    ListOffsetsResponseData.ListOffsetsTopicResponse answer = new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
                    for (ListOffsetsRequestData.ListOffsetsPartition partition : topic.partitions()) {
                        answer.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(partition.partitionIndex()).setOffset(OFFSET).setTimestamp(-1).setLeaderEpoch(-1));
                    }
                    response.topics().add(answer);
                }
                return ctx.requestFilterResultBuilder().shortCircuitResponse(response).completed();
            }
        };
    }
}
