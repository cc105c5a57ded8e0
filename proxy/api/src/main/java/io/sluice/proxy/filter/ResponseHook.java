package io.sluice.proxy.filter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Changes the response to one forwarded request, attached with
 * {@link RequestFilterResultBuilder#withResponseHook}. Made while the request is handled, so it already knows what was
 * asked, the version, the context and what the request was changed into: the filter keeps no map of what it owes.
 *
 * <p>It runs on the connection's event loop at its filter's place on the response path (after the filters nearer the
 * broker, before the filter's own {@link ResponseFilter#onResponse}, if any), also when the response was made by a
 * filter nearer the broker that short-circuited the request. The proxy decodes the response for it even when no
 * filter's {@code shouldHandleResponse} asks for it. The filter timeout applies to the returned stage; a hook that
 * throws or completes exceptionally closes the connection, like a failing filter. When the request is dropped, or the
 * connection ends before the response comes, the hook is discarded without being called.</p>
 */
@FunctionalInterface
public interface ResponseHook {

    /**
     * Changes {@code response} in place (records in it are views of the proxy's receive buffer, valid until it is
     * forwarded); the response goes on towards the client when the stage completes.
     */
    CompletionStage<Void> onResponse(ApiMessage response);

    /** A hook that does its work synchronously. */
    static ResponseHook of(Consumer<ApiMessage> change) {
        return response -> {
            change.accept(response);
            return CompletableFuture.completedFuture(null);
        };
    }
}
