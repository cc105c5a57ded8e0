package io.sluice.kms.vault;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Locale;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/** The SSLContext for talking to Vault, from {@link VaultTls}. */
final class VaultTrust {

    private VaultTrust() {
    }

    /**
     * @return the context; the JVM default when {@code tls} is null
     * @throws IllegalArgumentException {@code "tls.field: why"}
     */
    static SSLContext sslContext(VaultTls tls) {
        try {
            if (tls == null) {
                return SSLContext.getDefault();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            if (tls.insecure()) {
                context.init(null, new TrustManager[]{ new TrustEverything() }, null);
                return context;
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(trustStore(tls));
            context.init(null, factory.getTrustManagers(), null);
            return context;
        }
        catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("tls: cannot set up TLS: " + e.getMessage(), e);
        }
    }

    static String type(VaultTls tls) {
        if (tls.trustStoreType() != null) {
            return tls.trustStoreType().strip().toUpperCase(Locale.ROOT);
        }
        String name = tls.trustStoreFile().toLowerCase(Locale.ROOT);
        if (name.endsWith(".pem") || name.endsWith(".crt") || name.endsWith(".cer")) {
            return "PEM";
        }
        return name.endsWith(".jks") ? "JKS" : "PKCS12";
    }

    private static KeyStore trustStore(VaultTls tls) throws GeneralSecurityException {
        Path file = Path.of(tls.trustStoreFile());
        String type = type(tls);
        try (InputStream in = Files.newInputStream(file)) {
            if (type.equals("PEM")) {
                Collection<? extends Certificate> certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
                if (certificates.isEmpty()) {
                    throw new IllegalArgumentException("tls.trustStoreFile: '" + file + "' holds no PEM certificates");
                }
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                int i = 0;
                for (Certificate certificate : certificates) {
                    store.setCertificateEntry("ca-" + i++, certificate);
                }
                return store;
            }
            if (!type.equals("PKCS12") && !type.equals("JKS")) {
                throw new IllegalArgumentException("tls.trustStoreType: must be PEM, PKCS12 or JKS, not " + tls.trustStoreType());
            }
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, tls.trustStorePassword() == null ? null : tls.trustStorePassword().toCharArray());
            return store;
        }
        catch (NoSuchFileException e) {
            throw new IllegalArgumentException("tls.trustStoreFile: '" + file + "' does not exist", e);
        }
        catch (IOException e) {
            throw new IllegalArgumentException("tls.trustStoreFile: '" + file + "' cannot be read as " + type + ": " + e.getMessage(), e);
        }
    }

    /**
     * Trusts any certificate for any host. An extended trust manager, because the JDK checks host names inside the
     * trust manager: a plain one would be wrapped and the name still checked.
     */
    private static final class TrustEverything extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
