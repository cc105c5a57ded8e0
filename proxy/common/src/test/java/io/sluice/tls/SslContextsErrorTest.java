package io.sluice.tls;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.sluice.config.ConfigException;
import io.sluice.config.KeyConfig;
import io.sluice.config.PasswordSource;
import io.sluice.config.TlsClientConfig;
import io.sluice.config.TlsServerConfig;
import io.sluice.config.TrustConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Broken TLS material is reported as a configuration error naming the field at fault. */
class SslContextsErrorTest {

    @TempDir
    static Path dir;

    static TestPki pki;
    static String keyStore;
    static String cert;
    static String key;

    @BeforeAll
    static void setUp() throws Exception {
        pki = new TestPki(dir);
        keyStore = pki.keyStore(pki.server, "server", "PKCS12", TestPki.STORE_PASSWORD, TestPki.STORE_PASSWORD).toString();
        cert = pki.certificatePem(pki.server, "server").toString();
        key = pki.privateKeyPem(pki.server, "server").toString();
    }

    @Test
    void wrongKeyStorePassword() {
        TlsServerConfig cfg = server(KeyConfig.store(keyStore, PasswordSource.of("wrong"), null));

        assertThatThrownBy(() -> SslContexts.forServer(cfg))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid configuration: tls.key.storePassword: keystore password is incorrect");
    }

    @Test
    void wrongJksStorePasswordNamesTheFullPath() throws Exception {
        String jks = pki.keyStore(pki.server, "server-jks", "JKS", TestPki.STORE_PASSWORD, TestPki.STORE_PASSWORD).toString();
        TlsServerConfig cfg = server(KeyConfig.store(jks, PasswordSource.of("wrong"), "JKS"));

        assertThatThrownBy(() -> SslContexts.forServer(cfg, "virtualClusters[0].gateways[1].tls"))
                .hasMessage("Invalid configuration: virtualClusters[0].gateways[1].tls.key.storePassword: keystore password is incorrect");
    }

    @Test
    void wrongTrustStorePassword() throws Exception {
        String trust = pki.trustStore(pki.ca, "trust", "PKCS12").toString();
        TlsClientConfig cfg = client(new TrustConfig(trust, PasswordSource.of("wrong"), null));

        assertThatThrownBy(() -> SslContexts.forClient(cfg))
                .hasMessage("Invalid configuration: tls.trust.storePassword: keystore password is incorrect");
    }

    @Test
    void wrongKeyEntryPassword() throws Exception {
        String store = pki.keyStore(pki.server, "server-keypw", "PKCS12", TestPki.STORE_PASSWORD, "key-secret").toString();
        KeyConfig withoutKeyPassword = KeyConfig.store(store, PasswordSource.of(TestPki.STORE_PASSWORD), null);
        KeyConfig withWrongKeyPassword = new KeyConfig(null, null, PasswordSource.of("wrong"), store,
                PasswordSource.of(TestPki.STORE_PASSWORD), null);

        assertThatThrownBy(() -> SslContexts.forServer(server(withoutKeyPassword)))
                .hasMessageContaining("tls.key.keyPassword: the key's password differs from the store password");
        assertThatThrownBy(() -> SslContexts.forServer(server(withWrongKeyPassword)))
                .hasMessage("Invalid configuration: tls.key.keyPassword: key password is incorrect");
    }

    @Test
    void aPemFileReadAsAPkcs12Store() throws Exception {
        String pem = pki.caPem(pki.ca, "ca").toString();
        TlsClientConfig cfg = client(new TrustConfig(pem, null, "PKCS12"));

        assertThatThrownBy(() -> SslContexts.forClient(cfg))
                .hasMessageStartingWith("Invalid configuration: tls.trust.storeFile: '" + pem + "' is not a valid PKCS12 store "
                        + "(for PEM files set storeType: PEM)");
    }

    @Test
    void aStoreReadAsPem() {
        TlsClientConfig cfg = client(TrustConfig.pem(keyStore));

        assertThatThrownBy(() -> SslContexts.forClient(cfg))
                .hasMessage("Invalid configuration: tls.trust.storeFile: '" + keyStore + "' does not contain PEM certificates");
    }

    @Test
    void anUnknownStoreType() {
        TlsServerConfig cfg = server(KeyConfig.store(keyStore, PasswordSource.of(TestPki.STORE_PASSWORD), "BKS9"));

        assertThatThrownBy(() -> SslContexts.forServer(cfg))
                .hasMessage("Invalid configuration: tls.key.storeType: 'BKS9' is not a key store type this JVM supports");
    }

    @Test
    void aTrustStoreWithoutCertificates() throws Exception {
        String empty = pki.trustStore(null, "empty", "PKCS12").toString();

        assertThatThrownBy(() -> SslContexts.forClient(client(new TrustConfig(empty, PasswordSource.of(TestPki.STORE_PASSWORD), null))))
                .hasMessage("Invalid configuration: tls.trust.storeFile: '" + empty + "' holds no trusted certificate entry");
    }

    @Test
    void aPasswordProtectedPkcs12TrustStoreReadWithoutItsPassword() throws Exception {
        String trust = pki.trustStore(pki.ca, "trust-needs-password", "PKCS12").toString();

        assertThatThrownBy(() -> SslContexts.forClient(client(new TrustConfig(trust, null, "PKCS12"))))
                .hasMessage("Invalid configuration: tls.trust.storeFile: '" + trust + "' holds no trusted certificate entry "
                        + "readable without a password; set storePassword");
    }

    @Test
    void aKeyStoreWithoutAKey() throws Exception {
        String trustOnly = pki.trustStore(pki.ca, "trust-only", "PKCS12").toString();

        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.store(trustOnly, PasswordSource.of(TestPki.STORE_PASSWORD), null))))
                .hasMessage("Invalid configuration: tls.key.storeFile: '" + trustOnly + "' holds no private key entry");
    }

    @Test
    void aMissingStoreFile() {
        String missing = dir.resolve("missing.p12").toString();

        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.store(missing, PasswordSource.of("x"), null))))
                .hasMessage("Invalid configuration: tls.key.storeFile: file '" + missing + "' does not exist");
    }

    @Test
    void anUnreadablePasswordFile() {
        String missing = dir.resolve("missing-password").toString();

        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.store(keyStore, PasswordSource.fromFile(missing), null))))
                .hasMessageStartingWith("Invalid configuration: tls.key.storePassword: passwordFile '" + missing + "' cannot be read");
    }

    @Test
    void aCertificateFileWithoutCertificates() throws Exception {
        String garbage = Files.writeString(dir.resolve("garbage.crt"), "not a certificate").toString();

        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.pem(key, garbage, null))))
                .hasMessage("Invalid configuration: tls.key.certificateFile: '" + garbage + "' does not contain a PEM certificate chain");
    }

    @Test
    void aPrivateKeyFileWithoutAKey() throws Exception {
        String garbage = Files.writeString(dir.resolve("garbage.key"), "not a key").toString();

        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.pem(garbage, cert, null))))
                .hasMessage("Invalid configuration: tls.key.privateKeyFile: '" + garbage + "' does not contain a PEM private key");
    }

    @Test
    void encryptedPemKeyPasswordProblems() throws Exception {
        String encrypted = pki.encryptedPrivateKeyPem(pki.server, "encrypted", "key-secret").toString();

        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.pem(encrypted, cert, PasswordSource.of("wrong")))))
                .hasMessageStartingWith("Invalid configuration: tls.key.keyPassword: cannot decrypt the private key");
        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.pem(encrypted, cert, null))))
                .hasMessageStartingWith("Invalid configuration: tls.key.keyPassword: is required");
        assertThatThrownBy(() -> SslContexts.forServer(server(KeyConfig.pem(key, cert, PasswordSource.of("x")))))
                .hasMessageStartingWith("Invalid configuration: tls.key.keyPassword: is set, but the private key");
    }

    @Test
    void unsupportedProtocolsAndCiphers() {
        TlsServerConfig protocols = new TlsServerConfig(KeyConfig.pem(key, cert, null), null, null, List.of("TLSv1.3", "TLSv9"), null);
        TlsClientConfig ciphers = new TlsClientConfig(null, null, false, true, List.of(), List.of("TLS_MADE_UP"));

        assertThatThrownBy(() -> SslContexts.forServer(protocols))
                .hasMessageStartingWith("Invalid configuration: tls.protocols[1]: 'TLSv9' is not supported by this JVM (supported: ");
        assertThatThrownBy(() -> SslContexts.forClient(ciphers))
                .hasMessage("Invalid configuration: tls.cipherSuites[0]: 'TLS_MADE_UP' is not supported by this JVM");
    }

    @Test
    void aServerNeedsAKey() {
        assertThatThrownBy(() -> SslContexts.forServer(server(null))).hasMessageContaining("tls.key: is required");
    }

    @Test
    void insecureWarnsWithoutRevealingSecrets() {
        Logger logger = (Logger) LoggerFactory.getLogger(SslContexts.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            KeyConfig clientKey = KeyConfig.store(keyStore, PasswordSource.of(TestPki.STORE_PASSWORD), null);
            SslContexts.forClient(new TlsClientConfig(clientKey, null, true, true, List.of(), List.of()),
                    "virtualClusters[0].targetCluster.tls");
        }
        finally {
            logger.detachAppender(appender);
        }

        assertThat(appender.list).singleElement().satisfies(event -> {
            assertThat(event.getLevel().toString()).isEqualTo("WARN");
            assertThat(event.getFormattedMessage()).contains("virtualClusters[0].targetCluster.tls.insecure")
                    .doesNotContain(TestPki.STORE_PASSWORD);
        });
    }

    private static TlsServerConfig server(KeyConfig key) {
        return new TlsServerConfig(key, null, null, null, null);
    }

    private static TlsClientConfig client(TrustConfig trust) {
        return new TlsClientConfig(null, trust, false, true, List.of(), List.of());
    }
}
