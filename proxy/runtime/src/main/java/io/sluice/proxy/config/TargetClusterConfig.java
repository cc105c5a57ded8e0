package io.sluice.proxy.config;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.sluice.config.HostPort;
import io.sluice.config.TlsClientConfig;

/**
 * The real Kafka cluster behind a virtual cluster.
 *
 * @param tls null means plaintext
 * @param discovery whether to learn the broker list with a Kafka Admin client (YAML default true)
 * @param discoveryProperties extra properties for that Admin client, e.g. SASL settings
 * @param sasl the proxy's own SASL credentials towards the brokers; null means none (clients' SASL passes through)
 */
public record TargetClusterConfig(List<HostPort> bootstrapServers,
                                  TlsClientConfig tls,
                                  boolean discovery,
                                  Map<String, String> discoveryProperties,
                                  SaslClientConfig sasl) {

    public TargetClusterConfig {
        bootstrapServers = bootstrapServers == null ? List.of() : List.copyOf(bootstrapServers);
        discoveryProperties = discoveryProperties == null ? Map.of() : Map.copyOf(discoveryProperties);
    }

    @JsonCreator
    static TargetClusterConfig fromYaml(@JsonProperty("bootstrapServers") @JsonDeserialize(using = BootstrapServersDeserializer.class) List<HostPort> bootstrapServers,
                                        @JsonProperty("tls") TlsClientConfig tls,
                                        @JsonProperty("discovery") Boolean discovery,
                                        @JsonProperty("discoveryProperties") Map<String, String> discoveryProperties,
                                        @JsonProperty("sasl") SaslClientConfig sasl) {
        return new TargetClusterConfig(bootstrapServers, tls, !Boolean.FALSE.equals(discovery), discoveryProperties, sasl);
    }

    /** The servers in Kafka's {@code bootstrap.servers} form. */
    public String bootstrapServersString() {
        return bootstrapServers.stream().map(HostPort::toString).collect(Collectors.joining(","));
    }
}
