package io.sluice.proxy.testing.filters;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.SimpleRecord;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Test filter using an out-of-band request: before forwarding a Produce, asks the broker (Metadata) how
 * many partitions the topic has and stamps that into a {@code partitions} header on every record.
 */
public final class PartitionCountHeader extends NoConfigFilterFactory {

    @Override
    public Filter createFilter(FilterFactoryContext context, Void data) {
        return new RequestFilter() {
            @Override
            public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.PRODUCE;
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request, FilterContext ctx) {
                ProduceRequestData produce = (ProduceRequestData) request;
                MetadataRequestData metadata = new MetadataRequestData().setAllowAutoTopicCreation(false);
                // Produce v13+ names topics by id only; Metadata v12+ accepts either.
                produce.topicData().forEach(t -> metadata.topics().add(t.name() == null || t.name().isEmpty()
                        ? new MetadataRequestData.MetadataRequestTopic().setTopicId(t.topicId()).setName(null)
                        : new MetadataRequestData.MetadataRequestTopic().setName(t.name())));
                return ctx.<MetadataResponseData>sendRequest(new RequestHeaderData().setRequestApiVersion((short) 12), metadata)
                        .thenCompose(response -> {
                            int partitions = response.topics().iterator().next().partitions().size();
                            RecordRewriter.rewrite(produce, r -> {
                                List<Header> headers = new ArrayList<>(List.of(r.headers()));
                                headers.add(new RecordHeader("partitions", Integer.toString(partitions).getBytes(StandardCharsets.UTF_8)));
                                return new SimpleRecord(r.timestamp(), r.key(), r.value(), headers.toArray(Header[]::new));
                            });
                            return ctx.forwardRequest(header, produce);
                        });
            }
        };
    }
}
