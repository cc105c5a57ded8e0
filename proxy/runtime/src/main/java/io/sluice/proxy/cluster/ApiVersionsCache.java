package io.sluice.proxy.cluster;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The target cluster's latest ApiVersions answer, per request version, as a broker gave it (before the proxy's filters
 * narrow it). A client that has not authenticated yet is answered from here instead of the proxy dialing a broker for
 * it: otherwise every anonymous connection's first request costs a broker connection made with the proxy's own
 * credentials. Any connection's real ApiVersions exchange refreshes it, so a broker upgrade shows within one exchange.
 * Bounded by the number of ApiVersions versions kafka-clients knows. Thread-safe.
 */
public final class ApiVersionsCache {

    private final ConcurrentMap<Short, ApiVersionsResponseData> byVersion = new ConcurrentHashMap<>();

    /** Keeps a copy of a successful broker answer to a request of {@code version}. */
    public void remember(short version, ApiVersionsResponseData response) {
        if (response.errorCode() == Errors.NONE.code()) {
            byVersion.put(version, response.duplicate());
        }
    }

    /** A copy of the latest broker answer at {@code version}, for filters to narrow as they would a broker's. */
    public Optional<ApiVersionsResponseData> answer(short version) {
        ApiVersionsResponseData cached = byVersion.get(version);
        return cached == null ? Optional.empty() : Optional.of(cached.duplicate());
    }
}
