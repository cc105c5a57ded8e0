package io.sluice.filter.jwt;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.filter.jwt.enforce.RequestRules;
import io.sluice.proxy.filter.ApiVersionsResponses;

/**
 * Adjusts the ApiVersions answer to what the proxy serves once it terminates SASL: the SASL APIs at the
 * versions this filter speaks (whatever the broker's own listener offers), and Metadata from v4, the first
 * version that can ask the broker not to create topics.
 */
final class ApiVersionsOffer {

    /** SaslHandshake v0 means raw SASL frames without Kafka headers follow, which the proxy cannot frame. */
    static final short SASL_HANDSHAKE_MIN = 1;

    private ApiVersionsOffer() {
    }

    static void apply(ApiVersionsResponseData response) {
        if (response.errorCode() != 0) {
            return;
        }
        offer(response, ApiKeys.SASL_HANDSHAKE, SASL_HANDSHAKE_MIN, ApiKeys.SASL_HANDSHAKE.latestVersion());
        offer(response, ApiKeys.SASL_AUTHENTICATE, ApiKeys.SASL_AUTHENTICATE.oldestVersion(), ApiKeys.SASL_AUTHENTICATE.latestVersion());
        ApiVersionsResponses.restrict(response, ApiKeys.METADATA, RequestRules.OLDEST_METADATA_VERSION, Short.MAX_VALUE);
    }

    private static void offer(ApiVersionsResponseData response, ApiKeys api, short min, short max) {
        ApiVersionsResponseData.ApiVersion version = response.apiKeys().find(api.id);
        if (version == null) {
            response.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(api.id).setMinVersion(min).setMaxVersion(max));
        } else {
            version.setMinVersion(min).setMaxVersion(max);
        }
    }
}
