package io.sluice.proxy.testing.filters;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * Test filter that, while holding a Fetch response, asks the broker for the names of its topics with an
 * out-of-band request: the answer must reach it even though it is busy with a response.
 */
public final class TopicNamesOnFetch extends NoConfigFilterFactory {

    @Override
    public Filter createFilter(FilterFactoryContext context, Void data) {
        return new ResponseFilter() {
            @Override
            public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.FETCH;
            }

            @Override
            public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                    FilterContext ctx) {
                List<Uuid> ids = ((FetchResponseData) response).responses().stream().map(FetchResponseData.FetchableTopicResponse::topicId).toList();
                return ctx.topicNames(ids).thenCompose(names -> ctx.forwardResponse(header, response));
            }
        };
    }
}
