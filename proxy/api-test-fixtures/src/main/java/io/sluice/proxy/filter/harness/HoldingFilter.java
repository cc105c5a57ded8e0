package io.sluice.proxy.filter.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * A test filter whose every decision the test makes: the requests and responses it is told to hold wait, each as a
 * {@link Held} the test forwards, answers, drops or fails when it likes (the slow KMS call, the stalled lookup); the
 * others are forwarded at once. It records the correlation ids it was handed, in order, so a test sees that a pipeline
 * handed them one at a time and in order. One filter for the delaying, answering, dropping and failing filters tests
 * of the proxy's filter machinery would otherwise each write.
 */
public final class HoldingFilter implements RequestFilter, ResponseFilter {

    /** One message held by the filter; complete it once, in any of the ways the filter API offers. */
    public static final class Held {
        private final RequestHeaderData requestHeader;
        private final ResponseHeaderData responseHeader;
        private final ApiMessage message;
        private final FilterContext context;
        private final CompletableFuture<RequestFilterResult> request;
        private final CompletableFuture<ResponseFilterResult> response;

        private Held(RequestHeaderData requestHeader, ResponseHeaderData responseHeader, ApiMessage message, FilterContext context) {
            this.requestHeader = requestHeader;
            this.responseHeader = responseHeader;
            this.message = message;
            this.context = context;
            this.request = requestHeader != null ? new CompletableFuture<>() : null;
            this.response = responseHeader != null ? new CompletableFuture<>() : null;
        }

        public ApiMessage message() {
            return message;
        }

        public int correlationId() {
            return requestHeader != null ? requestHeader.correlationId() : responseHeader.correlationId();
        }

        public void forward() {
            if (request != null) {
                request.complete(context.requestFilterResultBuilder().forward(requestHeader, message).build());
            } else {
                response.complete(context.responseFilterResultBuilder().forward(responseHeader, message).build());
            }
        }

        /** Answers a held request itself (short-circuit). */
        public void answer(ApiMessage answer) {
            request.complete(context.requestFilterResultBuilder().shortCircuitResponse(answer).build());
        }

        public void drop() {
            if (request != null) {
                request.complete(context.requestFilterResultBuilder().drop().build());
            } else {
                response.complete(context.responseFilterResultBuilder().drop().build());
            }
        }

        public void fail(Throwable error) {
            if (request != null) {
                request.completeExceptionally(error);
            } else {
                response.completeExceptionally(error);
            }
        }
    }

    private final Predicate<ApiMessage> holdRequest;
    private final Predicate<ApiMessage> holdResponse;
    private final List<Held> held = new ArrayList<>();
    private final List<Integer> requestsSeen = new ArrayList<>();
    private final List<Integer> responsesSeen = new ArrayList<>();

    /** Holds the requests and responses the predicates pick; forwards the rest at once. */
    public HoldingFilter(Predicate<ApiMessage> holdRequest, Predicate<ApiMessage> holdResponse) {
        this.holdRequest = holdRequest;
        this.holdResponse = holdResponse;
    }

    /** Holds every request; forwards every response. */
    public static HoldingFilter holdingRequests() {
        return new HoldingFilter(m -> true, m -> false);
    }

    /** Holds every response; forwards every request. */
    public static HoldingFilter holdingResponses() {
        return new HoldingFilter(m -> false, m -> true);
    }

    @Override
    public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                          FilterContext context) {
        requestsSeen.add(header.correlationId());
        if (!holdRequest.test(request)) {
            return context.forwardRequest(header, request);
        }
        Held h = new Held(header, null, request, context);
        held.add(h);
        return h.request;
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        responsesSeen.add(header.correlationId());
        if (!holdResponse.test(response)) {
            return context.forwardResponse(header, response);
        }
        Held h = new Held(null, header, response, context);
        held.add(h);
        return h.response;
    }

    /** What is held and not yet completed, oldest first. */
    public List<Held> held() {
        held.removeIf(h -> (h.request != null ? h.request : h.response).isDone());
        return List.copyOf(held);
    }

    /** The correlation ids of the requests the filter was handed, in the order it was. */
    public List<Integer> requestsSeen() {
        return List.copyOf(requestsSeen);
    }

    public List<Integer> responsesSeen() {
        return List.copyOf(responsesSeen);
    }
}
