package io.sluice.proxy.cluster;

import java.util.ArrayList;
import java.util.List;
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

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return apiKey == ApiKeys.API_VERSIONS;
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        intersect((ApiVersionsResponseData) response);
        return context.forwardResponse(header, response);
    }

    static void intersect(ApiVersionsResponseData response) {
        List<ApiVersionsResponseData.ApiVersion> unsupported = new ArrayList<>();
        for (ApiVersionsResponseData.ApiVersion v : response.apiKeys()) {
            if (!ApiKeys.hasId(v.apiKey())) {
                unsupported.add(v);
                continue;
            }
            ApiKeys known = ApiKeys.forId(v.apiKey());
            short min = (short) Math.max(v.minVersion(), known.oldestVersion());
            short max = (short) Math.min(v.maxVersion(), known.latestVersion(true));
            if (min > max) {
                unsupported.add(v);
            } else {
                v.setMinVersion(min).setMaxVersion(max);
            }
        }
        unsupported.forEach(response.apiKeys()::remove);
    }
}
