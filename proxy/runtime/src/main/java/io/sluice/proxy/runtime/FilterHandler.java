package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.codec.DecodedResponse;
import io.sluice.proxy.codec.RequestDropped;
import io.sluice.proxy.codec.RequestFrame;
import io.sluice.proxy.codec.ResponseFrame;
import io.sluice.proxy.filter.ConnectionFilter;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.proxy.filter.ResponseHook;
import io.sluice.proxy.filter.ResponseSizeHook;

/**
 * Runs one filter instance in the client pipeline: requests pass it inbound, responses outbound. While the
 * filter works on a message asynchronously, later messages in the same direction queue behind it, so a
 * filter never reorders traffic and sees messages one at a time. Results are applied on the event loop
 * whatever thread completed them; a result that never comes closes the connection after the timeout.
 */
final class FilterHandler extends ChannelDuplexHandler {

    private record QueuedWrite(Object msg, ChannelPromise promise) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(FilterHandler.class);

    private final String filterName;
    private final ConnectionFilter connectionFilter;
    private final RequestFilter requestFilter;
    private final ResponseFilter responseFilter;
    private final ProxyConnection connection;
    private final long timeoutNanos;
    private final FilterContextImpl context;
    private final ArrayDeque<Object> queuedRequests = new ArrayDeque<>();
    private final ArrayDeque<QueuedWrite> queuedResponses = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean requestBusy;
    private boolean responseBusy;
    private boolean removed;
    /** Whether the filter was told the connection opened, so that it is told it closed. */
    private boolean opened;

    FilterHandler(NamedFilter filter, ProxyConnection connection, Duration timeout) {
        this.filterName = filter.name();
        this.connectionFilter = filter.filter() instanceof ConnectionFilter c ? c : null;
        this.requestFilter = filter.requests();
        this.responseFilter = filter.responses();
        this.connection = connection;
        this.timeoutNanos = timeout.toNanos();
        this.context = new FilterContextImpl(this, connection, filterName);
    }

    String filterName() {
        return filterName;
    }

    ChannelHandlerContext ctx() {
        return ctx;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        removed = true;
        queuedRequests.forEach(FilterHandler::releaseAny);
        queuedRequests.clear();
        queuedResponses.forEach(q -> releaseAny(q.msg()));
        queuedResponses.clear();
    }

    // ---- the connection's life ----

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (connectionFilter != null && !connection.isClosing()) {
            opened = true;
            try {
                connectionFilter.onConnectionOpened(context);
            } catch (RuntimeException e) {
                fail("onConnectionOpened threw", e);
            }
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (opened) {
            opened = false;
            try {
                connectionFilter.onConnectionClosed(context);
            } catch (RuntimeException e) {
                // The connection is gone already: count and log, there is nothing left to close.
                connection.metrics().filterError(filterName);
                LOG.warn("{}: filter {} onConnectionClosed threw: {}", connection.descriptor(), filterName, e.toString());
            }
        }
        ctx.fireChannelInactive();
    }

    // ---- requests, client to broker ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (requestBusy || !queuedRequests.isEmpty()) {
            // An unauthenticated client may not pile requests up behind, say, its token being validated.
            if (!connection.mayQueueRequest(queuedRequests.size())) {
                releaseAny(msg);
                return;
            }
            queuedRequests.addLast(msg);
            if (queuedRequests.size() == 1) {
                connection.requestsQueuedInFilter(true);
            }
            return;
        }
        handleRequest(msg);
    }

    private void handleRequest(Object msg) {
        if (!(msg instanceof DecodedRequest request) || requestFilter == null
                || !requestFilter.shouldHandleRequest(request.apiKey(), request.apiVersion())) {
            ctx.fireChannelRead(msg);
            return;
        }
        CompletionStage<RequestFilterResult> stage;
        try {
            stage = requestFilter.onRequest(request.apiKey(), request.apiVersion(), request.header(), request.body(), context);
        } catch (RuntimeException e) {
            request.release();
            fail("onRequest(" + request.apiKey() + ") threw", e);
            return;
        }
        CompletableFuture<RequestFilterResult> future = stage.toCompletableFuture();
        if (future.isDone()) {
            completeRequest(request, future);
            return;
        }
        requestBusy = true;
        ScheduledFuture<?> timer = ctx.executor().schedule(() -> timedOut("onRequest(" + request.apiKey() + ")"), timeoutNanos, TimeUnit.NANOSECONDS);
        future.whenComplete((r, e) -> onLoop(() -> {
            timer.cancel(false);
            if (removed || connection.isClosing()) {
                request.release();
                return;
            }
            requestBusy = false;
            completeRequest(request, future);
            boolean hadQueue = !queuedRequests.isEmpty();
            while (!requestBusy && !queuedRequests.isEmpty() && !removed) {
                handleRequest(queuedRequests.pollFirst());
            }
            if (hadQueue && queuedRequests.isEmpty() && !removed) {
                connection.requestsQueuedInFilter(false);
            }
            ctx.fireChannelReadComplete();
        }));
    }

    private void completeRequest(DecodedRequest request, CompletableFuture<RequestFilterResult> future) {
        RequestFilterResult result;
        try {
            result = future.join();
            if (result == null) {
                throw new IllegalStateException("filter completed with a null result");
            }
        } catch (RuntimeException e) {
            request.release();
            fail("onRequest(" + request.apiKey() + ") failed", e);
            return;
        }
        if (result.shortCircuitResponse() != null) {
            request.release();
            ResponseHeaderData header = result.shortCircuitResponseHeader() != null ? result.shortCircuitResponseHeader() : new ResponseHeaderData();
            header.setCorrelationId(request.correlationId());
            if (request.hasResponse()) {
                // Filters nearer the client that forwarded this request still see their hooks run on the answer.
                ctx.writeAndFlush(new DecodedResponse(request.apiKey(), request.apiVersion(), header, result.shortCircuitResponse(),
                        request.outOfBand(), null, request.responseHooks()));
            }
        } else if (result.drop()) {
            request.release();
            if (request.outOfBand() != null) {
                request.outOfBand().response().complete(null);
            } else if (request.hasResponse()) {
                ctx.writeAndFlush(new RequestDropped(request.correlationId()));
            }
        } else if (result.message() != null) {
            try {
                request.replace(result.header(), result.message());
            } catch (RuntimeException e) {
                request.release();
                fail("onRequest(" + request.apiKey() + ") forwarded a bad message", e);
                return;
            }
            if (result.responseHook() != null) {
                request.attachResponseHook(this, result.responseHook());
            }
            if (result.responseSizeHook() != null) {
                try {
                    request.attachResponseSizeHook(failingAsThisFilter(request.apiKey(), result.responseSizeHook()));
                } catch (IllegalStateException e) {
                    request.release();
                    fail("onRequest(" + request.apiKey() + ") attached a size hook its response cannot take", e);
                    return;
                }
            }
            ctx.fireChannelRead(request);
        }
        if (result.closeConnection()) {
            connection.close("filter " + filterName + " closed the connection", null);
        }
    }

    /** Injects a filter's own request just after this handler, towards the broker. */
    void sendOutOfBand(DecodedRequest request) {
        ctx.fireChannelRead(request);
        ctx.fireChannelReadComplete();
        if (!request.hasResponse()) {
            request.outOfBand().response().complete(null);
        }
    }

    // ---- responses, broker to client ----

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        // The answer to this filter's own out-of-band request never waits: the response the filter is busy
        // with may be waiting for exactly this answer.
        if (msg instanceof DecodedResponse response && response.outOfBand() != null && response.outOfBand().origin() == this) {
            promise.trySuccess();
            response.outOfBand().response().complete(response.body());
            response.release();
            return;
        }
        if (responseBusy || !queuedResponses.isEmpty()) {
            queuedResponses.addLast(new QueuedWrite(msg, promise));
            return;
        }
        handleResponse(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        // A response held back here is flushed when it is released.
        ctx.flush();
    }

    private void handleResponse(Object msg, ChannelPromise promise) {
        if (!(msg instanceof DecodedResponse response)) {
            ctx.write(msg, promise);
            return;
        }
        ResponseHook hook = response.takeResponseHook(this);
        if (hook == null) {
            filterResponse(response, promise);
            return;
        }
        // The hook the filter attached to the request runs first, under the same timeout as the filter's own callbacks.
        CompletionStage<Void> stage;
        try {
            stage = hook.onResponse(response.body());
        } catch (RuntimeException e) {
            response.release();
            fail("response hook (" + response.apiKey() + ") threw", e);
            promise.tryFailure(e);
            return;
        }
        awaitResponseStage(response, promise, "response hook (" + response.apiKey() + ")", stage, done -> filterResponse(response, promise));
    }

    private void filterResponse(DecodedResponse response, ChannelPromise promise) {
        if (responseFilter == null || !responseFilter.shouldHandleResponse(response.apiKey(), response.apiVersion())) {
            ctx.write(response, promise);
            return;
        }
        CompletionStage<ResponseFilterResult> stage;
        try {
            stage = responseFilter.onResponse(response.apiKey(), response.apiVersion(), response.header(), response.body(), context);
        } catch (RuntimeException e) {
            response.release();
            fail("onResponse(" + response.apiKey() + ") threw", e);
            promise.tryFailure(e);
            return;
        }
        awaitResponseStage(response, promise, "onResponse(" + response.apiKey() + ")", stage, result -> completeResponse(response, promise, result));
    }

    /**
     * Continues with {@code then} once {@code stage} completes, on the event loop; later responses queue behind it
     * meanwhile, and a stage that fails or does not complete within the timeout closes the connection.
     */
    private <T> void awaitResponseStage(DecodedResponse response, ChannelPromise promise, String what, CompletionStage<T> stage, Consumer<T> then) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        if (future.isDone()) {
            continueResponse(response, promise, what, future, then);
            return;
        }
        responseBusy = true;
        ScheduledFuture<?> timer = ctx.executor().schedule(() -> timedOut(what), timeoutNanos, TimeUnit.NANOSECONDS);
        future.whenComplete((r, e) -> onLoop(() -> {
            timer.cancel(false);
            if (removed || connection.isClosing()) {
                response.release();
                promise.tryFailure(new IllegalStateException("connection closed"));
                return;
            }
            responseBusy = false;
            continueResponse(response, promise, what, future, then);
            while (!responseBusy && !queuedResponses.isEmpty() && !removed) {
                QueuedWrite next = queuedResponses.pollFirst();
                handleResponse(next.msg(), next.promise());
            }
            ctx.flush();
        }));
    }

    private <T> void continueResponse(DecodedResponse response, ChannelPromise promise, String what, CompletableFuture<T> future, Consumer<T> then) {
        T value;
        try {
            value = future.join();
        } catch (RuntimeException e) {
            response.release();
            fail(what + " failed", e);
            promise.tryFailure(e);
            return;
        }
        then.accept(value);
    }

    private void completeResponse(DecodedResponse response, ChannelPromise promise, ResponseFilterResult result) {
        if (result == null) {
            response.release();
            IllegalStateException e = new IllegalStateException("filter completed with a null result");
            fail("onResponse(" + response.apiKey() + ") failed", e);
            promise.tryFailure(e);
            return;
        }
        if (result.drop()) {
            response.release();
            if (response.outOfBand() != null) {
                response.outOfBand().response().complete(null);
                promise.trySuccess();
            } else {
                ctx.write(new RequestDropped(response.correlationId()), promise);
            }
        } else {
            try {
                response.replace(result.header(), result.message());
            } catch (RuntimeException e) {
                response.release();
                fail("onResponse(" + response.apiKey() + ") forwarded a bad message", e);
                promise.tryFailure(e);
                return;
            }
            ctx.write(response, promise);
        }
        if (result.closeConnection()) {
            connection.close("filter " + filterName + " closed the connection", null);
        }
    }

    // ---- shared ----

    private void onLoop(Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
        } else {
            ctx.executor().execute(task);
        }
    }

    private void timedOut(String what) {
        if (!removed && !connection.isClosing()) {
            connection.metrics().filterError(filterName);
            connection.close("filter timed out", new TimeoutException(
                    "filter " + filterName + " did not complete " + what + " within " + Duration.ofNanos(timeoutNanos).toMillis() + " ms"));
        }
    }

    /**
     * Counts the filter's error and closes the connection with its reason. Called before a write's promise is failed:
     * a void promise's failure closes the connection as a client error, which would log the wrong reason, and a client
     * seeing the close could look for the error count before it was made.
     */
    /** A size hook runs in the broker connection's decoder; its failure is this filter's, and closes as one. */
    private ResponseSizeHook failingAsThisFilter(ApiKeys apiKey, ResponseSizeHook hook) {
        return bytes -> {
            try {
                return hook.onResponseSize(bytes);
            } catch (RuntimeException e) {
                fail("response size hook (" + apiKey + ") failed", e);
                return 0;
            }
        };
    }

    private void fail(String what, Throwable e) {
        connection.metrics().filterError(filterName);
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        connection.close("filter " + filterName + " " + what, cause);
    }

    private static void releaseAny(Object msg) {
        if (msg instanceof RequestFrame r) {
            r.release();
        } else if (msg instanceof ResponseFrame r) {
            r.release();
        } else {
            ReferenceCountUtil.release(msg);
        }
    }
}
