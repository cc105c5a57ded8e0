package io.sluice.format.registry;

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
 *                      not asked about anything new. At least a second: the reader decodes the records of a looked-up
 *                      id once the lookup's answer is remembered; with nothing remembered it would only ask again
 * @param maxFailures   failed lookups remembered at most (oldest dropped first): schema ids come from record bytes,
 *                      which anyone who can produce chooses
 * @param latestRefresh how long a subject's latest version is used before the registry is asked again; while the
 *                      registry cannot be reached the last answer keeps serving
 * @param maxBytes      the schemas kept weigh at most this much (their text at two bytes a character, plus their
 *                      references' names), least recently used dropped first: {@code maxSchemas} alone would let
 *                      schemas of up to {@code maxResponseBytes} each hold gigabytes
 */
public record RegistryCacheConfig(int maxSchemas, Duration failureTtl, int maxFailures, Duration latestRefresh,
                                  long maxBytes) {

    public static final int DEFAULT_MAX_SCHEMAS = 10_000;
    public static final Duration DEFAULT_FAILURE_TTL = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_FAILURES = 10_000;
    public static final Duration DEFAULT_LATEST_REFRESH = Duration.ofSeconds(30);
    /**
     * 64 MiB (decision): ten thousand schemas of a few KiB each (the usual size) fit, and so do 32 of the longest
     * answers the default {@code maxResponseBytes} (1 MiB) accepts, while a registry full of huge schemas costs the node
     * no more than this.
     */
    public static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;
    static final Duration MIN_FAILURE_TTL = Duration.ofSeconds(1);

    public RegistryCacheConfig {
        failureTtl = failureTtl == null ? DEFAULT_FAILURE_TTL : failureTtl;
        latestRefresh = latestRefresh == null ? DEFAULT_LATEST_REFRESH : latestRefresh;
    }

    /** With the default byte bound. */
    public RegistryCacheConfig(int maxSchemas, Duration failureTtl, int maxFailures, Duration latestRefresh) {
        this(maxSchemas, failureTtl, maxFailures, latestRefresh, DEFAULT_MAX_BYTES);
    }

    public static RegistryCacheConfig defaults() {
        return new RegistryCacheConfig(DEFAULT_MAX_SCHEMAS, null, DEFAULT_MAX_FAILURES, null);
    }

    @JsonCreator
    static RegistryCacheConfig fromYaml(@JsonProperty("maxSchemas") Integer maxSchemas,
                                        @JsonProperty("failureTtl") Duration failureTtl,
                                        @JsonProperty("maxFailures") Integer maxFailures,
                                        @JsonProperty("latestRefresh") Duration latestRefresh,
                                        @JsonProperty("maxBytes") String maxBytes) {
        return new RegistryCacheConfig(maxSchemas == null ? DEFAULT_MAX_SCHEMAS : maxSchemas, failureTtl,
                maxFailures == null ? DEFAULT_MAX_FAILURES : maxFailures, latestRefresh,
                maxBytes == null ? DEFAULT_MAX_BYTES : RegistryConfig.parseSize(maxBytes, "cache.maxBytes"));
    }

    void validate(List<String> problems, String path) {
        if (maxSchemas < 1) {
            problems.add(path + ".maxSchemas: must be at least 1");
        }
        if (failureTtl.compareTo(MIN_FAILURE_TTL) < 0) {
            problems.add(path + ".failureTtl: must be at least 1s (records wait for their schema id's lookup, and are"
                    + " decoded once its answer, schema or failure, is remembered)");
        }
        if (maxFailures < 1) {
            problems.add(path + ".maxFailures: must be at least 1");
        }
        if (latestRefresh.isNegative()) {
            problems.add(path + ".latestRefresh: must not be negative (0 asks the registry on every call while it answers)");
        }
        if (maxBytes < 1) {
            problems.add(path + ".maxBytes: must be positive");
        }
    }
}
