package io.sluice.config;

import java.util.Locale;

/**
 * A private key with its certificate chain, either as two PEM files or as a PKCS12/JKS key store. Exactly one form
 * is set in a valid configuration.
 *
 * @param keyPassword for PEM: the password of an encrypted private key; for a store: the key entry's password when
 *        it differs from the store password
 * @param storeType {@code PKCS12} (default when {@code storeFile} is set) or {@code JKS}
 */
public record KeyConfig(String privateKeyFile,
                        String certificateFile,
                        PasswordSource keyPassword,
                        String storeFile,
                        PasswordSource storePassword,
                        String storeType) {

    public static final String DEFAULT_STORE_TYPE = "PKCS12";

    public KeyConfig {
        if (storeType != null) {
            storeType = storeType.strip().toUpperCase(Locale.ROOT);
        }
        else if (storeFile != null) {
            storeType = DEFAULT_STORE_TYPE;
        }
    }

    public static KeyConfig pem(String privateKeyFile, String certificateFile, PasswordSource keyPassword) {
        return new KeyConfig(privateKeyFile, certificateFile, keyPassword, null, null, null);
    }

    public static KeyConfig store(String storeFile, PasswordSource storePassword, String storeType) {
        return new KeyConfig(null, null, null, storeFile, storePassword, storeType);
    }

    /** True when the key comes from PEM files rather than a key store. */
    public boolean usesPemFiles() {
        return storeFile == null;
    }
}
