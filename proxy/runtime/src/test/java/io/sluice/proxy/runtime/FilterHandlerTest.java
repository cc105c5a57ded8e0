package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.filter.ConnectionFilter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.proxy.filter.harness.HoldingFilter;

import static io.sluice.proxy.runtime.FilterPipeline.listOffsets;
import static io.sluice.proxy.runtime.FilterPipeline.listOffsetsAnswer;
import static io.sluice.proxy.runtime.FilterPipeline.metadata;
import static io.sluice.proxy.runtime.FilterPipeline.metadataAnswer;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * FilterHandler in a client pipeline of EmbeddedChannels (FilterPipeline): ordering of requests and responses behind a
 * filter that takes its time, a filter answering itself, a filter failing, and back-pressure. No broker, no sockets.
 */
class FilterHandlerTest {

    private static HoldingFilter holdingListOffsetsRequests() {
        return new HoldingFilter(m -> m instanceof ListOffsetsRequestData, m -> false);
    }

    @Test
    void requestsBehindOneTheFilterHoldsReachItOnlyAfterItAndTheBrokerInTheOrderSent() {
        HoldingFilter filter = holdingListOffsetsRequests();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            int first = p.send(listOffsets());
            int second = p.send(metadata());
            int third = p.send(metadata());

            assertThat(filter.requestsSeen()).as("the filter sees one request at a time").containsExactly(first);
            assertThat(p.brokerReceived()).isEmpty();

            filter.held().get(0).forward();
            p.client.runPendingTasks();
            assertThat(filter.requestsSeen()).containsExactly(first, second, third);
            assertThat(p.brokerReceived()).extracting(DecodedRequest::apiKey)
                    .containsExactly(ApiKeys.LIST_OFFSETS, ApiKeys.METADATA, ApiKeys.METADATA);
        }
    }

    @Test
    void responsesBehindOneTheFilterHoldsReachTheClientInRequestOrder() {
        HoldingFilter filter = new HoldingFilter(m -> false, m -> m instanceof ListOffsetsResponseData);
        try (FilterPipeline p = new FilterPipeline(filter)) {
            int first = p.send(listOffsets());
            int second = p.send(metadata());
            int third = p.send(metadata());
            assertThat(p.brokerReceived()).hasSize(3);

            p.brokerAnswers(first, listOffsetsAnswer());
            p.brokerAnswers(second, metadataAnswer());
            p.brokerAnswers(third, metadataAnswer());
            assertThat(p.clientReceived()).as("nothing overtakes the held answer").isEmpty();
            assertThat(filter.responsesSeen()).containsExactly(first);

            filter.held().get(0).forward();
            p.client.runPendingTasks();
            assertThat(p.clientReceived()).containsExactly(first, second, third);
        }
    }

    @Test
    void aRequestTheFilterAnswersItselfNeverReachesTheBrokerAndTheClientGetsItAfterTheAnswersBeforeIt() {
        HoldingFilter filter = holdingListOffsetsRequests();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            int first = p.send(metadata());
            int second = p.send(listOffsets());
            filter.held().get(0).answer(listOffsetsAnswer());
            p.client.runPendingTasks();

            assertThat(p.brokerReceived()).extracting(DecodedRequest::apiKey).containsExactly(ApiKeys.METADATA);
            assertThat(p.clientReceived()).as("the local answer waits for the broker's answer to the earlier request").isEmpty();

            p.brokerAnswers(first, metadataAnswer());
            assertThat(p.clientReceived()).containsExactly(first, second);
            assertThat(p.client.isOpen()).isTrue();
        }
    }

    @Test
    void aFilterThatThrowsClosesBothConnectionsAndCountsTheErrorTheRequestGoesNowhere() {
        RequestFilter throwing = (apiKey, version, header, request, ctx) -> {
            throw new IllegalStateException("filter bug");
        };
        try (FilterPipeline p = new FilterPipeline(throwing)) {
            p.send(metadata());

            assertThat(p.brokerReceived()).isEmpty();
            assertThat(p.clientReceived()).as("no error response: the client sees the connection close").isEmpty();
            assertThat(p.client.isOpen()).isFalse();
            assertThat(p.broker.isOpen()).isFalse();
            assertThat(p.filterErrors()).isEqualTo(1.0);
        }
    }

    @Test
    void aFailedStageClosesTheConnectionAfterTheAnswersAlreadyWrittenAndTheRequestsQueuedBehindItGoNowhere() {
        HoldingFilter filter = holdingListOffsetsRequests();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            int first = p.send(metadata());
            p.brokerAnswers(first, metadataAnswer());
            p.send(listOffsets());
            p.send(metadata());
            assertThat(p.brokerReceived()).hasSize(1);

            filter.held().get(0).fail(new IllegalStateException("KMS down"));
            p.client.runPendingTasks();

            assertThat(p.clientReceived()).containsExactly(first);
            assertThat(p.brokerReceived()).isEmpty();
            assertThat(p.client.isOpen()).isFalse();
            assertThat(p.filterErrors()).isEqualTo(1.0);
        }
    }

    @Test
    void aFailedResponseStageClosesTheConnectionWithoutWritingThatResponse() {
        HoldingFilter filter = HoldingFilter.holdingResponses();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            int first = p.send(metadata());
            p.brokerAnswers(first, metadataAnswer());
            filter.held().get(0).fail(new IllegalStateException("cannot decrypt"));
            p.client.runPendingTasks();

            assertThat(p.clientReceived()).isEmpty();
            assertThat(p.client.isOpen()).isFalse();
            assertThat(p.filterErrors()).isEqualTo(1.0);
        }
    }

    @Test
    void aStageThatNeverCompletesClosesTheConnectionAtTheFilterTimeout() {
        HoldingFilter filter = holdingListOffsetsRequests();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            p.send(listOffsets());
            p.client.advanceTimeBy(FilterPipeline.FILTER_TIMEOUT.toMillis() - 1, TimeUnit.MILLISECONDS);
            p.client.runScheduledPendingTasks();
            assertThat(p.client.isOpen()).isTrue();

            p.client.advanceTimeBy(1, TimeUnit.MILLISECONDS);
            p.client.runScheduledPendingTasks();
            assertThat(p.client.isOpen()).isFalse();
            assertThat(p.filterErrors()).isEqualTo(1.0);
        }
    }

    @Test
    void theClientIsNotReadWhileRequestsQueueBehindOneTheFilterHoldsAndIsAgainOnceItCompletes() {
        HoldingFilter filter = holdingListOffsetsRequests();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            assertThat(p.client.config().isAutoRead()).isTrue();
            p.send(listOffsets());
            assertThat(p.client.config().isAutoRead()).as("one in the filter, none queued").isTrue();
            p.send(metadata());
            assertThat(p.client.config().isAutoRead()).as("one queued behind it").isFalse();

            filter.held().get(0).forward();
            p.client.runPendingTasks();
            assertThat(p.client.config().isAutoRead()).isTrue();
        }
    }

    @Test
    void theClientIsNotReadWhileTheBrokerConnectionIsUnwritable() {
        try (FilterPipeline p = new FilterPipeline(holdingListOffsetsRequests())) {
            p.broker.config().setWriteBufferWaterMark(FilterPipeline.SMALL);
            p.broker.write(Unpooled.wrappedBuffer(new byte[32]));
            assertThat(p.broker.isWritable()).isFalse();
            assertThat(p.client.config().isAutoRead()).isFalse();

            p.broker.flush();
            assertThat(p.client.config().isAutoRead()).isTrue();
        }
    }

    @Test
    void theBrokerIsNotReadWhileTheClientConnectionIsUnwritable() {
        try (FilterPipeline p = new FilterPipeline(holdingListOffsetsRequests())) {
            p.client.config().setWriteBufferWaterMark(FilterPipeline.SMALL);
            assertThat(p.broker.config().isAutoRead()).isTrue();
            p.client.write(Unpooled.wrappedBuffer(new byte[32]));
            assertThat(p.client.isWritable()).isFalse();
            assertThat(p.broker.config().isAutoRead()).isFalse();

            p.client.flush();
            assertThat(p.broker.config().isAutoRead()).isTrue();
        }
    }

    /** A filter that records what it is told about its connection and sees, in order. */
    private static final class LifeRecorder implements ConnectionFilter, RequestFilter {
        final List<String> seen = new ArrayList<>();

        @Override
        public void onConnectionOpened(FilterContext context) {
            seen.add("opened " + context.sessionId());
        }

        @Override
        public void onConnectionClosed(FilterContext context) {
            seen.add("closed " + context.sessionId());
        }

        @Override
        public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                              FilterContext context) {
            seen.add(apiKey.name);
            return context.forwardRequest(header, request);
        }
    }

    @Test
    void aConnectionFilterIsToldTheConnectionOpenedBeforeItsFirstRequestAndClosedOnceAfterTheSocketClosed() {
        LifeRecorder filter = new LifeRecorder();
        try (FilterPipeline p = new FilterPipeline(filter)) {
            String session = p.connection.sessionId();
            assertThat(filter.seen).containsExactly("opened " + session);
            p.send(metadata());
            p.connection.close("test", null);
            p.client.runPendingTasks();
            assertThat(p.client.isOpen()).isFalse();
            assertThat(filter.seen).containsExactly("opened " + session, "Metadata", "closed " + session);
            assertThat(p.filterErrors()).isZero();
        }
    }

    @Test
    void aConnectionFilterThatThrowsOnOpeningClosesTheConnectionAndCountsTheErrorAndIsStillToldOfTheClose() {
        List<String> seen = new ArrayList<>();
        ConnectionFilter throwing = new ConnectionFilter() {
            @Override
            public void onConnectionOpened(FilterContext context) {
                throw new IllegalStateException("filter bug");
            }

            @Override
            public void onConnectionClosed(FilterContext context) {
                seen.add("closed");
            }
        };
        try (FilterPipeline p = new FilterPipeline(throwing)) {
            p.client.runPendingTasks();
            assertThat(p.client.isOpen()).isFalse();
            assertThat(p.filterErrors()).isEqualTo(1.0);
            assertThat(seen).containsExactly("closed");
        }
    }

    @Test
    void aResponseFilterThatDoesNotRequireDecodedResponsesDoesNotMakeTheProxyDecodeThemButOneThatHandlesThemDoes() {
        ResponseFilter observer = new ResponseFilter() {
            @Override
            public boolean requiresDecodedResponse(ApiKeys apiKey, short apiVersion) {
                return apiKey != ApiKeys.FETCH;
            }

            @Override
            public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                    FilterContext context) {
                return context.forwardResponse(header, response);
            }
        };
        ResponseFilter fetchHandler = new ResponseFilter() {
            @Override
            public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.FETCH;
            }

            @Override
            public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                    FilterContext context) {
                return context.forwardResponse(header, response);
            }
        };
        short fetch = ApiKeys.FETCH.latestVersion();
        FilterChainDecodePolicy alone = new FilterChainDecodePolicy(List.of(new NamedFilter("observer", observer)));
        assertThat(alone.decodeResponse(ApiKeys.FETCH, fetch)).isFalse();
        assertThat(alone.decodeResponse(ApiKeys.PRODUCE, ApiKeys.PRODUCE.latestVersion())).isTrue();
        FilterChainDecodePolicy both = new FilterChainDecodePolicy(List.of(new NamedFilter("observer", observer), new NamedFilter("fetch", fetchHandler)));
        assertThat(both.decodeResponse(ApiKeys.FETCH, fetch)).isTrue();
    }
}
