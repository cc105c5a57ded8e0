package io.sluice.tls;

import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import io.sluice.config.ClientAuthMode;
import io.sluice.config.ConfigException;
import io.sluice.config.TlsClientConfig;
import io.sluice.config.TlsServerConfig;

/**
 * Builds Netty SSL contexts from the TLS configuration. Every problem with the material (unreadable files, wrong
 * passwords, wrong store types, unsupported protocols) is a {@link ConfigException} naming the field, so it can be
 * reported at startup like any other configuration error. The JDK provider is used throughout so that key stores,
 * trust managers and hostname verification behave the same wherever the proxy runs.
 */
public final class SslContexts {

    private static final Logger LOG = LoggerFactory.getLogger(SslContexts.class);
    private static final String HTTPS = "HTTPS";

    private SslContexts() {
    }

    /** The gateway side; problems are reported under {@code tls.}. */
    public static SslContext forServer(TlsServerConfig cfg) {
        return forServer(cfg, "tls");
    }

    /**
     * @param path where the section sits in the configuration, e.g. {@code virtualClusters[0].gateways[0].tls}
     */
    public static SslContext forServer(TlsServerConfig cfg, String path) {
        return forServer(cfg, path, List.of());
    }

    /**
     * A server context that also offers {@code protocols} by ALPN, most preferred first (e.g. {@code h2},
     * {@code http/1.1}); a client offering none of them, or no ALPN at all, gets the handshake without a protocol
     * (the caller's default). An empty list: no ALPN, as {@link #forServer(TlsServerConfig, String)}.
     */
    public static SslContext forServer(TlsServerConfig cfg, String path, List<String> protocols) {
        if (cfg.key() == null) {
            throw new ConfigException(path + ".key: is required: a gateway needs a certificate to offer TLS");
        }
        SslContextBuilder builder = KeyMaterial.forServer(cfg.key(), path + ".key").sslProvider(SslProvider.JDK);
        if (cfg.trust() != null) {
            TrustMaterial.addTo(builder, cfg.trust(), path + ".trust");
        }
        builder.clientAuth(clientAuth(cfg.clientAuth()));
        restrict(builder, cfg.protocols(), cfg.cipherSuites(), path);
        if (!protocols.isEmpty()) {
            builder.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols));
        }
        return build(builder, path);
    }

    /** Towards the brokers; problems are reported under {@code tls.}. */
    public static SslContext forClient(TlsClientConfig cfg) {
        return forClient(cfg, "tls");
    }

    /**
     * The context verifies broker hostnames itself when configured to, provided engines are made with the peer's
     * host: {@code ctx.newHandler(alloc, host, port)}.
     *
     * @param path where the section sits in the configuration, e.g. {@code virtualClusters[0].targetCluster.tls}
     */
    public static SslContext forClient(TlsClientConfig cfg, String path) {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
        if (cfg.key() != null) {
            KeyMaterial.addTo(builder, cfg.key(), path + ".key");
        }
        if (cfg.insecure()) {
            LOG.warn("{}.insecure is true: broker certificates are NOT verified, so the connection to the brokers can be "
                    + "intercepted. Use this for experiments only.", path);
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        else if (cfg.trust() != null) {
            TrustMaterial.addTo(builder, cfg.trust(), path + ".trust");
        }
        // Netty 4.2 verifies hostnames by default; set it either way so the configuration decides.
        builder.endpointIdentificationAlgorithm(verifiesHostname(cfg) ? HTTPS : null);
        restrict(builder, cfg.protocols(), cfg.cipherSuites(), path);
        return build(builder, path);
    }

    /**
     * Turns hostname verification on for an engine when the configuration asks for it (and does not disable
     * verification altogether with {@code insecure}), off otherwise. The engine must have been created with the
     * broker's host name, or verification cannot succeed.
     */
    public static void applyHostnameVerification(SSLEngine engine, TlsClientConfig cfg) {
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm(verifiesHostname(cfg) ? HTTPS : null);
        engine.setSSLParameters(parameters);
    }

    private static boolean verifiesHostname(TlsClientConfig cfg) {
        return cfg.verifyHostname() && !cfg.insecure();
    }

    private static ClientAuth clientAuth(ClientAuthMode mode) {
        return switch (mode) {
            case NONE -> ClientAuth.NONE;
            case REQUESTED -> ClientAuth.OPTIONAL;
            case REQUIRED -> ClientAuth.REQUIRE;
        };
    }

    // Checked against the JVM up front: otherwise a typo surfaces only when the first engine is created.
    private static void restrict(SslContextBuilder builder, List<String> protocols, List<String> cipherSuites, String path) {
        SSLParameters supported = supportedParameters();
        if (!protocols.isEmpty()) {
            requireSupported(protocols, supported.getProtocols(), path + ".protocols", true);
            builder.protocols(protocols);
        }
        if (!cipherSuites.isEmpty()) {
            requireSupported(cipherSuites, supported.getCipherSuites(), path + ".cipherSuites", false);
            builder.ciphers(cipherSuites);
        }
    }

    private static void requireSupported(List<String> wanted, String[] available, String path, boolean listChoices) {
        Set<String> known = new TreeSet<>(Arrays.asList(available));
        for (int i = 0; i < wanted.size(); i++) {
            if (!known.contains(wanted.get(i))) {
                throw new ConfigException(path + "[" + i + "]: '" + wanted.get(i) + "' is not supported by this JVM"
                        + (listChoices ? " (supported: " + String.join(", ", known) + ")" : ""));
            }
        }
    }

    private static SSLParameters supportedParameters() {
        try {
            return SSLContext.getDefault().getSupportedSSLParameters();
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no default TLS implementation", e);
        }
    }

    private static SslContext build(SslContextBuilder builder, String path) {
        try {
            return builder.build();
        }
        catch (SSLException | IllegalArgumentException e) {
            throw new ConfigException(path + ": cannot build the TLS context: " + e.getMessage(), e);
        }
    }
}
