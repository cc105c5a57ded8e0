package io.sluice.filter.audit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What the Audit filter keeps of a request until its response comes: the API, whether it is admin-class (and so gets
 * an {@code admin} event), the resources it names (at most {@value #MAX_RESOURCES}, the rest counted) with what it
 * asks of them, and request-wide settings ({@code validateOnly}, a SASL mechanism). The request itself is not kept.
 */
record RequestSummary(ApiKeys api, boolean admin, List<Resource> resources, int omitted, Map<String, Object> settings) {

    static final int MAX_RESOURCES = 20;

    /** A request that names nothing the events need. */
    static RequestSummary none(ApiKeys api) {
        return new RequestSummary(api, false, List.of(), 0, Map.of());
    }

    /** Builds a summary; resources past {@value #MAX_RESOURCES} are counted, not kept. */
    static final class Builder {
        private final ApiKeys api;
        private final boolean admin;
        private final List<Resource> resources = new ArrayList<>();
        private final Map<String, Object> settings = new LinkedHashMap<>();
        private int omitted;

        Builder(ApiKeys api, boolean admin) {
            this.api = api;
            this.admin = admin;
        }

        Builder resource(String type, String name, Map<String, Object> details) {
            if (resources.size() < MAX_RESOURCES) {
                resources.add(new Resource(type, name, details));
            } else {
                omitted++;
            }
            return this;
        }

        Builder resource(String type, String name) {
            return resource(type, name, Map.of());
        }

        Builder setting(String name, Object value) {
            settings.put(name, value);
            return this;
        }

        /** The first resource of {@code type} named {@code name}, or null. */
        Resource find(String type, String name) {
            for (Resource r : resources) {
                if (r.type().equals(type) && java.util.Objects.equals(r.name(), Secrets.text(name))) {
                    return r;
                }
            }
            return null;
        }

        RequestSummary build() {
            return new RequestSummary(api, admin, List.copyOf(resources), omitted, java.util.Collections.unmodifiableMap(settings));
        }
    }
}
