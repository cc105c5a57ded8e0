package io.sluice.format.registry;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;

import io.sluice.config.TlsClientConfig;
import io.sluice.tls.SslContexts;

/**
 * The JDK {@link SSLContext} for the registry's HTTP client, built by the same code as every other TLS client in
 * Sluice ({@link SslContexts}, JDK provider) so that key and trust files are read and reported the same way.
 */
final class RegistryTls {

    private final SSLContext context;
    private final SSLParameters parameters;

    private RegistryTls(SSLContext context, SSLParameters parameters) {
        this.context = context;
        this.parameters = parameters;
    }

    /**
     * @param path where the section sits in the configuration, for error messages ({@code schemaRegistry.tls})
     * @throws io.sluice.config.ConfigException naming the field for unreadable material or unsupported protocols
     */
    static RegistryTls of(TlsClientConfig tls, String path) {
        TlsClientConfig cfg = tls == null ? TlsClientConfig.defaults() : tls;
        SslContext netty = SslContexts.forClient(cfg, path);
        SSLContext context = ((JdkSslContext) netty).context();
        // Netty applies protocols and cipher suites to the engines it creates; the JDK HTTP client creates its own,
        // from these parameters. Host names are checked by the HTTP client itself (see RegistryConfig.validate).
        SSLParameters parameters = context.getDefaultSSLParameters();
        if (!cfg.protocols().isEmpty()) {
            parameters.setProtocols(cfg.protocols().toArray(String[]::new));
        }
        if (!cfg.cipherSuites().isEmpty()) {
            parameters.setCipherSuites(cfg.cipherSuites().toArray(String[]::new));
        }
        return new RegistryTls(context, parameters);
    }

    SSLContext context() {
        return context;
    }

    SSLParameters parameters() {
        return parameters;
    }
}
