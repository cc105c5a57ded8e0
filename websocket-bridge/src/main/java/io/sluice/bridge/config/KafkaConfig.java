package io.sluice.bridge.config;

import java.time.Duration;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where the bridge reads and publishes: a Kafka cluster directly, or a Sluice proxy in front of one (then
 * {@code bootstrapServers} is the proxy's bootstrap address; nothing else changes).
 *
 * @param bootstrapServers Kafka's {@code bootstrap.servers}
 * @param properties       extra kafka-clients properties for every client the bridge creates (security settings)
 * @param metadataRefresh  how often the reader looks for new partitions and topics that did not exist yet
 * @param publishTimeout   how long a publish may take before the client gets an error
 */
public record KafkaConfig(String bootstrapServers, Map<String, String> properties, Duration metadataRefresh,
                          Duration publishTimeout) {

    public static final Duration DEFAULT_METADATA_REFRESH = Duration.ofSeconds(30);
    public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(30);

    public KafkaConfig {
        properties = properties == null ? Map.of() : Map.copyOf(properties);
        metadataRefresh = metadataRefresh == null ? DEFAULT_METADATA_REFRESH : metadataRefresh;
        publishTimeout = publishTimeout == null ? DEFAULT_PUBLISH_TIMEOUT : publishTimeout;
    }

    @JsonCreator
    static KafkaConfig fromYaml(@JsonProperty("bootstrapServers") String bootstrapServers,
                                @JsonProperty("properties") Map<String, String> properties,
                                @JsonProperty("metadataRefresh") Duration metadataRefresh,
                                @JsonProperty("publishTimeout") Duration publishTimeout) {
        return new KafkaConfig(bootstrapServers, properties, metadataRefresh, publishTimeout);
    }
}
