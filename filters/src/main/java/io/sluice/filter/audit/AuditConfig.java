package io.sluice.filter.audit;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The Audit filter's {@code config} (docs/audit.md, "Configuration"): where events go and how often the sampled ones
 * may appear. At least one sink; each may be given once. Every check names its field.
 *
 * @param sampleInterval       policy refusals and quota throttles: at most one event per principal and type per
 *                             interval, the rest counted (default 60 s, at least 1 s)
 * @param maxSampledPrincipals how many sampling windows (one per principal, type and virtual cluster) are tracked at
 *                             once; beyond that new principals share one window per type and virtual cluster, under
 *                             the principal {@value Sampler#OVERFLOW_PRINCIPAL} (default 10,000)
 * @param file                 a rolling file
 * @param stdout               the process's standard output
 * @param kafka                a Kafka topic
 */
public record AuditConfig(Duration sampleInterval, int maxSampledPrincipals, File file, Stdout stdout, Kafka kafka) {

    public static final Duration DEFAULT_SAMPLE_INTERVAL = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_SAMPLED_PRINCIPALS = 10_000;
    public static final long DEFAULT_BUFFER_BYTES = 8L * 1024 * 1024;
    /** Room for a few of the largest events (an admin request naming 20 resources with 10 configs each). */
    static final long MIN_BUFFER_BYTES = 256 * 1024;

    public AuditConfig {
        if (sampleInterval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("sampleInterval: must be at least 1s, not " + sampleInterval.toMillis() + " ms");
        }
        if (maxSampledPrincipals < 1) {
            throw new IllegalArgumentException("maxSampledPrincipals: must be at least 1, not " + maxSampledPrincipals);
        }
        if (file == null && stdout == null && kafka == null) {
            throw new IllegalArgumentException("file, stdout, kafka: at least one sink is required");
        }
    }

    @JsonCreator
    static AuditConfig fromYaml(@JsonProperty("sampleInterval") Duration sampleInterval, @JsonProperty("maxSampledPrincipals") Integer maxSampledPrincipals,
                                @JsonProperty("file") File file, @JsonProperty("stdout") Stdout stdout, @JsonProperty("kafka") Kafka kafka) {
        return new AuditConfig(sampleInterval == null ? DEFAULT_SAMPLE_INTERVAL : sampleInterval,
                maxSampledPrincipals == null ? DEFAULT_MAX_SAMPLED_PRINCIPALS : maxSampledPrincipals, file, stdout, kafka);
    }

    /**
     * @param path         the file events are appended to; its directory must exist
     * @param maxFileBytes the size at which it rolls (default 100 MiB, at least 64 KiB)
     * @param maxFiles     files kept, the current one included (default 10, at least 1: one means the file starts over)
     * @param bufferBytes  events waiting to be written, at most (default 8 MiB, at least 256 KiB); more are dropped
     */
    public record File(String path, long maxFileBytes, int maxFiles, long bufferBytes) {

        public static final long DEFAULT_MAX_FILE_BYTES = 100L * 1024 * 1024;
        public static final int DEFAULT_MAX_FILES = 10;

        public File {
            if (path == null || path.isBlank()) {
                throw new IllegalArgumentException("file.path: required");
            }
            if (maxFileBytes < 64 * 1024) {
                throw new IllegalArgumentException("file.maxFileBytes: must be at least 65536, not " + maxFileBytes);
            }
            if (maxFiles < 1 || maxFiles > 1000) {
                throw new IllegalArgumentException("file.maxFiles: must be between 1 and 1000, not " + maxFiles);
            }
            checkBuffer("file.bufferBytes", bufferBytes);
        }

        @JsonCreator
        static File fromYaml(@JsonProperty("path") String path, @JsonProperty("maxFileBytes") Long maxFileBytes,
                             @JsonProperty("maxFiles") Integer maxFiles, @JsonProperty("bufferBytes") Long bufferBytes) {
            return new File(path, maxFileBytes == null ? DEFAULT_MAX_FILE_BYTES : maxFileBytes, maxFiles == null ? DEFAULT_MAX_FILES : maxFiles,
                    bufferBytes == null ? DEFAULT_BUFFER_BYTES : bufferBytes);
        }
    }

    /** @param bufferBytes events waiting to be written, at most (default 8 MiB, at least 256 KiB) */
    public record Stdout(long bufferBytes) {

        public Stdout {
            checkBuffer("stdout.bufferBytes", bufferBytes);
        }

        @JsonCreator
        static Stdout fromYaml(@JsonProperty("bufferBytes") Long bufferBytes) {
            return new Stdout(bufferBytes == null ? DEFAULT_BUFFER_BYTES : bufferBytes);
        }
    }

    /**
     * @param topic            the topic events are produced to (create it beforehand: docs/audit.md, "Retention")
     * @param bootstrapServers the cluster it is in: the virtual cluster's target, not the proxy
     * @param producerConfig   more kafka-clients producer settings (security, compression...), over the filter's
     *                         defaults ({@code acks=all}, idempotence, {@code linger.ms=50}, {@code max.block.ms=5000})
     * @param bufferBytes      events waiting to be sent, at most (default 8 MiB, at least 256 KiB)
     */
    public record Kafka(String topic, String bootstrapServers, Map<String, String> producerConfig, long bufferBytes) {

        public Kafka {
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException("kafka.topic: required");
            }
            if (bootstrapServers == null || bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("kafka.bootstrapServers: required (the upstream cluster's, not the proxy's)");
            }
            producerConfig = producerConfig == null ? Map.of() : Map.copyOf(producerConfig);
            checkBuffer("kafka.bufferBytes", bufferBytes);
        }

        @JsonCreator
        static Kafka fromYaml(@JsonProperty("topic") String topic, @JsonProperty("bootstrapServers") String bootstrapServers,
                              @JsonProperty("producerConfig") Map<String, Object> producerConfig, @JsonProperty("bufferBytes") Long bufferBytes) {
            Map<String, String> settings = new LinkedHashMap<>();
            if (producerConfig != null) {
                producerConfig.forEach((key, value) -> {
                    if (value instanceof Map || value instanceof Iterable) {
                        throw new IllegalArgumentException("kafka.producerConfig." + key + ": must be a single value, as in a producer's properties");
                    }
                    if (value == null) {
                        throw new IllegalArgumentException("kafka.producerConfig." + key + ": needs a value");
                    }
                    settings.put(key, String.valueOf(value));
                });
            }
            return new Kafka(topic, bootstrapServers, settings, bufferBytes == null ? DEFAULT_BUFFER_BYTES : bufferBytes);
        }
    }

    private static void checkBuffer(String field, long bufferBytes) {
        if (bufferBytes < MIN_BUFFER_BYTES) {
            throw new IllegalArgumentException(field + ": must be at least " + MIN_BUFFER_BYTES + ", not " + bufferBytes);
        }
    }
}
