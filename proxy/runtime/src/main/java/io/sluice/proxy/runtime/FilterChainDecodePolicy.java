package io.sluice.proxy.runtime;

import java.util.List;

import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.proxy.cluster.BrokerAddressFilter;
import io.sluice.proxy.codec.DecodePolicy;
import io.sluice.proxy.codec.LeaderHints;

/**
 * Decode a message when any filter on the connection handles it (a response also when a filter attached a hook to its
 * request: see {@code CorrelationTracker.register}; not for a filter that handles it only when it is decoded anyway). The filters' answers are asked once per
 * API and version and remembered, so the per-request cost is an array lookup.
 */
final class FilterChainDecodePolicy implements DecodePolicy {

    private static final byte UNKNOWN = 0;
    private static final byte NO = 1;
    private static final byte YES = 2;

    private final List<NamedFilter> filters;
    private final byte[][] requests = new byte[maxApiKey() + 1][];
    private final byte[][] responses = new byte[maxApiKey() + 1][];
    private final byte[][] leaderHintsOnly = new byte[maxApiKey() + 1][];

    FilterChainDecodePolicy(List<NamedFilter> filters) {
        this.filters = filters;
    }

    @Override
    public boolean decodeRequest(ApiKeys apiKey, short apiVersion) {
        byte[] byVersion = versions(requests, apiKey);
        if (byVersion[apiVersion] == UNKNOWN) {
            boolean any = filters.stream().anyMatch(f -> f.requests() != null && f.requests().shouldHandleRequest(apiKey, apiVersion));
            byVersion[apiVersion] = any ? YES : NO;
        }
        return byVersion[apiVersion] == YES;
    }

    @Override
    public boolean decodeResponse(ApiKeys apiKey, short apiVersion) {
        byte[] byVersion = versions(responses, apiKey);
        if (byVersion[apiVersion] == UNKNOWN) {
            // A filter that handles a response only if it is decoded anyway (ResponseFilter.requiresDecodedResponse) does not count.
            boolean any = filters.stream().anyMatch(f -> f.responses() != null && f.responses().shouldHandleResponse(apiKey, apiVersion)
                    && f.responses().requiresDecodedResponse(apiKey, apiVersion));
            byVersion[apiVersion] = any ? YES : NO;
        }
        return byVersion[apiVersion] == YES;
    }

    @Override
    public boolean decodeResponseOnlyForLeaderHints(ApiKeys apiKey, short apiVersion) {
        byte[] byVersion = versions(leaderHintsOnly, apiKey);
        if (byVersion[apiVersion] == UNKNOWN) {
            // Any other filter that handles the response, even one that only observes it decoded, gets it decoded as before.
            boolean only = LeaderHints.mayCarry(apiKey, apiVersion)
                    && filters.stream().noneMatch(f -> f.responses() != null && !(f.filter() instanceof BrokerAddressFilter)
                            && f.responses().shouldHandleResponse(apiKey, apiVersion));
            byVersion[apiVersion] = only ? YES : NO;
        }
        return byVersion[apiVersion] == YES;
    }

    private static byte[] versions(byte[][] table, ApiKeys apiKey) {
        byte[] byVersion = table[apiKey.id];
        if (byVersion == null) {
            byVersion = new byte[apiKey.latestVersion(true) + 1];
            table[apiKey.id] = byVersion;
        }
        return byVersion;
    }

    private static int maxApiKey() {
        int max = 0;
        for (ApiKeys k : ApiKeys.values()) {
            max = Math.max(max, k.id);
        }
        return max;
    }
}
