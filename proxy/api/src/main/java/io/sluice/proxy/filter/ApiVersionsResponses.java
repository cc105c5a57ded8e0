package io.sluice.proxy.filter;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Narrowing what an ApiVersions response offers, for filters that cannot serve some APIs or versions (names replaced
 * by topic ids, say). A filter that handles ApiVersions responses calls these before forwarding; the proxy's own
 * intersection of broker and proxy versions has already been applied, since built-in filters sit nearest the broker.
 */
public final class ApiVersionsResponses {

    private ApiVersionsResponses() {
    }

    /**
     * Narrows what {@code response} offers for {@code api} to at most {@code min..max}; an API left with no version
     * is no longer offered, so clients do without it or fail clearly instead of sending what the filter cannot handle.
     */
    public static void restrict(ApiVersionsResponseData response, ApiKeys api, short min, short max) {
        ApiVersionsResponseData.ApiVersion offered = response.apiKeys().find(api.id);
        if (offered == null) {
            return;
        }
        short narrowedMin = (short) Math.max(offered.minVersion(), min);
        short narrowedMax = (short) Math.min(offered.maxVersion(), max);
        if (narrowedMin > narrowedMax) {
            response.apiKeys().remove(offered);
        } else {
            offered.setMinVersion(narrowedMin).setMaxVersion(narrowedMax);
        }
    }

    /** Stops offering {@code api} at all. */
    public static void withdraw(ApiVersionsResponseData response, ApiKeys api) {
        ApiVersionsResponseData.ApiVersion offered = response.apiKeys().find(api.id);
        if (offered != null) {
            response.apiKeys().remove(offered);
        }
    }
}
