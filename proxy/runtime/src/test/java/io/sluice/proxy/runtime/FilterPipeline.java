package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.DefaultChannelId;
import io.sluice.flow.WritabilityGate;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.codec.DecodedResponse;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/**
 * A client connection's pipeline from the sequencer to the broker, as ClientChannelInitializer builds it, without
 * sockets or codecs: the client is an {@link EmbeddedChannel} that decoded requests are written into and decoded
 * responses read out of, the broker another one behind the real {@link UpstreamForwarder} and {@link BackendHandler}.
 * What goes in: filters, then requests and broker responses built with kafka-clients' classes; what comes out: the
 * requests the broker got, the responses the client got, in order, and the connection's reads and state. Everything
 * runs on the test's thread, with the clock frozen.
 */
final class FilterPipeline implements AutoCloseable {

    static final Duration FILTER_TIMEOUT = Duration.ofSeconds(30);
    /** Small marks, so that a test makes a channel unwritable with a few bytes. */
    static final WriteBufferWaterMark SMALL = new WriteBufferWaterMark(8, 16);

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final EmbeddedChannel client;
    final EmbeddedChannel broker = new EmbeddedChannel();
    final ProxyConnection connection;
    private int nextCorrelationId = 1;

    FilterPipeline(Filter... filters) {
        VirtualClusterMetrics metrics = new ProxyMetrics(registry).forNode("vc", "bootstrap");
        client = new EmbeddedChannel(DefaultChannelId.newInstance(), false, false);
        client.config().setAutoRead(false);
        connection = new ProxyConnection(client, "vc", "gw", metrics);
        broker.pipeline().addLast(new BackendHandler(connection));
        List<NamedFilter> named = new ArrayList<>();
        for (int i = 0; i < filters.length; i++) {
            named.add(new NamedFilter("f" + i, filters[i]));
        }
        connection.decodePolicy(new FilterChainDecodePolicy(named));
        client.pipeline().addLast(WritabilityGate.NAME, WritabilityGate.closingStuckPeers(Duration.ZERO));
        client.pipeline().addLast("sequencer", new ResponseSequencer(metrics, connection));
        for (int i = 0; i < named.size(); i++) {
            client.pipeline().addLast("filter-" + i, new FilterHandler(named.get(i), connection, FILTER_TIMEOUT));
        }
        client.pipeline().addLast("upstream", new UpstreamForwarder(connection, c -> CompletableFuture.completedFuture(broker)));
        try {
            client.register();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        client.freezeTime();
        client.runPendingTasks();
    }

    /** A request from the client; its correlation id is the next of 1, 2, 3... */
    int send(ApiMessage body) {
        int id = nextCorrelationId++;
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(body.apiKey())
                .setRequestApiVersion(ApiKeys.forId(body.apiKey()).latestVersion()).setCorrelationId(id).setClientId("test");
        client.writeInbound(new DecodedRequest(header, body, true, null, null));
        client.runPendingTasks();
        return id;
    }

    /** The broker's answer to the client's request {@code correlationId}, as the response decoder would hand it on. */
    void brokerAnswers(int correlationId, ApiMessage body) {
        ApiKeys apiKey = ApiKeys.forId(body.apiKey());
        broker.writeInbound(new DecodedResponse(apiKey, apiKey.latestVersion(), new ResponseHeaderData().setCorrelationId(correlationId), body, null, null));
        client.runPendingTasks();
    }

    /** The requests the broker got since the last call, in order (their correlation ids are the proxy's). */
    List<DecodedRequest> brokerReceived() {
        List<DecodedRequest> out = new ArrayList<>();
        Object msg;
        while ((msg = broker.readOutbound()) != null) {
            if (msg instanceof DecodedRequest r) {
                out.add(r);
            }
        }
        return out;
    }

    /** The correlation ids of the responses the client got since the last call, in the order it got them. */
    List<Integer> clientReceived() {
        List<Integer> out = new ArrayList<>();
        Object msg;
        while ((msg = client.readOutbound()) != null) {
            if (msg instanceof DecodedResponse r) {
                out.add(r.correlationId());
            }
        }
        return out;
    }

    double filterErrors() {
        Counter counter = registry.find("sluice.filter.errors").counter();
        return counter == null ? 0 : counter.count();
    }

    static ListOffsetsRequestData listOffsets() {
        return new ListOffsetsRequestData().setReplicaId(-1);
    }

    static MetadataRequestData metadata() {
        return new MetadataRequestData();
    }

    static ListOffsetsResponseData listOffsetsAnswer() {
        return new ListOffsetsResponseData();
    }

    static MetadataResponseData metadataAnswer() {
        return new MetadataResponseData();
    }

    @Override
    public void close() {
        client.finishAndReleaseAll();
        broker.finishAndReleaseAll();
    }
}
