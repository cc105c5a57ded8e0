package io.sluice.proxy.config;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.ConfigLoader;

/**
 * A named, configured filter instance that virtual clusters refer to by name.
 *
 * @param type which filter implementation to use
 * @param config the filter's own settings, bound to the factory's {@code configType()} by {@link ConfigLoader#bind}; may be null
 */
public record FilterDefinition(String name, String type, JsonNode config) {

    public FilterDefinition {
        if (config != null && (config.isNull() || config.isMissingNode())) {
            config = null;
        }
    }

    /** Leaves the config body out: filters keep credentials there, and this record ends up in logs. */
    @Override
    public String toString() {
        String body = config == null ? "none" : config.size() + " field(s)";
        return "FilterDefinition[name=" + name + ", type=" + type + ", config=" + body + "]";
    }
}
