package io.sluice.bridge.format.registry;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How {@link CachingSchemaSource} remembers answers.
 *
 * @param maxSchemas    schemas kept (by id, and by subject and version), least recently used dropped first
 * @param failureTtl    how long a failed lookup is remembered, so that a record naming a bogus id costs one registry
 *                      call per this period rather than one per record; also how long an unreachable registry is
 *                      not asked about anything new
 * @param maxFailures   failed lookups remembered at most (oldest dropped first): schema ids come from record bytes,
 *                      which anyone who can produce chooses
 * @param latestRefresh how long a subject's latest version is used before the registry is asked again; while the
 *                      registry cannot be reached the last answer keeps serving
 */
public record RegistryCacheConfig(int maxSchemas, Duration failureTtl, int maxFailures, Duration latestRefresh) {

    public static final int DEFAULT_MAX_SCHEMAS = 10_000;
    public static final Duration DEFAULT_FAILURE_TTL = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_FAILURES = 10_000;
    public static final Duration DEFAULT_LATEST_REFRESH = Duration.ofSeconds(30);

    public RegistryCacheConfig {
        failureTtl = failureTtl == null ? DEFAULT_FAILURE_TTL : failureTtl;
        latestRefresh = latestRefresh == null ? DEFAULT_LATEST_REFRESH : latestRefresh;
    }

    public static RegistryCacheConfig defaults() {
        return new RegistryCacheConfig(DEFAULT_MAX_SCHEMAS, null, DEFAULT_MAX_FAILURES, null);
    }

    @JsonCreator
    static RegistryCacheConfig fromYaml(@JsonProperty("maxSchemas") Integer maxSchemas,
                                        @JsonProperty("failureTtl") Duration failureTtl,
                                        @JsonProperty("maxFailures") Integer maxFailures,
                                        @JsonProperty("latestRefresh") Duration latestRefresh) {
        return new RegistryCacheConfig(maxSchemas == null ? DEFAULT_MAX_SCHEMAS : maxSchemas, failureTtl,
                maxFailures == null ? DEFAULT_MAX_FAILURES : maxFailures, latestRefresh);
    }

    void validate(List<String> problems, String path) {
        if (maxSchemas < 1) {
            problems.add(path + ".maxSchemas: must be at least 1");
        }
        if (failureTtl.isNegative()) {
            problems.add(path + ".failureTtl: must not be negative (0 remembers no failure)");
        }
        if (maxFailures < 1) {
            problems.add(path + ".maxFailures: must be at least 1");
        }
        if (latestRefresh.isNegative()) {
            problems.add(path + ".latestRefresh: must not be negative (0 asks the registry on every call while it answers)");
        }
    }
}
