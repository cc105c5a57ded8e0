package io.sluice.bridge.config;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

import io.sluice.bridge.selection.FilterLimits;
import io.sluice.format.FormatRule;
import io.sluice.format.mask.MaskingConfig;
import io.sluice.format.registry.RegistryConfig;
import io.sluice.config.ManagementConfig;

/**
 * The whole bridge configuration, as loaded by {@link BridgeConfigLoader}. Sections are never null; {@code topics} is
 * shorthand for one mapping per topic ({@code /<topic>/*} ↔ every key of the topic), see {@link #mappings()}.
 */
public record BridgeConfig(ServerConfig server,
                           KafkaConfig kafka,
                           List<String> topics,
                           List<EndpointMapping> endpoints,
                           AuthConfig auth,
                           OutboundConfig outbound,
                           RecoveryConfig recovery,
                           ManagementConfig management,
                           ConnectionsConfig connections,
                           RequestLimitsConfig requests,
                           DeltaConfig delta,
                           FilterLimits filters,
                           List<FormatRule> formats,
                           RegistryConfig schemaRegistry,
                           CatalogueConfig catalogue,
                           HttpConfig http,
                           MqttConfig mqtt,
                           MaskingConfig masking) {

    public BridgeConfig {
        server = server == null ? ServerConfig.defaults() : server;
        topics = topics == null ? List.of() : List.copyOf(topics);
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        auth = auth == null ? AuthConfig.defaults() : auth;
        outbound = outbound == null ? OutboundConfig.defaults() : outbound;
        recovery = recovery == null ? RecoveryConfig.defaults() : recovery;
        management = management == null ? ManagementConfig.defaults() : management;
        connections = connections == null ? ConnectionsConfig.defaults() : connections;
        requests = requests == null ? RequestLimitsConfig.defaults() : requests;
        delta = delta == null ? DeltaConfig.defaults() : delta;
        filters = filters == null ? FilterLimits.defaults() : filters;
        formats = formats == null ? List.of() : List.copyOf(formats);
        catalogue = catalogue == null ? CatalogueConfig.defaults() : catalogue;
        http = http == null ? HttpConfig.defaults() : http;
        mqtt = mqtt == null ? MqttConfig.defaults() : mqtt;
        masking = masking == null ? new MaskingConfig(null, null) : masking;
    }

    @JsonCreator
    static BridgeConfig fromYaml(@JsonProperty("server") ServerConfig server,
                                 @JsonProperty("kafka") KafkaConfig kafka,
                                 @JsonProperty("topics") @JsonDeserialize(using = TopicsDeserializer.class) List<String> topics,
                                 @JsonProperty("endpoints") List<EndpointMapping> endpoints,
                                 @JsonProperty("auth") AuthConfig auth,
                                 @JsonProperty("outbound") OutboundConfig outbound,
                                 @JsonProperty("recovery") RecoveryConfig recovery,
                                 @JsonProperty("management") ManagementConfig management,
                                 @JsonProperty("connections") ConnectionsConfig connections,
                                 @JsonProperty("requests") RequestLimitsConfig requests,
                                 @JsonProperty("delta") DeltaConfig delta,
                                 @JsonProperty("filters") FilterLimits filters,
                                 @JsonProperty("formats") List<FormatRule> formats,
                                 @JsonProperty("schemaRegistry") RegistryConfig schemaRegistry,
                                 @JsonProperty("catalogue") CatalogueConfig catalogue,
                                 @JsonProperty("http") HttpConfig http,
                                 @JsonProperty("mqtt") MqttConfig mqtt,
                                 @JsonProperty("masking") MaskingConfig masking) {
        return new BridgeConfig(server, kafka, topics, endpoints, auth, outbound, recovery, management, connections,
                requests, delta, filters, formats, schemaRegistry, catalogue, http, mqtt, masking);
    }

    /** Every endpoint mapping: the explicit ones first, then one {@code /<topic>/*} per entry of {@code topics}. */
    public List<EndpointMapping> mappings() {
        List<EndpointMapping> all = new ArrayList<>(endpoints);
        topics.forEach(t -> all.add(EndpointMapping.wholeTopic(t)));
        return all;
    }

    /** The distinct topics the bridge reads, in the order they first appear in {@link #mappings()}. */
    public List<String> readTopics() {
        return mappings().stream().map(EndpointMapping::topic).distinct().toList();
    }
}
