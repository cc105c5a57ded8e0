package io.sluice.proxy.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.config.HostPort;
import io.sluice.proxy.codec.LeaderHints;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * Rewrites every broker address in a response to the proxy's address for that node, so a client never
 * learns where the brokers really are and never connects around the proxy. Built in: the proxy places it
 * nearest the broker on every connection, so user filters already see rewritten addresses.
 *
 * <p>Addresses appear in Metadata, DescribeCluster, FindCoordinator (single and batched forms), and, as
 * leader hints after a leadership change (KIP-951), in Produce v10+, Fetch v16+ and the share-group
 * ShareFetch and ShareAcknowledge responses.</p>
 */
public final class BrokerAddressFilter implements ResponseFilter {

    /** DescribeCluster endpointType for controllers: those ids are not broker node ids, leave them alone. */
    private static final byte CONTROLLER_ENDPOINTS = 2;

    private final NodeAdvertiser advertiser;

    public BrokerAddressFilter(NodeAdvertiser advertiser) {
        this.advertiser = advertiser;
    }

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return switch (apiKey) {
            case METADATA, DESCRIBE_CLUSTER, FIND_COORDINATOR -> true;
            default -> LeaderHints.mayCarry(apiKey, apiVersion);
        };
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        List<CompletableFuture<Void>> rewrites = new ArrayList<>();
        if (response instanceof MetadataResponseData m) {
            m.brokers().forEach(b -> rewrite(rewrites, b.nodeId(), b.host(), b.port(), a -> b.setHost(a.host()).setPort(a.port())));
        } else if (response instanceof DescribeClusterResponseData d) {
            if (d.endpointType() != CONTROLLER_ENDPOINTS) {
                d.brokers().forEach(b -> rewrite(rewrites, b.brokerId(), b.host(), b.port(), a -> b.setHost(a.host()).setPort(a.port())));
            }
        } else if (response instanceof FindCoordinatorResponseData f) {
            rewrite(rewrites, f.nodeId(), f.host(), f.port(), a -> f.setHost(a.host()).setPort(a.port()));
            f.coordinators().forEach(c -> rewrite(rewrites, c.nodeId(), c.host(), c.port(), a -> c.setHost(a.host()).setPort(a.port())));
        } else if (response instanceof ProduceResponseData p) {
            p.nodeEndpoints().forEach(n -> rewrite(rewrites, n.nodeId(), n.host(), n.port(), a -> n.setHost(a.host()).setPort(a.port())));
        } else if (response instanceof FetchResponseData f) {
            f.nodeEndpoints().forEach(n -> rewrite(rewrites, n.nodeId(), n.host(), n.port(), a -> n.setHost(a.host()).setPort(a.port())));
        } else if (response instanceof ShareFetchResponseData sf) {
            sf.nodeEndpoints().forEach(n -> rewrite(rewrites, n.nodeId(), n.host(), n.port(), a -> n.setHost(a.host()).setPort(a.port())));
        } else if (response instanceof ShareAcknowledgeResponseData sa) {
            sa.nodeEndpoints().forEach(n -> rewrite(rewrites, n.nodeId(), n.host(), n.port(), a -> n.setHost(a.host()).setPort(a.port())));
        }
        if (rewrites.isEmpty()) {
            return context.forwardResponse(header, response);
        }
        return CompletableFuture.allOf(rewrites.toArray(CompletableFuture[]::new))
                .thenCompose(done -> context.forwardResponse(header, response));
    }

    private void rewrite(List<CompletableFuture<Void>> rewrites, int nodeId, String host, int port, Consumer<HostPort> setter) {
        // Error responses carry node id -1 and no address.
        if (nodeId < 0 || host == null || host.isEmpty()) {
            return;
        }
        rewrites.add(advertiser.advertise(nodeId, host, port).thenAccept(setter).toCompletableFuture());
    }
}
