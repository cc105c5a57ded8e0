package io.sluice.tls;

import java.io.File;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.util.Collections;

import javax.net.ssl.TrustManagerFactory;

import io.netty.handler.ssl.SslContextBuilder;

import io.sluice.config.ConfigException;
import io.sluice.config.TrustConfig;

/** Puts a {@link TrustConfig} into a Netty SSL context builder. */
final class TrustMaterial {

    private TrustMaterial() {
    }

    static void addTo(SslContextBuilder builder, TrustConfig trust, String path) {
        if (trust.storeType().equals("PEM")) {
            try {
                builder.trustManager(new File(trust.storeFile()));
            }
            catch (IllegalArgumentException e) {
                throw new ConfigException(path + ".storeFile: '" + trust.storeFile()
                        + "' does not contain PEM certificates", e);
            }
            return;
        }
        KeyStore store = Stores.load(trust.storeFile(), trust.storeType(), trust.storePassword(), path);
        requireCertificate(store, trust, path);
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            builder.trustManager(factory);
        }
        catch (GeneralSecurityException e) {
            throw new ConfigException(path + ".storeFile: '" + trust.storeFile() + "' cannot be used: " + e.getMessage(), e);
        }
    }

    // An empty trust store would only fail later, at the first handshake, with an obscure message.
    private static void requireCertificate(KeyStore store, TrustConfig trust, String path) {
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (store.isCertificateEntry(alias)) {
                    return;
                }
            }
        }
        catch (KeyStoreException e) {
            throw new IllegalStateException("trust store was loaded but cannot be listed", e);
        }
        // PKCS12 stores usually encrypt their certificates too, which then stay invisible without the password.
        throw new ConfigException(path + ".storeFile: '" + trust.storeFile() + "' holds no trusted certificate entry"
                + (trust.storePassword() == null ? " readable without a password; set storePassword" : ""));
    }
}
