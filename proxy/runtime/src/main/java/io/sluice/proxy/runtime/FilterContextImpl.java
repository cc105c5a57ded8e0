package io.sluice.proxy.runtime;

import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.EventExecutor;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.codec.OutOfBand;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.ClientTlsContext;
import io.sluice.proxy.filter.FilterContext;

/** The {@link FilterContext} of one filter instance on one connection. */
final class FilterContextImpl implements FilterContext {

    private final FilterHandler handler;
    private final ProxyConnection connection;
    private final String filterName;

    FilterContextImpl(FilterHandler handler, ProxyConnection connection, String filterName) {
        this.handler = handler;
        this.connection = connection;
        this.filterName = filterName;
    }

    @Override
    public String channelDescriptor() {
        return connection.descriptor();
    }

    @Override
    public String sessionId() {
        return connection.sessionId();
    }

    @Override
    public String virtualClusterName() {
        return connection.virtualCluster();
    }

    @Override
    public String filterName() {
        return filterName;
    }

    @Override
    public Optional<ClientTlsContext> clientTlsContext() {
        SslHandler ssl = connection.frontend().pipeline().get(SslHandler.class);
        if (ssl == null || !ssl.handshakeFuture().isSuccess()) {
            return Optional.empty();
        }
        SSLSession session = ssl.engine().getSession();
        Optional<X509Certificate> peer;
        try {
            Certificate[] chain = session.getPeerCertificates();
            peer = chain.length > 0 && chain[0] instanceof X509Certificate x ? Optional.of(x) : Optional.empty();
        } catch (SSLPeerUnverifiedException e) {
            peer = Optional.empty();
        }
        return Optional.of(new ClientTlsContext(session.getProtocol(), session.getCipherSuite(),
                sniHostname(session), peer));
    }

    @Override
    public SocketAddress clientAddress() {
        return connection.frontend().remoteAddress();
    }

    @Override
    public long bytesFromClient() {
        return connection.bytesFromClient();
    }

    @Override
    public long bytesToClient() {
        return connection.bytesToClient();
    }

    private static Optional<String> sniHostname(SSLSession session) {
        if (session instanceof ExtendedSSLSession extended) {
            return extended.getRequestedServerNames().stream()
                    .filter(SNIHostName.class::isInstance)
                    .map(n -> ((SNIHostName) n).getAsciiName())
                    .findFirst();
        }
        return Optional.empty();
    }

    @Override
    public Optional<AuthenticatedPrincipal> principal() {
        return connection.principal();
    }

    @Override
    public void authenticated(AuthenticatedPrincipal principal) {
        connection.principal(principal);
    }

    @Override
    public ScheduledExecutorService eventLoop() {
        return connection.frontend().eventLoop();
    }

    @Override
    public void throttleClient(Duration duration) {
        connection.throttleClient(duration);
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
        boolean hasResponse = !(request instanceof ProduceRequestData produce && produce.acks() == 0);
        CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        DecodedRequest frame = new DecodedRequest(header, request, hasResponse, new OutOfBand(handler, response), null);
        if (eventLoop() instanceof EventExecutor loop && loop.inEventLoop()) {
            handler.sendOutOfBand(frame);
        } else {
            connection.frontend().eventLoop().execute(() -> handler.sendOutOfBand(frame));
        }
        return (CompletionStage<M>) response;
    }

    /** Metadata v12 is the first to accept topic ids in requests. */
    private static final short METADATA_BY_ID_VERSION = 12;

    @Override
    public CompletionStage<Map<Uuid, String>> topicNames(Collection<Uuid> topicIds) {
        Map<Uuid, String> cache = connection.topicNames();
        Map<Uuid, String> names = new HashMap<>();
        MetadataRequestData request = new MetadataRequestData()
                .setAllowAutoTopicCreation(false);
        for (Uuid id : topicIds) {
            String name = cache.get(id);
            if (name != null) {
                names.put(id, name);
            } else if (!Uuid.ZERO_UUID.equals(id)) {
                request.topics().add(new MetadataRequestData.MetadataRequestTopic().setTopicId(id).setName(null));
            }
        }
        if (request.topics().isEmpty()) {
            return CompletableFuture.completedFuture(names);
        }
        return this.<MetadataResponseData>sendRequest(new RequestHeaderData().setRequestApiVersion(METADATA_BY_ID_VERSION), request)
                .thenApply(response -> {
                    for (MetadataResponseData.MetadataResponseTopic t : response.topics()) {
                        if (t.errorCode() == 0 && t.name() != null) {
                            cache.put(t.topicId(), t.name());
                            names.put(t.topicId(), t.name());
                        }
                    }
                    return names;
                });
    }
}
