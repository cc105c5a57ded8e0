package io.sluice.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.UnrecoverableKeyException;

import io.sluice.config.ConfigException;
import io.sluice.config.PasswordSource;

/** Opens key and trust stores, blaming the field at fault when that fails. */
final class Stores {

    private Stores() {
    }

    /**
     * @param path the section holding {@code storeFile}, {@code storePassword} and {@code storeType}
     */
    static KeyStore load(String file, String type, PasswordSource password, String path) {
        KeyStore store;
        try {
            store = KeyStore.getInstance(type);
        }
        catch (KeyStoreException e) {
            throw new ConfigException(path + ".storeType: '" + type + "' is not a key store type this JVM supports", e);
        }
        char[] secret = password == null ? null : chars(password, path + ".storePassword");
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            store.load(in, secret);
            return store;
        }
        catch (NoSuchFileException e) {
            throw new ConfigException(path + ".storeFile: file '" + file + "' does not exist", e);
        }
        catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException) {
                throw new ConfigException(path + ".storePassword: keystore password is incorrect", e);
            }
            throw new ConfigException(path + ".storeFile: '" + file + "' is not a valid " + type + " store"
                    + ("PEM".equals(type) ? "" : " (for PEM files set storeType: PEM)") + ": " + e.getMessage(), e);
        }
        catch (GeneralSecurityException e) {
            throw new ConfigException(path + ".storeFile: '" + file + "' cannot be read as a " + type + " store: "
                    + e.getMessage(), e);
        }
    }

    /** Resolves a password, naming {@code path} if its file cannot be read. */
    static String resolve(PasswordSource password, String path) {
        try {
            return password.resolve();
        }
        catch (ConfigException e) {
            throw new ConfigException(path + ": " + e.problems().get(0), e);
        }
    }

    static char[] chars(PasswordSource password, String path) {
        return resolve(password, path).toCharArray();
    }
}
