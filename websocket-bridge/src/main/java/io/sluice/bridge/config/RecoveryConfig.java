package io.sluice.bridge.config;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How far back a reconnecting client can be brought up to date.
 *
 * @param cacheMessagesPerEndpoint messages kept in memory per endpoint; at least 1, the base of snapshots and deltas
 * @param cacheMaxAge              messages older than this (since this node received them) leave the cache
 * @param cacheMaxEndpoints        endpoints with a cache; the least recently updated one is dropped first
 * @param kafkaMaxRecords          most records one recovery reads from the Kafka log per partition; older missed
 *                                 messages are reported as a gap
 * @param kafkaConcurrency         recoveries reading Kafka at once (one consumer each); more wait their turn
 * @param kafkaTimeout             how long one recovery from Kafka may take before the client gets an error
 * @param kafkaQueue               log reads that may wait for one of the {@code kafkaConcurrency} consumers, node-wide;
 *                                 a subscribe needing more is refused with {@code busy}
 * @param kafkaReadsPerConnection  log reads one connection may have running or waiting; a subscribe needing more is
 *                                 refused with {@code busy} (one that finds the connection with none is always let in)
 * @param startupWait              how long after the node starts a subscribe waits for the node's Kafka reader to
 *                                 know where it reads in every partition; later ones are refused with {@code busy}
 *                                 until it does (answering earlier would report every recover position as an unknown
 *                                 epoch, and clients drop positions of unknown epochs)
 */
public record RecoveryConfig(int cacheMessagesPerEndpoint, Duration cacheMaxAge, int cacheMaxEndpoints,
                             int kafkaMaxRecords, int kafkaConcurrency, Duration kafkaTimeout, int kafkaQueue,
                             int kafkaReadsPerConnection, Duration startupWait) {

    public static final int DEFAULT_CACHE_MESSAGES_PER_ENDPOINT = 100;
    public static final Duration DEFAULT_CACHE_MAX_AGE = Duration.ofMinutes(5);
    public static final int DEFAULT_CACHE_MAX_ENDPOINTS = 100_000;
    public static final int DEFAULT_KAFKA_MAX_RECORDS = 100_000;
    public static final int DEFAULT_KAFKA_CONCURRENCY = 2;
    public static final Duration DEFAULT_KAFKA_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_KAFKA_QUEUE = 64;
    public static final int DEFAULT_KAFKA_READS_PER_CONNECTION = 16;
    public static final Duration DEFAULT_STARTUP_WAIT = Duration.ofSeconds(15);

    public RecoveryConfig {
        cacheMaxAge = cacheMaxAge == null ? DEFAULT_CACHE_MAX_AGE : cacheMaxAge;
        kafkaTimeout = kafkaTimeout == null ? DEFAULT_KAFKA_TIMEOUT : kafkaTimeout;
        startupWait = startupWait == null ? DEFAULT_STARTUP_WAIT : startupWait;
    }

    public static RecoveryConfig defaults() {
        return new RecoveryConfig(DEFAULT_CACHE_MESSAGES_PER_ENDPOINT, null, DEFAULT_CACHE_MAX_ENDPOINTS,
                DEFAULT_KAFKA_MAX_RECORDS, DEFAULT_KAFKA_CONCURRENCY, null);
    }

    /** With the default bounds on waiting log reads. */
    public RecoveryConfig(int cacheMessagesPerEndpoint, Duration cacheMaxAge, int cacheMaxEndpoints, int kafkaMaxRecords,
                          int kafkaConcurrency, Duration kafkaTimeout) {
        this(cacheMessagesPerEndpoint, cacheMaxAge, cacheMaxEndpoints, kafkaMaxRecords, kafkaConcurrency, kafkaTimeout,
                DEFAULT_KAFKA_QUEUE, DEFAULT_KAFKA_READS_PER_CONNECTION, null);
    }

    @JsonCreator
    static RecoveryConfig fromYaml(@JsonProperty("cacheMessagesPerEndpoint") Integer cacheMessagesPerEndpoint,
                                   @JsonProperty("cacheMaxAge") Duration cacheMaxAge,
                                   @JsonProperty("cacheMaxEndpoints") Integer cacheMaxEndpoints,
                                   @JsonProperty("kafkaMaxRecords") Integer kafkaMaxRecords,
                                   @JsonProperty("kafkaConcurrency") Integer kafkaConcurrency,
                                   @JsonProperty("kafkaTimeout") Duration kafkaTimeout,
                                   @JsonProperty("kafkaQueue") Integer kafkaQueue,
                                   @JsonProperty("kafkaReadsPerConnection") Integer kafkaReadsPerConnection,
                                   @JsonProperty("startupWait") Duration startupWait) {
        return new RecoveryConfig(
                cacheMessagesPerEndpoint == null ? DEFAULT_CACHE_MESSAGES_PER_ENDPOINT : cacheMessagesPerEndpoint,
                cacheMaxAge,
                cacheMaxEndpoints == null ? DEFAULT_CACHE_MAX_ENDPOINTS : cacheMaxEndpoints,
                kafkaMaxRecords == null ? DEFAULT_KAFKA_MAX_RECORDS : kafkaMaxRecords,
                kafkaConcurrency == null ? DEFAULT_KAFKA_CONCURRENCY : kafkaConcurrency,
                kafkaTimeout,
                kafkaQueue == null ? DEFAULT_KAFKA_QUEUE : kafkaQueue,
                kafkaReadsPerConnection == null ? DEFAULT_KAFKA_READS_PER_CONNECTION : kafkaReadsPerConnection,
                startupWait);
    }
}
