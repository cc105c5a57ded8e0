package io.sluice.bridge.config;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Persistent MQTT sessions (docs/bridge-mqtt.md#sessions): their state in a compacted Kafka topic, so that a client
 * resumes on any node. Off unless {@code maxExpiry} is above zero.
 *
 * @param maxExpiry          the longest a session outlives its connection: a 3.1.1 {@code cleanSession=0} session gets
 *                           this, an MQTT 5 Session Expiry Interval is lowered to it (and told in CONNACK). 0 (the
 *                           default): sessions end with their connection, as before
 * @param topic              the compacted topic holding one record per session, keyed by subject and client id; created
 *                           (compacted) when missing, and a topic that exists but is not compacted stops start-up
 * @param partitions         partitions of the topic when the node creates it
 * @param replicationFactor  its replication factor when the node creates it; -1: the broker's default
 * @param maxPerSubject      persistent sessions one token subject may hold, cluster-wide; one more is CONNACK
 *                           0x97 (quota exceeded) / 3.1.1 server unavailable
 * @param maxSessions        persistent sessions the cluster may hold: every node indexes them all (key and offset)
 * @param maxStateBytes      largest state of one session as written (JSON): a SUBSCRIBE that would make it larger is
 *                           refused; positions that outgrow it are written less precisely (more duplicates, never losses)
 * @param checkpointInterval how often a connected session's positions are written at most; subscriptions are written
 *                           when they change and everything at the disconnect
 * @param loadTimeout        how long a CONNECT may wait for its session to be read from Kafka
 * @param maxLoads           session reads waiting at once on this node; more: CONNACK server busy
 */
public record MqttSessionsConfig(Duration maxExpiry, String topic, int partitions, short replicationFactor, int maxPerSubject,
                                 int maxSessions, int maxStateBytes, Duration checkpointInterval, Duration loadTimeout, int maxLoads) {

    public static final String DEFAULT_TOPIC = "sluice-mqtt-sessions";
    public static final int DEFAULT_PARTITIONS = 8;
    public static final int DEFAULT_MAX_PER_SUBJECT = 16;
    public static final int DEFAULT_MAX_SESSIONS = 100_000;
    public static final int DEFAULT_MAX_STATE_BYTES = 64 * 1024;
    public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofSeconds(5);
    public static final Duration DEFAULT_LOAD_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_LOADS = 256;
    /** MQTT 5 counts a Session Expiry Interval in seconds, in four bytes; 0xFFFFFFFF means never, which is not offered. */
    static final long MAX_EXPIRY_SECONDS = 0xFFFF_FFFEL;

    public MqttSessionsConfig {
        maxExpiry = maxExpiry == null ? Duration.ZERO : maxExpiry;
        topic = topic == null ? DEFAULT_TOPIC : topic;
        checkpointInterval = checkpointInterval == null ? DEFAULT_CHECKPOINT_INTERVAL : checkpointInterval;
        loadTimeout = loadTimeout == null ? DEFAULT_LOAD_TIMEOUT : loadTimeout;
    }

    public static MqttSessionsConfig defaults() {
        return new MqttSessionsConfig(null, null, DEFAULT_PARTITIONS, (short) -1, DEFAULT_MAX_PER_SUBJECT, DEFAULT_MAX_SESSIONS,
                DEFAULT_MAX_STATE_BYTES, null, null, DEFAULT_MAX_LOADS);
    }

    /** Whether sessions may outlive their connection at all. */
    public boolean enabled() {
        return !maxExpiry.isZero();
    }

    @JsonCreator
    static MqttSessionsConfig fromYaml(@JsonProperty("maxExpiry") Duration maxExpiry,
                                       @JsonProperty("topic") String topic,
                                       @JsonProperty("partitions") Integer partitions,
                                       @JsonProperty("replicationFactor") Short replicationFactor,
                                       @JsonProperty("maxPerSubject") Integer maxPerSubject,
                                       @JsonProperty("maxSessions") Integer maxSessions,
                                       @JsonProperty("maxStateBytes") Integer maxStateBytes,
                                       @JsonProperty("checkpointInterval") Duration checkpointInterval,
                                       @JsonProperty("loadTimeout") Duration loadTimeout,
                                       @JsonProperty("maxLoads") Integer maxLoads) {
        return new MqttSessionsConfig(maxExpiry, topic, partitions == null ? DEFAULT_PARTITIONS : partitions,
                replicationFactor == null ? -1 : replicationFactor, maxPerSubject == null ? DEFAULT_MAX_PER_SUBJECT : maxPerSubject,
                maxSessions == null ? DEFAULT_MAX_SESSIONS : maxSessions, maxStateBytes == null ? DEFAULT_MAX_STATE_BYTES : maxStateBytes,
                checkpointInterval, loadTimeout, maxLoads == null ? DEFAULT_MAX_LOADS : maxLoads);
    }

    /** Problems, each naming its field under {@code mqtt.sessions.}. */
    void validate(List<String> problems) {
        if (maxExpiry.isNegative() || maxExpiry.toSeconds() > MAX_EXPIRY_SECONDS) {
            problems.add("mqtt.sessions.maxExpiry: must be 0s.." + MAX_EXPIRY_SECONDS + "s");
        }
        if (!maxExpiry.isZero() && maxExpiry.compareTo(Duration.ofSeconds(1)) < 0) {
            problems.add("mqtt.sessions.maxExpiry: 0 (off) or at least 1s (MQTT counts it in seconds)");
        }
        if (topic.isBlank() || topic.length() > 249 || !topic.matches("[a-zA-Z0-9._-]+")) {
            problems.add("mqtt.sessions.topic: must be a Kafka topic name (letters, digits, '.', '_', '-'; at most 249)");
        }
        if (partitions < 1 || partitions > 1000) {
            problems.add("mqtt.sessions.partitions: must be 1..1000");
        }
        if (replicationFactor != -1 && replicationFactor < 1) {
            problems.add("mqtt.sessions.replicationFactor: must be -1 (the broker's default) or at least 1");
        }
        if (maxPerSubject < 1) {
            problems.add("mqtt.sessions.maxPerSubject: must be at least 1");
        }
        if (maxSessions < 1 || maxSessions > 10_000_000) {
            problems.add("mqtt.sessions.maxSessions: must be 1..10000000 (every node indexes every session)");
        }
        if (maxStateBytes < 1024 || maxStateBytes > 1024 * 1024) {
            problems.add("mqtt.sessions.maxStateBytes: must be 1024..1048576");
        }
        if (checkpointInterval.compareTo(Duration.ofMillis(10)) < 0 || checkpointInterval.compareTo(Duration.ofMinutes(10)) > 0) {
            problems.add("mqtt.sessions.checkpointInterval: must be 10ms..10m");
        }
        if (loadTimeout.compareTo(Duration.ofMillis(100)) < 0 || loadTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
            problems.add("mqtt.sessions.loadTimeout: must be 100ms..5m");
        }
        if (maxLoads < 1 || maxLoads > 100_000) {
            problems.add("mqtt.sessions.maxLoads: must be 1..100000");
        }
    }
}
