package io.sluice.config;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * TLS the proxy uses towards the target cluster's brokers.
 *
 * @param key a client certificate, for brokers that require mutual TLS
 * @param trust the CAs broker certificates must chain to; null means the JVM's default trust store
 * @param insecure trust any broker certificate; for experiments only, a warning is logged
 * @param verifyHostname check that the broker certificate names the host connected to (YAML default true)
 */
public record TlsClientConfig(KeyConfig key,
                              TrustConfig trust,
                              boolean insecure,
                              boolean verifyHostname,
                              List<String> protocols,
                              List<String> cipherSuites) {

    public TlsClientConfig {
        protocols = protocols == null ? List.of() : List.copyOf(protocols);
        cipherSuites = cipherSuites == null ? List.of() : List.copyOf(cipherSuites);
    }

    /** Secure defaults: JVM trust store, hostname verification on. */
    public static TlsClientConfig defaults() {
        return new TlsClientConfig(null, null, false, true, List.of(), List.of());
    }

    @JsonCreator
    static TlsClientConfig fromYaml(@JsonProperty("key") KeyConfig key,
                                    @JsonProperty("trust") TrustConfig trust,
                                    @JsonProperty("insecure") Boolean insecure,
                                    @JsonProperty("verifyHostname") Boolean verifyHostname,
                                    @JsonProperty("protocols") List<String> protocols,
                                    @JsonProperty("cipherSuites") List<String> cipherSuites) {
        return new TlsClientConfig(key, trust, Boolean.TRUE.equals(insecure), !Boolean.FALSE.equals(verifyHostname),
                protocols, cipherSuites);
    }
}
