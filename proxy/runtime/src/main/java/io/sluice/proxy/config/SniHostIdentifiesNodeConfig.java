package io.sluice.proxy.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.config.HostPort;

/**
 * The "SNI host identifies node" scheme: one TLS port serves the bootstrap and every broker, and the server name a
 * client puts in its TLS ClientHello (SNI) says which one it means. Several gateways, of one virtual cluster or of
 * several, may share a port as long as their names differ.
 *
 * @param listenAddress     where the proxy listens; gateways that name the same address share one listener
 * @param bootstrapHost     the server name of the bootstrap, e.g. {@code bootstrap.kafka.example.com}
 * @param brokerHostPattern the server name of each broker, with {@code $(nodeId)}, e.g.
 *                          {@code broker-$(nodeId).kafka.example.com}; also the host advertised for it
 * @param advertisedPort    the port advertised with the broker names; 0 (the YAML default) means the listen port, set
 *                          it when a load balancer in front listens on another (443, say)
 */
public record SniHostIdentifiesNodeConfig(HostPort listenAddress,
                                          String bootstrapHost,
                                          String brokerHostPattern,
                                          int advertisedPort) {

    @JsonCreator
    static SniHostIdentifiesNodeConfig fromYaml(@JsonProperty("listenAddress") HostPort listenAddress,
                                                @JsonProperty("bootstrapHost") String bootstrapHost,
                                                @JsonProperty("brokerHostPattern") String brokerHostPattern,
                                                @JsonProperty("advertisedPort") Integer advertisedPort) {
        return new SniHostIdentifiesNodeConfig(listenAddress, bootstrapHost, brokerHostPattern, advertisedPort == null ? 0 : advertisedPort);
    }

    /** The port clients are told to use: {@code advertisedPort}, or the listen port when that is 0. */
    public int effectiveAdvertisedPort() {
        return advertisedPort > 0 ? advertisedPort : listenAddress.port();
    }
}
