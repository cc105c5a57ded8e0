package io.sluice.proxy.filter.harness;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.ClientTlsContext;
import io.sluice.proxy.filter.FilterContext;

/**
 * The {@link FilterContext} a {@link FilterHarness} hands its filter. It behaves as the proxy's does where a filter can
 * tell (the same result builders, {@code sendRequest}'s version check, api key and client id, a Produce with acks=0
 * answered with null at once, a principal every later call sees), with two stand-ins for the connection: the requests
 * a filter sends of its own are recorded for the test to answer ({@link SentRequest}), {@link #topicNames} answers
 * from the topics the test declared ({@link FilterHarness#clusterTopic}) instead of asking a broker, and the client
 * throttles it asks for ({@link #throttleClient}) are recorded for the test to read ({@link FilterHarness#clientThrottles}), and the client's
 * address and byte counts are what the test set ({@link FilterHarness#clientAddress}, {@link FilterHarness#clientBytes}).
 */
public final class HarnessFilterContext implements FilterContext {

    private final String filterName;
    private final String virtualCluster;
    private final String sessionId;
    private final EmbeddedChannel channel;
    private final List<SentRequest> sent = new ArrayList<>();
    private final List<Duration> throttles = new ArrayList<>();
    private final Map<Uuid, String> clusterTopics = new HashMap<>();
    private ClientTlsContext tls;
    private SocketAddress clientAddress = DEFAULT_CLIENT_ADDRESS;
    private long bytesFromClient;
    private long bytesToClient;
    private AuthenticatedPrincipal principal;

    /** The client address a harness reports unless the test sets one: TEST-NET-1 (RFC 5737), port 50000. */
    public static final InetSocketAddress DEFAULT_CLIENT_ADDRESS = new InetSocketAddress("192.0.2.1", 50000);

    HarnessFilterContext(String filterName, String virtualCluster, EmbeddedChannel channel) {
        this.filterName = filterName;
        this.virtualCluster = virtualCluster;
        this.sessionId = virtualCluster + "-harness";
        this.channel = channel;
    }

    @Override
    public String channelDescriptor() {
        return "harness -> " + virtualCluster + " [" + sessionId + "]";
    }

    @Override
    public String sessionId() {
        return sessionId;
    }

    @Override
    public String virtualClusterName() {
        return virtualCluster;
    }

    @Override
    public String filterName() {
        return filterName;
    }

    @Override
    public Optional<ClientTlsContext> clientTlsContext() {
        return Optional.ofNullable(tls);
    }

    void clientTls(ClientTlsContext tls) {
        this.tls = tls;
    }

    @Override
    public SocketAddress clientAddress() {
        return clientAddress;
    }

    void clientAddress(SocketAddress address) {
        this.clientAddress = address;
    }

    @Override
    public long bytesFromClient() {
        return bytesFromClient;
    }

    @Override
    public long bytesToClient() {
        return bytesToClient;
    }

    void clientBytes(long fromClient, long toClient) {
        this.bytesFromClient = fromClient;
        this.bytesToClient = toClient;
    }

    @Override
    public Optional<AuthenticatedPrincipal> principal() {
        return Optional.ofNullable(principal);
    }

    @Override
    public void authenticated(AuthenticatedPrincipal principal) {
        this.principal = principal;
    }

    @Override
    public ScheduledExecutorService eventLoop() {
        return channel.eventLoop();
    }

    /** Recorded as asked, zero and negative included: what the proxy makes of them is the runtime's to test. */
    @Override
    public void throttleClient(Duration duration) {
        throttles.add(duration);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <M extends ApiMessage> CompletionStage<M> sendRequest(RequestHeaderData header, ApiMessage request) {
        ApiKeys apiKey = ApiKeys.forId(request.apiKey());
        short version = header.requestApiVersion();
        if (!apiKey.isVersionSupported(version)) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "sendRequest: " + apiKey + " version " + version + " (set header.requestApiVersion) is not supported"));
        }
        header.setRequestApiKey(apiKey.id);
        if (header.clientId() == null) {
            header.setClientId("sluice-" + filterName);
        }
        CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        sent.add(new SentRequest(header, request, response, channel));
        if (request instanceof ProduceRequestData produce && produce.acks() == 0) {
            response.complete(null);
        }
        return (CompletionStage<M>) response;
    }

    @Override
    public CompletionStage<Map<Uuid, String>> topicNames(Collection<Uuid> topicIds) {
        Map<Uuid, String> names = new HashMap<>();
        for (Uuid id : topicIds) {
            String name = clusterTopics.get(id);
            if (name != null) {
                names.put(id, name);
            }
        }
        return CompletableFuture.completedFuture(names);
    }

    void clusterTopic(Uuid id, String name) {
        clusterTopics.put(id, name);
    }

    List<SentRequest> sent() {
        return sent;
    }

    List<Duration> throttles() {
        return throttles;
    }
}
