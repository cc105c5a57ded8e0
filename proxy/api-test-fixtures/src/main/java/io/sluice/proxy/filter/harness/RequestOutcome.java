package io.sluice.proxy.filter.harness;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseHook;
import io.sluice.proxy.filter.ResponseSizeHook;

/**
 * What a filter did with one request, read as the proxy's FilterHandler would carry it out: forwarded (with the
 * correlation id, api key and version put back, since those are the proxy's), answered locally (the answer's header
 * carrying the request's correlation id), dropped, failed (a throw, a failed stage, a null result or a forwarded message
 * of another API all close the connection in the proxy), or still pending. Read it once {@link #verdict()} is no longer
 * {@link Verdict#PENDING}; an accessor for another verdict fails the test with what did happen.
 */
public final class RequestOutcome {

    private final ApiKeys apiKey;
    private final RequestHeaderData sentHeader;
    private final boolean handled;
    private final CompletableFuture<RequestFilterResult> result;
    private final RuntimeException thrown;

    RequestOutcome(ApiKeys apiKey, RequestHeaderData sentHeader, boolean handled, CompletableFuture<RequestFilterResult> result,
                   RuntimeException thrown) {
        this.apiKey = apiKey;
        this.sentHeader = sentHeader;
        this.handled = handled;
        this.result = result;
        this.thrown = thrown;
    }

    /** Whether the filter was asked at all: false when its {@code shouldHandleRequest} declined (the request passes unchanged). */
    public boolean handled() {
        return handled;
    }

    public int correlationId() {
        return sentHeader.correlationId();
    }

    public short apiVersion() {
        return sentHeader.requestApiVersion();
    }

    public ApiKeys apiKey() {
        return apiKey;
    }

    /** The stage the filter returned, for a test that completes it from elsewhere or waits on it. */
    CompletableFuture<RequestFilterResult> stage() {
        return result;
    }

    public Verdict verdict() {
        if (thrown != null) {
            return Verdict.FAILED;
        }
        if (!result.isDone()) {
            return Verdict.PENDING;
        }
        if (result.isCompletedExceptionally()) {
            return Verdict.FAILED;
        }
        RequestFilterResult r = result.join();
        if (r == null) {
            return Verdict.FAILED;
        }
        if (r.shortCircuitResponse() != null) {
            return Verdict.ANSWERED;
        }
        if (r.drop()) {
            return Verdict.DROPPED;
        }
        if (r.message() != null && r.message().apiKey() != apiKey.id) {
            return Verdict.FAILED;
        }
        return r.message() != null ? Verdict.FORWARDED : Verdict.DROPPED;
    }

    /** The request as it would go towards the broker. */
    public ApiMessage forwarded() {
        expect(Verdict.FORWARDED);
        return result.join().message();
    }

    /** The forwarded request's header, with the correlation id, api key and version the proxy keeps. */
    public RequestHeaderData forwardedHeader() {
        expect(Verdict.FORWARDED);
        RequestHeaderData header = result.join().header();
        header.setCorrelationId(sentHeader.correlationId());
        header.setRequestApiKey(apiKey.id);
        header.setRequestApiVersion(sentHeader.requestApiVersion());
        return header;
    }

    /** The hook the filter attached to the forwarded request's response, or null; {@link FilterHarness#response(RequestOutcome, ApiMessage)} runs it. */
    public ResponseHook responseHook() {
        expect(Verdict.FORWARDED);
        return result.join().responseHook();
    }

    /** The size hook the filter attached to the forwarded request's response, or null; {@link FilterHarness#response(RequestOutcome, ApiMessage)} runs it. */
    public ResponseSizeHook responseSizeHook() {
        expect(Verdict.FORWARDED);
        return result.join().responseSizeHook();
    }

    /** The filter's own answer to the request (short-circuit), which the client gets in its turn. */
    public ApiMessage answer() {
        expect(Verdict.ANSWERED);
        return result.join().shortCircuitResponse();
    }

    /** The answer's header: the filter's, or an empty one, with the request's correlation id as the proxy sets it. */
    public ResponseHeaderData answerHeader() {
        expect(Verdict.ANSWERED);
        ResponseHeaderData header = result.join().shortCircuitResponseHeader();
        return (header != null ? header : new ResponseHeaderData()).setCorrelationId(sentHeader.correlationId());
    }

    /** Whether the filter asked for the connection to be closed after this request (alongside its verdict). */
    public boolean closesConnection() {
        return verdict() != Verdict.PENDING && verdict() != Verdict.FAILED && result.join().closeConnection();
    }

    /** Why the proxy would close the connection: the exception thrown or the stage's failure (unwrapped), or what the result broke. */
    public Throwable failure() {
        expect(Verdict.FAILED);
        if (thrown != null) {
            return thrown;
        }
        if (result.isCompletedExceptionally()) {
            return Outcomes.causeOf(result);
        }
        RequestFilterResult r = result.join();
        if (r == null) {
            return new IllegalStateException("filter completed with a null result");
        }
        return new IllegalArgumentException("a filter forwarded " + ApiKeys.forId(r.message().apiKey()) + " in place of " + apiKey);
    }

    private void expect(Verdict wanted) {
        Verdict actual = verdict();
        if (actual != wanted) {
            throw new AssertionError("expected the " + apiKey + " request #" + sentHeader.correlationId() + " to be " + wanted + " but it was " + actual
                    + (actual == Verdict.FAILED ? ": " + failure() : ""));
        }
    }

    @Override
    public String toString() {
        return apiKey + " request #" + sentHeader.correlationId() + ": " + verdict();
    }
}
