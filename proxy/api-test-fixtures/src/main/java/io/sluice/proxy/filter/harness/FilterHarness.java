package io.sluice.proxy.filter.harness;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.proxy.filter.ClientTlsContext;
import io.sluice.proxy.filter.ConnectionFilter;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.proxy.filter.ResponseHook;
import io.sluice.proxy.filter.ResponseSizeHook;
import io.sluice.proxy.filter.TypedFilters;

/**
 * Runs one filter without a proxy or a broker, for unit tests (Kroxylicious's filter-test-support, for Sluice's API).
 * In: a filter, or a factory and its config; then requests and responses built with kafka-clients' {@code *Data}
 * classes. Out: a {@link RequestOutcome} or {@link ResponseOutcome} per message, saying what the proxy would do with it
 * (forward, answer locally, drop, close the connection), the requests the filter sent of its own ({@link SentRequest},
 * answered by the test), and the metrics it registered.
 *
 * <p>The filter runs on the event loop of a Netty {@code EmbeddedChannel}, the test's own thread: its callbacks, the
 * tasks it gives {@code context.eventLoop()} and the stages it chains there run when the test calls in, and its timers
 * fire when the test moves the frozen clock ({@link #advanceTime}). Typed filters (the per-API interfaces) are
 * dispatched as the proxy dispatches them. Each message is handed to the filter as the proxy would, one at a time: the
 * harness does not queue a second message behind a pending one, which is the proxy's job (FilterHandler), so a test
 * completes or inspects one outcome before it sends the next in the same direction. A {@link ConnectionFilter} is told
 * the connection opened before the first message ({@link #open}) and closed when the test says so
 * ({@link #closeConnection}); a response is handed to the filter decoded whatever its
 * {@code requiresDecodedResponse} says, as when another filter has the proxy decode it.</p>
 */
public final class FilterHarness implements AutoCloseable {

    /** The filter name a harness uses when the test gives none. */
    public static final String DEFAULT_FILTER_NAME = "filter-under-test";
    /** The virtual cluster the context reports. */
    public static final String VIRTUAL_CLUSTER = "harness";

    private final EmbeddedChannel channel;
    private final RequestFilter requests;
    private final ResponseFilter responses;
    private final HarnessFilterContext context;
    private final MeterRegistry registry;
    private final ConnectionFilter connection;
    /** The factory's {@code close(initializationData)}, for a harness made from a factory; run once by {@link #close}. */
    private Runnable closeFactory;
    private boolean opened;
    private boolean closed;
    private int nextCorrelationId = 1;

    private FilterHarness(EmbeddedChannel channel, MeterRegistry registry, String filterName, Filter filter) {
        this.channel = channel;
        this.registry = registry;
        this.connection = filter instanceof ConnectionFilter c ? c : null;
        this.requests = TypedFilters.requestFilter(filter);
        this.responses = TypedFilters.responseFilter(filter);
        this.context = new HarnessFilterContext(filterName, VIRTUAL_CLUSTER, channel);
    }

    /** A harness around a filter instance. */
    public static FilterHarness of(Filter filter) {
        EmbeddedChannel channel = newChannel();
        return new FilterHarness(channel, new SimpleMeterRegistry(), DEFAULT_FILTER_NAME, filter);
    }

    /** A harness around the filter {@code factory} makes, initialised with {@code config} as the proxy would at start-up. */
    public static <C, I> FilterHarness of(FilterFactory<C, I> factory, C config) {
        return of(DEFAULT_FILTER_NAME, factory, config);
    }

    /** As {@link #of(FilterFactory, Object)}, the definition named {@code filterName} (metrics and logs carry it). */
    public static <C, I> FilterHarness of(String filterName, FilterFactory<C, I> factory, C config) {
        EmbeddedChannel channel = newChannel();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HarnessFactoryContext factoryContext = new HarnessFactoryContext(filterName, registry, channel.eventLoop());
        I shared = factory.initialize(factoryContext, config);
        FilterHarness harness = new FilterHarness(channel, registry, filterName, factory.createFilter(factoryContext, shared));
        harness.closeFactory = () -> factory.close(shared);
        return harness;
    }

    private static EmbeddedChannel newChannel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime();
        return channel;
    }

    // ---- requests ----

    /** Sends {@code request} at the latest version kafka-clients knows, as a client with id {@code harness} would. */
    public RequestOutcome request(ApiMessage request) {
        return request(ApiKeys.forId(request.apiKey()).latestVersion(), request);
    }

    public RequestOutcome request(short apiVersion, ApiMessage request) {
        ApiKeys apiKey = ApiKeys.forId(request.apiKey());
        return request(new RequestHeaderData().setRequestApiKey(apiKey.id).setRequestApiVersion(apiVersion).setClientId("harness"), request);
    }

    /** Sends {@code request} with this header; the correlation id is the harness's (the next of 1, 2, 3...). */
    public RequestOutcome request(RequestHeaderData header, ApiMessage request) {
        open();
        ApiKeys apiKey = ApiKeys.forId(request.apiKey());
        header.setRequestApiKey(apiKey.id).setCorrelationId(nextCorrelationId++);
        RequestHeaderData sent = header.duplicate();
        if (requests == null || !requests.shouldHandleRequest(apiKey, header.requestApiVersion())) {
            return new RequestOutcome(apiKey, sent, false,
                    CompletableFuture.completedFuture(context.requestFilterResultBuilder().forward(header, request).build()), null);
        }
        CompletionStage<RequestFilterResult> stage;
        try {
            stage = requests.onRequest(apiKey, header.requestApiVersion(), header, request, context);
        } catch (RuntimeException e) {
            return new RequestOutcome(apiKey, sent, true, new CompletableFuture<>(), e);
        }
        RequestOutcome outcome = new RequestOutcome(apiKey, sent, true, stage.toCompletableFuture(), null);
        runPendingTasks();
        return outcome;
    }

    // ---- responses ----

    /**
     * The broker's {@code response} to a request the filter forwarded: runs the size hook the filter attached to it
     * first (on the response's encoded size; the throttle it asks for is raised in the bytes the rest then reads), then
     * its response hook, then the filter's {@code onResponse}, as the proxy does.
     */
    public ResponseOutcome response(RequestOutcome forwardedRequest, ApiMessage response) {
        ResponseHook hook = forwardedRequest.responseHook();
        ResponseSizeHook sizeHook = forwardedRequest.responseSizeHook();
        ApiMessage arrived = response;
        if (sizeHook != null) {
            open();
            try {
                arrived = SizeHookRun.arrive(sizeHook, forwardedRequest.correlationId(), forwardedRequest.apiVersion(), response);
            } catch (RuntimeException e) {
                ResponseOutcome failed = new ResponseOutcome(ApiKeys.forId(response.apiKey()), forwardedRequest.correlationId(), false,
                        CompletableFuture.failedFuture(e));
                runPendingTasks();
                return failed;
            }
        }
        return response(forwardedRequest.correlationId(), forwardedRequest.apiVersion(), hook, arrived);
    }

    /** A response at the latest version to a request the filter did not see (or need not have). */
    public ResponseOutcome response(ApiMessage response) {
        return response(ApiKeys.forId(response.apiKey()).latestVersion(), response);
    }

    public ResponseOutcome response(short apiVersion, ApiMessage response) {
        return response(nextCorrelationId++, apiVersion, null, response);
    }

    private ResponseOutcome response(int correlationId, short apiVersion, ResponseHook hook, ApiMessage response) {
        open();
        ApiKeys apiKey = ApiKeys.forId(response.apiKey());
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        boolean handled = responses != null && responses.shouldHandleResponse(apiKey, apiVersion);
        CompletableFuture<Void> hooked = hook == null ? CompletableFuture.completedFuture(null) : call(() -> hook.onResponse(response));
        CompletableFuture<ResponseFilterResult> result = hooked.thenCompose(done -> handled
                ? call(() -> responses.onResponse(apiKey, apiVersion, header, response, context))
                : CompletableFuture.completedFuture(context.responseFilterResultBuilder().forward(header, response).build()));
        ResponseOutcome outcome = new ResponseOutcome(apiKey, correlationId, handled, result);
        runPendingTasks();
        return outcome;
    }

    /** A throw from the filter's callback is a failed stage to the proxy: the same close. */
    private static <T> CompletableFuture<T> call(java.util.function.Supplier<CompletionStage<T>> callback) {
        try {
            return callback.get().toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    // ---- the connection's life ----

    /**
     * Opens the connection for a {@link ConnectionFilter}: {@code onConnectionOpened} runs, as the proxy runs it before
     * the first request. The first message the harness hands the filter opens it too; call this first to see the
     * opening alone, after setting the {@link #clientAddress}. Once only; nothing for other filters.
     */
    public FilterHarness open() {
        if (!opened && connection != null) {
            opened = true;
            connection.onConnectionOpened(context);
            runPendingTasks();
        }
        opened = true;
        return this;
    }

    /**
     * Closes the connection: a {@link ConnectionFilter}'s {@code onConnectionClosed} runs (after opening it if no message
     * did), as the proxy runs it once the socket has closed. Once only; {@link #close()} (the harness's end) does not
     * call it.
     */
    public FilterHarness closeConnection() {
        open();
        if (!closed && connection != null) {
            closed = true;
            connection.onConnectionClosed(context);
            runPendingTasks();
        }
        closed = true;
        return this;
    }

    /** The client's address the context reports ({@link HarnessFilterContext#DEFAULT_CLIENT_ADDRESS} unless set). */
    public FilterHarness clientAddress(SocketAddress address) {
        context.clientAddress(address);
        return this;
    }

    /** The connection's byte counts so far, as {@code context.bytesFromClient()} and {@code bytesToClient()} report them. */
    public FilterHarness clientBytes(long fromClient, long toClient) {
        context.clientBytes(fromClient, toClient);
        return this;
    }

    // ---- the event loop and the clock ----

    /** Runs the tasks the filter gave its event loop (and what they chained there). */
    public void runPendingTasks() {
        channel.runPendingTasks();
    }

    /** Moves the frozen clock on: the filter's timers due by then fire, then the tasks they queued run. */
    public void advanceTime(Duration by) {
        channel.advanceTimeBy(by.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        channel.runPendingTasks();
    }

    /**
     * Waits for a stage the filter completes on a thread of its own (a KMS call, say), running the event loop's tasks
     * meanwhile; {@code bound} is how long before the test fails, never a wait that is expected to pass.
     */
    public RequestOutcome await(RequestOutcome outcome, Duration bound) throws TimeoutException, InterruptedException {
        awaitStage(outcome.stage(), bound);
        return outcome;
    }

    public ResponseOutcome await(ResponseOutcome outcome, Duration bound) throws TimeoutException, InterruptedException {
        awaitStage(outcome.stage(), bound);
        return outcome;
    }

    private void awaitStage(CompletableFuture<?> stage, Duration bound) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!stage.isDone()) {
            channel.runPendingTasks();
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("the filter's stage did not complete within " + bound.toMillis() + " ms");
            }
            try {
                stage.get(1, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                // done exceptionally (read through the outcome), or not yet: look again
            }
        }
        channel.runPendingTasks();
    }

    // ---- what the filter sees and did ----

    /** The context the filter is handed; {@code authenticated(...)} on it is what an authenticating filter would call. */
    public HarnessFilterContext context() {
        return context;
    }

    /** The client connected over TLS with these details (the context answers empty otherwise). */
    public FilterHarness clientTls(ClientTlsContext tls) {
        context.clientTls(tls);
        return this;
    }

    /** A topic the cluster knows by id, for {@code context.topicNames}. */
    public FilterHarness clusterTopic(Uuid id, String name) {
        context.clusterTopic(id, name);
        return this;
    }

    /** The requests the filter sent of its own, in order. */
    public List<SentRequest> sentRequests() {
        return List.copyOf(context.sent());
    }

    /**
     * The client throttles the filter asked for ({@code context.throttleClient}), in order: what the proxy would mute
     * the connection for (the proxy extends a mute to the later end and ignores zero or negative durations).
     */
    public List<Duration> clientThrottles() {
        return List.copyOf(context.throttles());
    }

    /** Where a filter made by a factory registered its metrics. */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    /**
     * Ends the harness: for one made from a factory, the factory's {@code close} first (as the proxy calls it at
     * shutdown: threads and clients it started stop), then the event loop. It does not call
     * {@link #closeConnection()}. Once only.
     */
    @Override
    public void close() {
        Runnable factory = closeFactory;
        closeFactory = null;
        try {
            if (factory != null) {
                factory.run();
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }
}
