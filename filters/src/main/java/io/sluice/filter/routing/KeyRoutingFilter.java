package io.sluice.filter.routing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.rewrite.PendingRewrites;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.logging.RateLimitedLog;

/**
 * One connection's routing: topic names in requests from virtual to real, in responses back, records of other
 * keys refused on Produce and dropped on Fetch. APIs that carry no topic names (FindCoordinator, which is by group
 * id; JoinGroup and SyncGroup, whose subscriptions and assignments are the clients' own bytes and hold the names
 * the clients use) pass untouched.
 */
final class KeyRoutingFilter implements RequestFilter, ResponseFilter {

    private static final Logger LOG = LoggerFactory.getLogger(KeyRoutingFilter.class);
    /** Refusals are counted (sluice_routing_requests_refused_total) and logged at most once a second, all connections together. */
    private static final RateLimitedLog REFUSALS = new RateLimitedLog(LOG, Level.INFO, Duration.ofSeconds(1));

    private final PendingRewrites rewrites = new PendingRewrites();
    private final RoutingMetrics metrics;
    private final MetadataRouting metadata;
    private final ProduceRouting produce;
    private final FetchRouting fetch;
    private final OffsetsRouting offsets;
    private final CommittedOffsets committed;
    private final TransactionRouting transactions;
    private final ConfigsRouting configs;

    KeyRoutingFilter(RouteTable routes, RecordReaders records, RoutingMetrics metrics) {
        this.metrics = metrics;
        this.metadata = new MetadataRouting(routes);
        this.produce = new ProduceRouting(routes, records, metrics);
        this.fetch = new FetchRouting(routes, records, metrics);
        this.offsets = new OffsetsRouting(routes);
        this.committed = new CommittedOffsets(routes);
        this.transactions = new TransactionRouting(routes);
        this.configs = new ConfigsRouting(routes);
    }

    @Override
    public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
        // Routed APIs are rewritten; the others that name topics are refused. Only topic-free APIs pass by.
        return !ApiVersionsLimits.PASSED.contains(apiKey);
    }

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return ApiVersionsLimits.ROUTED.contains(apiKey);
    }

    @Override
    public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, RequestHeaderData header, ApiMessage request, FilterContext context) {
        if (!ApiVersionsLimits.offered(apiKey)) {
            return refuse(apiKey, header, request, context);
        }
        Exchange exchange = new Exchange(header.correlationId(), header, context, rewrites);
        if (!ApiVersionsLimits.routable(apiKey, header.requestApiVersion())) {
            // Never offered (ApiVersionsLimits), so only a client ignoring ApiVersions sends it.
            LOG.info("{}: closing: {} v{} cannot be routed by topic name", context.channelDescriptor(), apiKey, header.requestApiVersion());
            return context.requestFilterResultBuilder().withCloseConnection().completed();
        }
        RequestFilterResult result = switch (apiKey) {
            case API_VERSIONS -> exchange.forward(request, response -> ApiVersionsLimits.apply((ApiVersionsResponseData) response));
            case METADATA -> metadata.route((MetadataRequestData) request, exchange);
            case PRODUCE -> produce.route((ProduceRequestData) request, exchange);
            case FETCH -> fetch.route((FetchRequestData) request, exchange);
            case LIST_OFFSETS -> offsets.listOffsets((ListOffsetsRequestData) request, exchange);
            case OFFSET_FOR_LEADER_EPOCH -> offsets.offsetForLeaderEpoch((OffsetForLeaderEpochRequestData) request, exchange);
            case OFFSET_COMMIT -> committed.commit((OffsetCommitRequestData) request, exchange);
            case OFFSET_FETCH -> committed.fetch((OffsetFetchRequestData) request, exchange);
            case TXN_OFFSET_COMMIT -> committed.txnCommit((TxnOffsetCommitRequestData) request, exchange);
            case ADD_PARTITIONS_TO_TXN -> transactions.addPartitions((AddPartitionsToTxnRequestData) request, exchange);
            case DESCRIBE_CONFIGS -> configs.describe((DescribeConfigsRequestData) request, exchange);
            default -> exchange.forward(request);
        };
        return CompletableFuture.completedFuture(result);
    }

    /**
     * An API that names topics KeyRouting does not translate: it would act on, or tell about, the real topics
     * behind the virtual ones. Never offered in ApiVersions, so only a client that ignores ApiVersions sends it.
     * Answered with the API's own error response (UNSUPPORTED_VERSION for every resource), or, for an API whose
     * error response cannot be built, by closing the connection.
     */
    private CompletionStage<RequestFilterResult> refuse(ApiKeys apiKey, RequestHeaderData header, ApiMessage request, FilterContext context) {
        metrics.refused(apiKey);
        REFUSALS.log("{}: {} refused: KeyRouting does not route it and it names topics", context.channelDescriptor(), apiKey);
        try {
            return context.requestFilterResultBuilder()
                    .errorResponse(header, request, new UnsupportedVersionException(apiKey.name + " is not available through KeyRouting"))
                    .completed();
        } catch (RuntimeException e) {
            return context.requestFilterResultBuilder().withCloseConnection().completed();
        }
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        return rewrites.forward(header, response, context);
    }
}
