package io.sluice.proxy.codec;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Bounds how much a client may ask the broker to send back in one fetch. A Fetch of 2 GiB is answered zero-copy from
 * the broker's page cache, but the proxy holds the whole answer on its heap while it goes through: without a bound, a
 * 100-byte request pins the broker's {@code fetch.max.bytes} (55 MB by default) per connection. The broker still
 * returns at least one batch when that batch alone is larger (KIP-74), so a bound never stops a consumer.
 */
public final class FetchBytesLimit {

    private FetchBytesLimit() {
    }

    /** Whether requests of this API carry byte limits this class bounds. */
    public static boolean applies(ApiKeys apiKey) {
        return apiKey == ApiKeys.FETCH || apiKey == ApiKeys.SHARE_FETCH;
    }

    /**
     * Lowers the request's total and per-partition byte limits to {@code max} where they are above it, touching only
     * fields the version carries.
     *
     * @return whether anything was lowered, so the request must be encoded again
     */
    public static boolean clamp(ApiMessage body, short version, int max) {
        if (body instanceof FetchRequestData fetch) {
            return clampFetch(fetch, version, max);
        }
        if (body instanceof ShareFetchRequestData shareFetch) {
            return clampShareFetch(shareFetch, version, max);
        }
        return false;
    }

    private static boolean clampFetch(FetchRequestData fetch, short version, int max) {
        boolean changed = false;
        // MaxBytes is in versions 3+; older versions carry the default, which is not the client's to lower.
        if (version >= 3 && fetch.maxBytes() > max) {
            fetch.setMaxBytes(max);
            changed = true;
        }
        for (FetchRequestData.FetchTopic topic : fetch.topics()) {
            for (FetchRequestData.FetchPartition partition : topic.partitions()) {
                if (partition.partitionMaxBytes() > max) {
                    partition.setPartitionMaxBytes(max);
                    changed = true;
                }
            }
        }
        return changed;
    }

    private static boolean clampShareFetch(ShareFetchRequestData fetch, short version, int max) {
        boolean changed = false;
        if (fetch.maxBytes() > max) {
            fetch.setMaxBytes(max);
            changed = true;
        }
        // PartitionMaxBytes exists in version 0 only.
        if (version == 0) {
            for (ShareFetchRequestData.FetchTopic topic : fetch.topics()) {
                for (ShareFetchRequestData.FetchPartition partition : topic.partitions()) {
                    if (partition.partitionMaxBytes() > max) {
                        partition.setPartitionMaxBytes(max);
                        changed = true;
                    }
                }
            }
        }
        return changed;
    }
}
