package io.sluice.proxy.filter;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Builds a {@link RequestFilterResult}. Choose one outcome (forward, short-circuit, error response or drop),
 * optionally add {@link #withResponseHook} or {@link #withResponseSizeHook} (after forward) and
 * {@link #withCloseConnection()}, then {@link #build()} or
 * {@link #completed()}.
 */
public final class RequestFilterResultBuilder {

    private RequestHeaderData header;
    private ApiMessage message;
    private ResponseHeaderData responseHeader;
    private ApiMessage response;
    private ResponseHook responseHook;
    private ResponseSizeHook responseSizeHook;
    private boolean drop;
    private boolean close;
    private boolean decided;

    public RequestFilterResultBuilder forward(RequestHeaderData header, ApiMessage request) {
        decide();
        this.header = Objects.requireNonNull(header, "header");
        this.message = Objects.requireNonNull(request, "request");
        return this;
    }

    public RequestFilterResultBuilder shortCircuitResponse(ResponseHeaderData header, ApiMessage response) {
        decide();
        this.responseHeader = header;
        this.response = Objects.requireNonNull(response, "response");
        return this;
    }

    public RequestFilterResultBuilder shortCircuitResponse(ApiMessage response) {
        return shortCircuitResponse(null, response);
    }

    /**
     * Answers the request with the API's own error response carrying {@code error}'s code for every
     * resource in the request (as a broker would).
     */
    public RequestFilterResultBuilder errorResponse(RequestHeaderData header, ApiMessage request, ApiException error) {
        return shortCircuitResponse(null, ErrorResponses.forRequest(header.requestApiVersion(), request, error));
    }

    public RequestFilterResultBuilder drop() {
        decide();
        this.drop = true;
        return this;
    }

    /**
     * Runs {@code hook} on the response to the forwarded request, at this filter's place on the response path; see
     * {@link ResponseHook}. Only with {@link #forward}: a short-circuit response is the filter's own, and a dropped
     * request has none.
     */
    public RequestFilterResultBuilder withResponseHook(ResponseHook hook) {
        requireOneOnAForward("withResponseHook", "response hook", responseHook);
        this.responseHook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /**
     * Runs {@code hook} with the size of the forwarded request's response as it arrives, without decoding it; see
     * {@link ResponseSizeHook}. Only with {@link #forward}, and only for an API whose response begins with
     * {@code throttle_time_ms} (the proxy closes the connection otherwise, as for a failing filter).
     */
    public RequestFilterResultBuilder withResponseSizeHook(ResponseSizeHook hook) {
        requireOneOnAForward("withResponseSizeHook", "response size hook", responseSizeHook);
        this.responseSizeHook = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /** A hook belongs to a forwarded request, one of each kind per filter. */
    private void requireOneOnAForward(String method, String kind, Object attached) {
        if (message == null) {
            throw new IllegalStateException(method + " follows forward(header, request)");
        }
        if (attached != null) {
            throw new IllegalStateException("a forwarded request has at most one " + kind + " per filter");
        }
    }

    public RequestFilterResultBuilder withCloseConnection() {
        this.close = true;
        return this;
    }

    public RequestFilterResult build() {
        if (!decided && !close) {
            throw new IllegalStateException("choose forward, shortCircuitResponse, errorResponse or drop (or withCloseConnection)");
        }
        return new Result(header, message, response, responseHeader, drop || (!decided && close), close, responseHook,
                responseSizeHook);
    }

    public CompletionStage<RequestFilterResult> completed() {
        return CompletableFuture.completedFuture(build());
    }

    private void decide() {
        if (decided) {
            throw new IllegalStateException("a request filter result has exactly one outcome");
        }
        decided = true;
    }

    private record Result(RequestHeaderData header, ApiMessage message, ApiMessage shortCircuitResponse,
                          ResponseHeaderData shortCircuitResponseHeader, boolean drop, boolean closeConnection, ResponseHook responseHook,
                          ResponseSizeHook responseSizeHook)
            implements RequestFilterResult {
    }
}
