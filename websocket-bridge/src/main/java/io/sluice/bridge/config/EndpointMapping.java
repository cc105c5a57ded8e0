package io.sluice.bridge.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One row of the endpoint table: endpoint {@code /scores/live/*} is topic {@code scores}, key {@code live/*}. A
 * trailing {@code *} on both sides stands for the rest of the key (which may contain {@code /}); without it the
 * mapping names exactly one endpoint and one key.
 */
public record EndpointMapping(String endpoint, String topic, String key) {

    public static final String WILDCARD = "*";

    @JsonCreator
    static EndpointMapping fromYaml(@JsonProperty("endpoint") String endpoint,
                                    @JsonProperty("topic") String topic,
                                    @JsonProperty("key") String key) {
        return new EndpointMapping(endpoint, topic, key);
    }

    /** {@code /<topic>/*} ↔ every key of the topic. */
    public static EndpointMapping wholeTopic(String topic) {
        return new EndpointMapping("/" + topic + "/" + WILDCARD, topic, WILDCARD);
    }

    public boolean prefix() {
        return endpoint != null && endpoint.endsWith(WILDCARD);
    }

    /** The endpoint without its trailing {@code *}. */
    public String endpointPrefix() {
        return prefix() ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
    }

    /** The key without its trailing {@code *}. */
    public String keyPrefix() {
        return key.endsWith(WILDCARD) ? key.substring(0, key.length() - 1) : key;
    }
}
