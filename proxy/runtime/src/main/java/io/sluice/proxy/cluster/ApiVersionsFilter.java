package io.sluice.proxy.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * Answers ApiVersions with the intersection of what the broker and the proxy support: a client must never
 * pick an API or version the proxy's kafka-clients classes cannot decode, or filters could not see it.
 */
public final class ApiVersionsFilter implements ResponseFilter {

    /**
     * Fetch v16 added broker addresses (leader hints, KIP-951) to Fetch responses, which would force the
     * proxy to decode and re-encode every Fetch response to rewrite them. Unless a filter decodes Fetch
     * responses anyway, clients are offered Fetch up to v15: they then learn a new leader from Metadata,
     * as every client before Kafka 3.7 does.
     */
    public static final short FETCH_WITHOUT_NODE_ENDPOINTS = 15;

    private final Map<ApiKeys, Short> caps;

    /** @param caps the highest version to offer for some APIs, below what broker and proxy support */
    public ApiVersionsFilter(Map<ApiKeys, Short> caps) {
        this.caps = Map.copyOf(caps);
    }

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return apiKey == ApiKeys.API_VERSIONS;
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        intersect((ApiVersionsResponseData) response, caps);
        return context.forwardResponse(header, response);
    }

    static void intersect(ApiVersionsResponseData response, Map<ApiKeys, Short> caps) {
        List<ApiVersionsResponseData.ApiVersion> unsupported = new ArrayList<>();
        for (ApiVersionsResponseData.ApiVersion v : response.apiKeys()) {
            if (!ApiKeys.hasId(v.apiKey())) {
                unsupported.add(v);
                continue;
            }
            ApiKeys known = ApiKeys.forId(v.apiKey());
            short min = (short) Math.max(v.minVersion(), known.oldestVersion());
            short max = (short) Math.min(Math.min(v.maxVersion(), known.latestVersion(true)), caps.getOrDefault(known, Short.MAX_VALUE));
            if (min > max) {
                unsupported.add(v);
            } else {
                v.setMinVersion(min).setMaxVersion(max);
            }
        }
        unsupported.forEach(response.apiKeys()::remove);
    }
}
