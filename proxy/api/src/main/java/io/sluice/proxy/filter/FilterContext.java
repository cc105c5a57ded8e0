package io.sluice.proxy.filter;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

/**
 * What a filter can see and do on its connection. One context per filter instance; all methods must be
 * called on the connection's event loop (which is where every filter callback runs).
 */
public interface FilterContext {

    /** A short description of the connection for log lines: client address, virtual cluster, gateway. */
    String channelDescriptor();

    /** A unique id for this client connection, stable for its lifetime. */
    String sessionId();

    /** The name of the virtual cluster the client connected to. */
    String virtualClusterName();

    /** The name of the filter definition this instance was created from. */
    String filterName();

    /** TLS details of the client connection, empty when the client connected in plaintext. */
    Optional<ClientTlsContext> clientTlsContext();

    /**
     * The client's address as the proxy's socket sees it: behind a load balancer that does not preserve it, the
     * balancer's.
     */
    SocketAddress clientAddress();

    /**
     * Bytes read from the client so far on this connection: its Kafka frames, size prefixes included (under TLS, the
     * decrypted bytes, not the TLS records). Final once {@link ConnectionFilter#onConnectionClosed} runs.
     */
    long bytesFromClient();

    /** Bytes written towards the client so far on this connection, counted as {@link #bytesFromClient} is. */
    long bytesToClient();

    /** The principal a filter authenticated on this connection, empty before (or without) authentication. */
    Optional<AuthenticatedPrincipal> principal();

    /**
     * Records that the client authenticated as {@code principal}. Every filter on the connection sees it
     * from then on; called again (re-authentication) it replaces the previous principal. The first call also
     * lifts the connection's pre-authentication limits (see {@link FilterFactory#authenticatesClients}).
     */
    void authenticated(AuthenticatedPrincipal principal);

    /** The connection's event loop, for timers; tasks run on the same thread as the filter's callbacks. */
    ScheduledExecutorService eventLoop();

    /**
     * Stops reading requests from the client for {@code duration}, as a Kafka broker mutes the connection of a client it
     * throttles (KIP-219): requests already read go on, responses keep flowing, and the client's further requests wait
     * in its socket until the time is up. Call it as the response that carries the throttle time
     * ({@code throttle_time_ms}) goes back, so the client's own back-off and the mute start together. A call while the
     * connection is throttled extends the mute to the later end, never shortens it; the proxy's own back-pressure is
     * kept apart, so reading resumes only when neither holds it. Zero or negative does nothing; more than an hour is an hour.
     */
    void throttleClient(Duration duration);

    // The defaults below are the whole behaviour, the same in the runtime and in the test fixtures' FilterHarness:
    // one home, so that a filter tested in the harness sees what it sees in a proxy.

    /** A heap buffer for building records; it is garbage-collected with the message that uses it. */
    default ByteBufferOutputStream createByteBufferOutputStream(int initialCapacity) {
        return new ByteBufferOutputStream(initialCapacity);
    }

    /** Forwards the request unchanged or modified: shorthand for {@code requestFilterResultBuilder().forward(h, r).completed()}. */
    default CompletionStage<RequestFilterResult> forwardRequest(RequestHeaderData header, ApiMessage request) {
        return requestFilterResultBuilder().forward(header, request).completed();
    }

    /** Forwards the response: shorthand for {@code responseFilterResultBuilder().forward(h, r).completed()}. */
    default CompletionStage<ResponseFilterResult> forwardResponse(ResponseHeaderData header, ApiMessage response) {
        return responseFilterResultBuilder().forward(header, response).completed();
    }

    default RequestFilterResultBuilder requestFilterResultBuilder() {
        return new RequestFilterResultBuilder();
    }

    default ResponseFilterResultBuilder responseFilterResultBuilder() {
        return new ResponseFilterResultBuilder();
    }

    /**
     * Sends a request of the filter's own to the broker. It passes the filters between this one and the
     * broker, and so does its response, which completes the stage (on the event loop) instead of reaching
     * the client. {@code header.requestApiVersion()} must be set; the api key and correlation id are filled in.
     * The stage completes with {@code null} for a request that has no response (a Produce with acks=0).
     */
    <M extends ApiMessage> CompletionStage<M> sendRequest(RequestHeaderData header, ApiMessage request);

    /**
     * The names of topics known by id: newer Produce (v13+) and Fetch (v13+) requests carry topic ids only.
     * Answered from a per-connection cache, or with an out-of-band Metadata request for the ids it lacks.
     * Ids the cluster does not know are absent from the map.
     */
    CompletionStage<Map<Uuid, String>> topicNames(Collection<Uuid> topicIds);
}
