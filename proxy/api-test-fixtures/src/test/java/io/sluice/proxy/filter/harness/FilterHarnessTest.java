package io.sluice.proxy.filter.harness;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ListOffsetsRequestFilter;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseHook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FilterHarnessTest {

    private static ListOffsetsRequestData listOffsets(String topic) {
        ListOffsetsRequestData request = new ListOffsetsRequestData().setReplicaId(-1);
        request.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(topic)
                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))));
        return request;
    }

    private static ListOffsetsResponseData offsets(long offset) {
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        response.topics().add(new ListOffsetsResponseData.ListOffsetsTopicResponse().setName("t")
                .setPartitions(List.of(new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(0).setOffset(offset))));
        return response;
    }

    @Test
    void aForwardedRequestKeepsTheProxysCorrelationIdAndVersionWhateverHeaderTheFilterBuilt() {
        RequestFilter renaming = (apiKey, version, header, request, ctx) -> {
            ((ListOffsetsRequestData) request).topics().get(0).setName("renamed");
            return ctx.forwardRequest(new RequestHeaderData().setCorrelationId(999).setRequestApiVersion((short) 0), request);
        };
        try (FilterHarness harness = FilterHarness.of(renaming)) {
            harness.request(listOffsets("first"));
            RequestOutcome outcome = harness.request((short) 7, listOffsets("orders"));

            assertThat(outcome.verdict()).isEqualTo(Verdict.FORWARDED);
            assertThat(((ListOffsetsRequestData) outcome.forwarded()).topics().get(0).name()).isEqualTo("renamed");
            assertThat(outcome.forwardedHeader().correlationId()).isEqualTo(2);
            assertThat(outcome.forwardedHeader().requestApiVersion()).isEqualTo((short) 7);
            assertThatThrownBy(outcome::answer).isInstanceOf(AssertionError.class).hasMessageContaining("FORWARDED");
        }
    }

    @Test
    void aTypedFilterIsDispatchedOnlyTheApisItImplementsAndAnswersLocallyWithTheRequestsCorrelationId() {
        ListOffsetsRequestFilter answering = new ListOffsetsRequestFilter() {
            @Override
            public CompletionStage<RequestFilterResult> onListOffsetsRequest(short apiVersion, RequestHeaderData header, ListOffsetsRequestData request,
                                                                             FilterContext ctx) {
                return ctx.requestFilterResultBuilder().shortCircuitResponse(offsets(42)).completed();
            }
        };
        try (FilterHarness harness = FilterHarness.of(answering)) {
            RequestOutcome metadata = harness.request(new MetadataRequestData());
            RequestOutcome answered = harness.request(listOffsets("t"));

            assertThat(metadata.handled()).isFalse();
            assertThat(metadata.verdict()).isEqualTo(Verdict.FORWARDED);
            assertThat(answered.verdict()).isEqualTo(Verdict.ANSWERED);
            assertThat(answered.answerHeader().correlationId()).isEqualTo(2);
            assertThat(((ListOffsetsResponseData) answered.answer()).topics().get(0).partitions().get(0).offset()).isEqualTo(42);
        }
    }

    @Test
    void anErrorResponseIsAnAnswerAndDropIsDropped() {
        RequestFilter refusing = (apiKey, version, header, request, ctx) -> apiKey == ApiKeys.LIST_OFFSETS
                ? ctx.requestFilterResultBuilder().errorResponse(header, request, new PolicyViolationException("no")).completed()
                : ctx.requestFilterResultBuilder().drop().completed();
        try (FilterHarness harness = FilterHarness.of(refusing)) {
            RequestOutcome refused = harness.request(listOffsets("t"));
            assertThat(refused.verdict()).isEqualTo(Verdict.ANSWERED);
            assertThat(((ListOffsetsResponseData) refused.answer()).topics().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.POLICY_VIOLATION.code());
            assertThat(harness.request(new MetadataRequestData()).verdict()).isEqualTo(Verdict.DROPPED);
        }
    }

    @Test
    void everyWayTheProxyWouldCloseTheConnectionIsAFailureWithItsCause() {
        IllegalStateException boom = new IllegalStateException("boom");
        try (FilterHarness throwing = FilterHarness.of((RequestFilter) (k, v, h, r, ctx) -> {
            throw boom;
        }); FilterHarness failing = FilterHarness.of((RequestFilter) (k, v, h, r, ctx) -> CompletableFuture.failedFuture(boom));
             FilterHarness nothing = FilterHarness.of((RequestFilter) (k, v, h, r, ctx) -> CompletableFuture.completedFuture(null));
             FilterHarness wrongApi = FilterHarness.of((RequestFilter) (k, v, h, r, ctx) -> ctx.forwardRequest(h, new MetadataRequestData()))) {

            assertThat(throwing.request(listOffsets("t")).failure()).isSameAs(boom);
            assertThat(failing.request(listOffsets("t")).failure()).isSameAs(boom);
            assertThat(nothing.request(listOffsets("t")).failure()).hasMessageContaining("null result");
            RequestOutcome swapped = wrongApi.request(listOffsets("t"));
            assertThat(swapped.verdict()).isEqualTo(Verdict.FAILED);
            assertThat(swapped.failure()).hasMessageContaining("forwarded METADATA in place of LIST_OFFSETS");
        }
    }

    @Test
    void aFilterWaitingOnItsEventLoopsTimerIsPendingUntilTheTestMovesTheClock() {
        RequestFilter delaying = (apiKey, version, header, request, ctx) -> {
            CompletableFuture<RequestFilterResult> later = new CompletableFuture<>();
            ctx.eventLoop().schedule(() -> later.complete(ctx.requestFilterResultBuilder().forward(header, request).build()), 5, TimeUnit.SECONDS);
            return later;
        };
        try (FilterHarness harness = FilterHarness.of(delaying)) {
            RequestOutcome outcome = harness.request(listOffsets("t"));
            assertThat(outcome.verdict()).isEqualTo(Verdict.PENDING);
            harness.advanceTime(Duration.ofSeconds(4));
            assertThat(outcome.verdict()).isEqualTo(Verdict.PENDING);
            harness.advanceTime(Duration.ofSeconds(1));
            assertThat(outcome.verdict()).isEqualTo(Verdict.FORWARDED);
        }
    }

    @Test
    void aRequestOfTheFiltersOwnIsRecordedWithTheProxysHeaderAndAnsweredByTheTest() {
        RequestFilter askingFirst = (apiKey, version, header, request, ctx) -> ctx
                .<MetadataResponseData>sendRequest(new RequestHeaderData().setRequestApiVersion((short) 12), new MetadataRequestData())
                .thenCompose(metadata -> metadata.topics().isEmpty()
                        ? ctx.requestFilterResultBuilder().drop().completed()
                        : ctx.forwardRequest(header, request));
        try (FilterHarness harness = FilterHarness.of(askingFirst)) {
            RequestOutcome outcome = harness.request(listOffsets("t"));
            assertThat(outcome.verdict()).isEqualTo(Verdict.PENDING);
            SentRequest sent = harness.sentRequests().get(0);
            assertThat(sent.header().requestApiKey()).isEqualTo(ApiKeys.METADATA.id);
            assertThat(sent.header().requestApiVersion()).isEqualTo((short) 12);

            MetadataResponseData metadata = new MetadataResponseData();
            metadata.topics().add(new MetadataResponseData.MetadataResponseTopic().setName("t"));
            sent.answer(metadata);
            assertThat(outcome.verdict()).isEqualTo(Verdict.FORWARDED);
        }
    }

    @Test
    void anUnsupportedVersionOrAnAcksZeroProduceIsAnsweredAsTheProxyAnswersThem() {
        try (FilterHarness harness = FilterHarness.of((RequestFilter) (k, v, h, r, ctx) -> ctx.forwardRequest(h, r))) {
            FilterContext ctx = harness.context();
            CompletableFuture<ApiMessage> bad = ctx.sendRequest(new RequestHeaderData().setRequestApiVersion((short) 999), new MetadataRequestData())
                    .toCompletableFuture();
            assertThat(bad).isCompletedExceptionally();
            CompletableFuture<ApiMessage> noAnswer = ctx.sendRequest(new RequestHeaderData().setRequestApiVersion((short) 9),
                    new ProduceRequestData().setAcks((short) 0)).toCompletableFuture();
            assertThat(noAnswer).isCompletedWithValue(null);
            assertThat(harness.sentRequests()).hasSize(1);
        }
    }

    @Test
    void theResponseHookOfAForwardedRequestRunsBeforeTheFiltersOnResponse() {
        class Hooking implements RequestFilter, ResponseFilter {
            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                                  FilterContext ctx) {
                ResponseHook addThousand = ResponseHook.of(r -> ((ListOffsetsResponseData) r).topics().get(0).partitions().get(0)
                        .setOffset(((ListOffsetsResponseData) r).topics().get(0).partitions().get(0).offset() + 1000));
                return ctx.requestFilterResultBuilder().forward(header, request).withResponseHook(addThousand).completed();
            }

            @Override
            public CompletionStage<io.sluice.proxy.filter.ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion,
                    org.apache.kafka.common.message.ResponseHeaderData header, ApiMessage response, FilterContext ctx) {
                ListOffsetsResponseData.ListOffsetsPartitionResponse p = ((ListOffsetsResponseData) response).topics().get(0).partitions().get(0);
                p.setOffset(p.offset() * 2);
                return ctx.forwardResponse(header, response);
            }
        }
        try (FilterHarness harness = FilterHarness.of(new Hooking())) {
            RequestOutcome request = harness.request(listOffsets("t"));
            ResponseOutcome response = harness.response(request, offsets(1));
            assertThat(((ListOffsetsResponseData) response.forwarded()).topics().get(0).partitions().get(0).offset()).isEqualTo(2002);
            assertThat(response.forwardedHeader().correlationId()).isEqualTo(request.correlationId());
        }
    }

    @Test
    void topicNamesAreTheOnesTheTestDeclaredAndUnknownIdsAreAbsent() {
        Uuid known = Uuid.randomUuid();
        try (FilterHarness harness = FilterHarness.of((RequestFilter) (k, v, h, r, ctx) -> ctx.forwardRequest(h, r)).clusterTopic(known, "orders")) {
            assertThat(harness.context().topicNames(List.of(known, Uuid.randomUuid())).toCompletableFuture().join())
                    .containsExactlyEntriesOf(java.util.Map.of(known, "orders"));
        }
    }

    @Test
    void theClientThrottlesAFilterAsksForAreRecordedInOrder() {
        RequestFilter throttling = (k, v, h, r, ctx) -> {
            ctx.throttleClient(Duration.ofMillis(250));
            ctx.throttleClient(Duration.ZERO);
            return ctx.forwardRequest(h, r);
        };
        try (FilterHarness harness = FilterHarness.of(throttling)) {
            assertThat(harness.clientThrottles()).isEmpty();
            assertThat(harness.request(listOffsets("t")).verdict()).isEqualTo(Verdict.FORWARDED);
            assertThat(harness.clientThrottles()).containsExactly(Duration.ofMillis(250), Duration.ZERO);
        }
    }

    @Test
    void aConnectionFilterIsOpenedBeforeItsFirstMessageAndClosedWhenTheTestSaysSoOnceEach() {
        List<String> seen = new java.util.ArrayList<>();
        final class Recorder implements io.sluice.proxy.filter.ConnectionFilter, RequestFilter {
            @Override
            public void onConnectionOpened(FilterContext context) {
                seen.add("opened from " + context.clientAddress());
            }

            @Override
            public void onConnectionClosed(FilterContext context) {
                seen.add("closed after " + context.bytesFromClient() + " in, " + context.bytesToClient() + " out");
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                                  FilterContext context) {
                seen.add(apiKey.name);
                return context.forwardRequest(header, request);
            }
        }
        try (FilterHarness harness = FilterHarness.of(new Recorder())) {
            harness.clientAddress(new java.net.InetSocketAddress("198.51.100.7", 4242));
            harness.request(listOffsets("t"));
            harness.request(listOffsets("t"));
            harness.clientBytes(120, 340).closeConnection().closeConnection();

            assertThat(seen).containsExactly("opened from /198.51.100.7:4242", "ListOffsets", "ListOffsets", "closed after 120 in, 340 out");
        }
        try (FilterHarness harness = FilterHarness.of(new Recorder())) {
            assertThat(harness.context().clientAddress()).isEqualTo(HarnessFilterContext.DEFAULT_CLIENT_ADDRESS);
        }
    }

    @Test
    void aHarnessMadeFromAFactoryClosesItOnceAtItsEndAsTheProxyDoesAtShutdown() {
        List<String> closed = new java.util.ArrayList<>();
        io.sluice.proxy.filter.FilterFactory<String, String> factory = new io.sluice.proxy.filter.FilterFactory<>() {
            @Override
            public Class<String> configType() {
                return String.class;
            }

            @Override
            public String initialize(io.sluice.proxy.filter.FilterFactoryContext context, String config) {
                return config + " of " + context.filterName();
            }

            @Override
            public io.sluice.proxy.filter.Filter createFilter(io.sluice.proxy.filter.FilterFactoryContext context, String shared) {
                return (RequestFilter) (k, v, h, r, ctx) -> ctx.forwardRequest(h, r);
            }

            @Override
            public void close(String shared) {
                closed.add(shared);
            }
        };
        FilterHarness harness = FilterHarness.of("named", factory, "shared state");
        assertThat(closed).isEmpty();
        harness.close();
        harness.close();
        assertThat(closed).containsExactly("shared state of named");
    }
}
