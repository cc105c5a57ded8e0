package io.sluice.proxy.filter.harness;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * What a filter did with one response (its response hook first, when the request carried one, then its
 * {@code onResponse}): forwarded towards the client, dropped, failed (which closes the connection in the proxy) or
 * still pending. An accessor for another verdict fails the test with what did happen.
 */
public final class ResponseOutcome {

    private final ApiKeys apiKey;
    private final int correlationId;
    private final boolean handled;
    private final CompletableFuture<ResponseFilterResult> result;

    ResponseOutcome(ApiKeys apiKey, int correlationId, boolean handled, CompletableFuture<ResponseFilterResult> result) {
        this.apiKey = apiKey;
        this.correlationId = correlationId;
        this.handled = handled;
        this.result = result;
    }

    /** Whether the filter's {@code onResponse} was asked: false when {@code shouldHandleResponse} declined. */
    public boolean handled() {
        return handled;
    }

    CompletableFuture<ResponseFilterResult> stage() {
        return result;
    }

    public Verdict verdict() {
        if (!result.isDone()) {
            return Verdict.PENDING;
        }
        if (result.isCompletedExceptionally()) {
            return Verdict.FAILED;
        }
        ResponseFilterResult r = result.join();
        if (r == null) {
            return Verdict.FAILED;
        }
        if (r.drop()) {
            return Verdict.DROPPED;
        }
        return r.message() != null && r.message().apiKey() != apiKey.id ? Verdict.FAILED : Verdict.FORWARDED;
    }

    /** The response as it would go towards the client. */
    public ApiMessage forwarded() {
        expect(Verdict.FORWARDED);
        return result.join().message();
    }

    /** Its header, with the correlation id the proxy keeps. */
    public ResponseHeaderData forwardedHeader() {
        expect(Verdict.FORWARDED);
        return result.join().header().setCorrelationId(correlationId);
    }

    public boolean closesConnection() {
        Verdict v = verdict();
        return v != Verdict.PENDING && v != Verdict.FAILED && result.join().closeConnection();
    }

    public Throwable failure() {
        expect(Verdict.FAILED);
        if (result.isCompletedExceptionally()) {
            return Outcomes.causeOf(result);
        }
        ResponseFilterResult r = result.join();
        return r == null ? new IllegalStateException("filter completed with a null result")
                : new IllegalArgumentException("a filter forwarded " + ApiKeys.forId(r.message().apiKey()) + " in place of " + apiKey);
    }

    private void expect(Verdict wanted) {
        Verdict actual = verdict();
        if (actual != wanted) {
            throw new AssertionError("expected the " + apiKey + " response #" + correlationId + " to be " + wanted + " but it was " + actual
                    + (actual == Verdict.FAILED ? ": " + failure() : ""));
        }
    }

    @Override
    public String toString() {
        return apiKey + " response #" + correlationId + ": " + verdict();
    }
}
