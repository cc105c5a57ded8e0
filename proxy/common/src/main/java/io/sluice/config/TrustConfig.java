package io.sluice.config;

import java.util.Locale;

/**
 * The certificates to trust: a PEM bundle, or a PKCS12/JKS trust store.
 *
 * @param storePassword optional for trust stores (certificates need no password to read), unused for PEM
 * @param storeType {@code PEM}, {@code PKCS12} (default) or {@code JKS}
 */
public record TrustConfig(String storeFile, PasswordSource storePassword, String storeType) {

    public static final String DEFAULT_STORE_TYPE = "PKCS12";

    public TrustConfig {
        storeType = storeType == null ? DEFAULT_STORE_TYPE : storeType.strip().toUpperCase(Locale.ROOT);
    }

    public static TrustConfig pem(String file) {
        return new TrustConfig(file, null, "PEM");
    }
}
