package io.sluice.bridge.auth;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.auth.Grant;
import io.sluice.auth.Permissions;

/**
 * A {@link Principal} backed by an accepted token's {@link Grant}. Endpoint keys are text; they are checked as their
 * UTF-8 bytes, exactly as the proxy checks the record keys they name.
 */
record GrantPrincipal(Grant grant) implements Principal {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String subject() {
        return grant.subject();
    }

    /** The end of the session the token opens: its {@code exp} plus the configured clock skew, as in the proxy. */
    @Override
    public Instant expiresAt() {
        return grant.validUntil();
    }

    // The bridge applies the token's row filters to what it delivers, so it may read row-filtered topics.
    private Permissions permissions() {
        return grant.permissions().rowFiltersAppliedByCaller();
    }

    @Override
    public boolean canSubscribe(String topic, String key) {
        return permissions().canReadKey(topic, key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean canSubscribeAll(String topic, String keyPrefix) {
        return permissions().canReadKeysWithPrefix(topic, keyPrefix);
    }

    @Override
    public boolean canPublish(String topic, String key) {
        return permissions().canWriteKey(topic, key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean unmasked(String topic, String path) {
        return grant.permissions().unmasked(topic, path);
    }

    @Override
    public Map<String, JsonNode> rowFilters() {
        return trees(grant.permissions().rowFilters());
    }

    @Override
    public Map<String, JsonNode> rowFilters(String topic) {
        return trees(grant.permissions().rowFilters(topic));
    }

    private static Map<String, JsonNode> trees(List<Permissions.RowFilter> filters) {
        Map<String, JsonNode> trees = new LinkedHashMap<>();
        filters.forEach(f -> trees.put(f.pattern(), JSON.valueToTree(f.filter())));
        return trees;
    }
}
