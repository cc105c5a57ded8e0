package io.sluice.tls;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.UnrecoverableKeyException;
import java.util.Collections;

import javax.net.ssl.KeyManagerFactory;

import io.netty.handler.ssl.SslContextBuilder;

import io.sluice.config.ConfigException;
import io.sluice.config.KeyConfig;

/** Puts a {@link KeyConfig} into a Netty SSL context builder. */
final class KeyMaterial {

    /** How Netty takes a PEM certificate chain and key, for a server builder or an existing client builder. */
    @FunctionalInterface
    interface PemSink {
        SslContextBuilder accept(File certificateChain, File privateKey, String keyPassword);
    }

    private KeyMaterial() {
    }

    static SslContextBuilder forServer(KeyConfig key, String path) {
        if (key.usesPemFiles()) {
            return pem(key, path, SslContextBuilder::forServer);
        }
        return SslContextBuilder.forServer(keyManagerFactory(key, path));
    }

    static void addTo(SslContextBuilder builder, KeyConfig key, String path) {
        if (key.usesPemFiles()) {
            pem(key, path, builder::keyManager);
        }
        else {
            builder.keyManager(keyManagerFactory(key, path));
        }
    }

    private static SslContextBuilder pem(KeyConfig key, String path, PemSink sink) {
        String password = key.keyPassword() == null ? null : Stores.resolve(key.keyPassword(), path + ".keyPassword");
        try {
            return sink.accept(new File(key.certificateFile()), new File(key.privateKeyFile()), password);
        }
        catch (IllegalArgumentException e) {
            // Netty reads the chain first and says which of the two files it could not use.
            String message = String.valueOf(e.getMessage());
            if (message.startsWith("File does not contain valid certificates")) {
                throw new ConfigException(path + ".certificateFile: '" + key.certificateFile()
                        + "' does not contain a PEM certificate chain", e);
            }
            throw new ConfigException(privateKeyProblem(key, path), e);
        }
    }

    private static String privateKeyProblem(KeyConfig key, String path) {
        boolean encrypted = readsEncrypted(key.privateKeyFile());
        if (encrypted && key.keyPassword() == null) {
            return path + ".keyPassword: is required, the private key in '" + key.privateKeyFile() + "' is encrypted";
        }
        if (encrypted) {
            return path + ".keyPassword: cannot decrypt the private key in '" + key.privateKeyFile()
                    + "', the password is probably wrong";
        }
        if (key.keyPassword() != null) {
            return path + ".keyPassword: is set, but the private key in '" + key.privateKeyFile()
                    + "' is not an encrypted PKCS#8 key";
        }
        return path + ".privateKeyFile: '" + key.privateKeyFile() + "' does not contain a PEM private key";
    }

    private static boolean readsEncrypted(String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.ISO_8859_1).contains("ENCRYPTED");
        }
        catch (IOException e) {
            return false;
        }
    }

    private static KeyManagerFactory keyManagerFactory(KeyConfig key, String path) {
        KeyStore store = Stores.load(key.storeFile(), key.storeType(), key.storePassword(), path);
        requirePrivateKey(store, key, path);
        boolean ownKeyPassword = key.keyPassword() != null;
        char[] password = ownKeyPassword
                ? Stores.chars(key.keyPassword(), path + ".keyPassword")
                : Stores.chars(key.storePassword(), path + ".storePassword");
        try {
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, password);
            return factory;
        }
        catch (UnrecoverableKeyException e) {
            throw new ConfigException(ownKeyPassword
                    ? path + ".keyPassword: key password is incorrect"
                    : path + ".keyPassword: the key's password differs from the store password and must be given", e);
        }
        catch (GeneralSecurityException e) {
            throw new ConfigException(path + ".storeFile: '" + key.storeFile() + "' cannot be used: " + e.getMessage(), e);
        }
    }

    private static void requirePrivateKey(KeyStore store, KeyConfig key, String path) {
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias)) {
                    return;
                }
            }
        }
        catch (KeyStoreException e) {
            throw new IllegalStateException("key store was loaded but cannot be listed", e);
        }
        throw new ConfigException(path + ".storeFile: '" + key.storeFile() + "' holds no private key entry");
    }
}
