package io.sluice.proxy.filter;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequestFilterResultBuilderTest {

    private static final ResponseSizeHook SIZE = bytes -> 0;
    private static final ResponseHook HOOK = ResponseHook.of(response -> { });

    @Test
    void aForwardCarriesOneHookOfEachKind() {
        RequestFilterResult result = new RequestFilterResultBuilder().forward(new RequestHeaderData(), new FetchRequestData())
                .withResponseHook(HOOK).withResponseSizeHook(SIZE).build();
        assertThat(result.responseHook()).isSameAs(HOOK);
        assertThat(result.responseSizeHook()).isSameAs(SIZE);
    }

    @Test
    void hooksBelongToAForwardAndComeOneOfEachKindPerFilter() {
        assertThatThrownBy(() -> new RequestFilterResultBuilder().withResponseSizeHook(SIZE))
                .isInstanceOf(IllegalStateException.class).hasMessage("withResponseSizeHook follows forward(header, request)");
        assertThatThrownBy(() -> new RequestFilterResultBuilder().shortCircuitResponse(new FetchResponseData()).withResponseHook(HOOK))
                .isInstanceOf(IllegalStateException.class).hasMessage("withResponseHook follows forward(header, request)");
        assertThatThrownBy(() -> new RequestFilterResultBuilder().forward(new RequestHeaderData(), new FetchRequestData())
                .withResponseSizeHook(SIZE).withResponseSizeHook(SIZE))
                .isInstanceOf(IllegalStateException.class).hasMessage("a forwarded request has at most one response size hook per filter");
    }

    @Test
    void onlyResponsesThatBeginWithTheThrottleTimeTakeASizeHook() {
        assertThat(ResponseSizeHook.accepts(ApiKeys.FETCH, ApiKeys.FETCH.latestVersion())).isTrue();
        assertThat(ResponseSizeHook.accepts(ApiKeys.METADATA, (short) 12)).isTrue();
        assertThat(ResponseSizeHook.accepts(ApiKeys.PRODUCE, (short) 9)).as("throttle_time_ms comes after the responses").isFalse();
        assertThat(ResponseSizeHook.accepts(ApiKeys.API_VERSIONS, (short) 3)).isFalse();
        assertThat(ResponseSizeHook.accepts(ApiKeys.FETCH, (short) 99)).as("a version kafka-clients does not know").isFalse();
    }
}
