package io.sluice.proxy.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

import io.sluice.proxy.cluster.BrokerAddressFilter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

class FilterChainDecodePolicyTest {

    private static final NamedFilter ADDRESSES = new NamedFilter("broker-address", new BrokerAddressFilter(null));

    @Test
    void withOnlyTheProxysAddressRewritingLeaderHintResponsesAreDecodedOnlyForTheirHints() {
        FilterChainDecodePolicy policy = new FilterChainDecodePolicy(List.of(ADDRESSES));

        assertThat(policy.decodeResponse(ApiKeys.PRODUCE, (short) 11)).isTrue();
        assertThat(policy.decodeResponseOnlyForLeaderHints(ApiKeys.PRODUCE, (short) 11)).isTrue();
        assertThat(policy.decodeResponseOnlyForLeaderHints(ApiKeys.SHARE_FETCH, (short) 1)).isTrue();
        assertThat(policy.decodeResponseOnlyForLeaderHints(ApiKeys.FETCH, (short) 16)).isTrue();
        assertThat(policy.decodeResponseOnlyForLeaderHints(ApiKeys.METADATA, (short) 12)).as("Metadata always names brokers").isFalse();
        assertThat(policy.decodeResponseOnlyForLeaderHints(ApiKeys.PRODUCE, (short) 9)).as("no hints before v10").isFalse();
        assertThat(policy.decodeResponse(ApiKeys.PRODUCE, (short) 9)).isFalse();
    }

    @Test
    void aFilterHandlingTheResponseGetsItDecodedWhateverItCarries() {
        FilterChainDecodePolicy decoding = new FilterChainDecodePolicy(List.of(new NamedFilter("mine", handling(true)), ADDRESSES));
        FilterChainDecodePolicy observing = new FilterChainDecodePolicy(List.of(new NamedFilter("audit", handling(false)), ADDRESSES));

        assertThat(decoding.decodeResponseOnlyForLeaderHints(ApiKeys.PRODUCE, (short) 11)).isFalse();
        assertThat(observing.decodeResponseOnlyForLeaderHints(ApiKeys.PRODUCE, (short) 11))
                .as("an observer sees what is decoded anyway, so a decoded response stays decoded for it").isFalse();
    }

    private static ResponseFilter handling(boolean requiresDecoded) {
        return new ResponseFilter() {
            @Override
            public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.PRODUCE;
            }

            @Override
            public boolean requiresDecodedResponse(ApiKeys apiKey, short apiVersion) {
                return requiresDecoded && shouldHandleResponse(apiKey, apiVersion);
            }

            @Override
            public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                    FilterContext context) {
                return context.forwardResponse(header, response);
            }
        };
    }
}
