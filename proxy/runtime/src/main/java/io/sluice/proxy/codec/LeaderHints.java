package io.sluice.proxy.codec;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The responses that may carry broker addresses as leader hints (KIP-951: {@code NodeEndpoints}, sent only after a
 * leadership change): Produce v10+, Fetch v16+, ShareFetch and ShareAcknowledge. Unlike Metadata, which always names
 * brokers, most of these responses carry none, and one that carries none has nothing for the proxy to rewrite: it can
 * go to the client as the broker sent it.
 */
public final class LeaderHints {

    private LeaderHints() {
    }

    /** Whether responses of this API and version have a place for leader hints. */
    public static boolean mayCarry(ApiKeys apiKey, short apiVersion) {
        return switch (apiKey) {
            case PRODUCE -> apiVersion >= 10;
            case FETCH -> apiVersion >= 16;
            case SHARE_FETCH, SHARE_ACKNOWLEDGE -> true;
            default -> false;
        };
    }

    /** Whether this decoded response names any broker in its leader hints. */
    public static boolean present(ApiMessage response) {
        if (response instanceof ProduceResponseData p) {
            return !p.nodeEndpoints().isEmpty();
        }
        if (response instanceof FetchResponseData f) {
            return !f.nodeEndpoints().isEmpty();
        }
        if (response instanceof ShareFetchResponseData sf) {
            return !sf.nodeEndpoints().isEmpty();
        }
        if (response instanceof ShareAcknowledgeResponseData sa) {
            return !sa.nodeEndpoints().isEmpty();
        }
        return false;
    }
}
