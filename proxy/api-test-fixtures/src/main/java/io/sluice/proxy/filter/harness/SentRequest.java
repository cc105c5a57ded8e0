package io.sluice.proxy.filter.harness;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

import io.netty.channel.embedded.EmbeddedChannel;

/**
 * A request the filter sent of its own with {@code FilterContext.sendRequest}: the test reads it and plays the broker,
 * answering or failing it. The stage the filter holds completes on the event loop, as in the proxy.
 */
public final class SentRequest {

    private final RequestHeaderData header;
    private final ApiMessage request;
    private final CompletableFuture<ApiMessage> response;
    private final EmbeddedChannel channel;

    SentRequest(RequestHeaderData header, ApiMessage request, CompletableFuture<ApiMessage> response, EmbeddedChannel channel) {
        this.header = header;
        this.request = request;
        this.response = response;
        this.channel = channel;
    }

    /**
     * The header as the proxy would send it: the api key set; a null client id becomes {@code sluice-<filter name>} (a new
     * {@code RequestHeaderData}'s is the empty string, which stays).
     */
    public RequestHeaderData header() {
        return header;
    }

    public ApiMessage request() {
        return request;
    }

    /** Whether an answer or a failure was given already (a Produce with acks=0 is answered with null at once). */
    public boolean isAnswered() {
        return response.isDone();
    }

    /** Completes the filter's stage with {@code answer}, then runs what the filter chained on it. */
    public void answer(ApiMessage answer) {
        channel.eventLoop().execute(() -> response.complete(answer));
        channel.runPendingTasks();
    }

    /** Fails the filter's stage, as a closed broker connection would. */
    public void fail(Throwable error) {
        channel.eventLoop().execute(() -> response.completeExceptionally(error));
        channel.runPendingTasks();
    }
}
