package io.sluice.tls;

import java.nio.file.Path;
import java.util.List;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;

import io.sluice.config.ClientAuthMode;
import io.sluice.config.KeyConfig;
import io.sluice.config.PasswordSource;
import io.sluice.config.TlsClientConfig;
import io.sluice.config.TlsServerConfig;
import io.sluice.config.TrustConfig;

import static org.assertj.core.api.Assertions.assertThat;

/** Real handshakes over loopback between contexts built from configuration. */
class SslContextsHandshakeTest {

    @TempDir
    static Path dir;

    static TestPki pki;
    static TlsEcho echo;

    @BeforeAll
    static void setUp() throws Exception {
        pki = new TestPki(dir);
        echo = new TlsEcho();
    }

    @AfterAll
    static void tearDown() {
        echo.close();
    }

    @Test
    void pemServerAndPemTrust() throws Exception {
        TlsClientConfig client = clientTrusting(TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(pemServer(pki.server, "server")),
                SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void pkcs12ServerAndPkcs12Trust() throws Exception {
        Path keyStore = pki.keyStore(pki.server, "server", "PKCS12", TestPki.STORE_PASSWORD, TestPki.STORE_PASSWORD);
        TlsServerConfig server = new TlsServerConfig(KeyConfig.store(keyStore.toString(), PasswordSource.of(TestPki.STORE_PASSWORD), null),
                null, null, null, null);
        TlsClientConfig client = clientTrusting(new TrustConfig(pki.trustStore(pki.ca, "trust", "PKCS12").toString(),
                PasswordSource.of(TestPki.STORE_PASSWORD), null));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(server), SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void jksStoresWithASeparateKeyPassword() throws Exception {
        Path keyStore = pki.keyStore(pki.server, "server-jks", "JKS", TestPki.STORE_PASSWORD, "key-secret");
        TlsServerConfig server = new TlsServerConfig(new KeyConfig(null, null, PasswordSource.of("key-secret"),
                keyStore.toString(), PasswordSource.of(TestPki.STORE_PASSWORD), "JKS"), null, null, null, null);
        TlsClientConfig client = clientTrusting(new TrustConfig(pki.trustStore(pki.ca, "trust", "JKS").toString(), null, "JKS"));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(server), SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void encryptedPemKey() throws Exception {
        Path key = pki.encryptedPrivateKeyPem(pki.server, "server-encrypted", "key-secret");
        TlsServerConfig server = new TlsServerConfig(KeyConfig.pem(key.toString(),
                pki.certificatePem(pki.server, "server").toString(), PasswordSource.of("key-secret")), null, null, null, null);
        TlsClientConfig client = clientTrusting(TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(server), SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void mutualTlsSucceedsWithAClientCertificate() throws Exception {
        TlsServerConfig server = mtlsServer(ClientAuthMode.REQUIRED);
        TlsClientConfig client = new TlsClientConfig(
                KeyConfig.pem(pki.privateKeyPem(pki.client, "client").toString(), pki.certificatePem(pki.client, "client").toString(), null),
                TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()), false, true, List.of(), List.of());

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(server), SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void mutualTlsFailsWithoutAClientCertificate() throws Exception {
        TlsClientConfig client = clientTrusting(TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(mtlsServer(ClientAuthMode.REQUIRED)),
                SslContexts.forClient(client), client);

        assertThat(outcome.serverFailure()).isInstanceOf(SSLHandshakeException.class);
        assertThat(outcome.echoed()).isNull();
    }

    @Test
    void mutualTlsFailsWithACertificateFromAnotherCa() throws Exception {
        TlsServerConfig server = new TlsServerConfig(mtlsServer(ClientAuthMode.REQUIRED).key(),
                TrustConfig.pem(pki.caPem(pki.otherCa, "other-ca").toString()), ClientAuthMode.REQUIRED, null, null);
        TlsClientConfig client = new TlsClientConfig(
                KeyConfig.pem(pki.privateKeyPem(pki.client, "client").toString(), pki.certificatePem(pki.client, "client").toString(), null),
                TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()), false, true, List.of(), List.of());

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(server), SslContexts.forClient(client), client);

        assertThat(outcome.serverFailure()).isInstanceOf(SSLHandshakeException.class);
        assertThat(outcome.echoed()).isNull();
    }

    @Test
    void requestedClientAuthLetsClientsWithoutACertificateIn() throws Exception {
        TlsClientConfig client = clientTrusting(TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(mtlsServer(ClientAuthMode.REQUESTED)),
                SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void hostnameVerificationRejectsACertificateForAnotherHost() throws Exception {
        TlsClientConfig client = clientTrusting(TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(pemServer(pki.wrongHostServer, "wrong-host")),
                SslContexts.forClient(client), client);

        assertThat(outcome.clientFailure()).isInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining(TlsEcho.PEER_HOST);
        assertThat(outcome.echoed()).isNull();
    }

    @Test
    void withoutHostnameVerificationTheSameCertificateIsAccepted() throws Exception {
        TlsClientConfig client = new TlsClientConfig(null, TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()),
                false, false, List.of(), List.of());

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(pemServer(pki.wrongHostServer, "wrong-host")),
                SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void anUntrustedCaIsRejected() throws Exception {
        TlsClientConfig client = clientTrusting(TrustConfig.pem(pki.caPem(pki.otherCa, "other-ca").toString()));

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(pemServer(pki.server, "server")),
                SslContexts.forClient(client), client);

        assertThat(outcome.clientFailure()).isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theJvmDefaultTrustDoesNotKnowTheTestCa() throws Exception {
        TlsClientConfig client = TlsClientConfig.defaults();

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(pemServer(pki.server, "server")),
                SslContexts.forClient(client), client);

        assertThat(outcome.clientFailure()).isInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void insecureTrustsAnythingAndSkipsHostnames() throws Exception {
        TlsClientConfig client = new TlsClientConfig(null, null, true, true, List.of(), List.of());

        TlsEcho.Outcome outcome = echo.exchange(SslContexts.forServer(pemServer(pki.wrongHostServer, "wrong-host")),
                SslContexts.forClient(client), client);

        assertThat(outcome.succeeded()).as("%s", outcome).isTrue();
    }

    @Test
    void protocolsAreRestrictedAsConfigured() throws Exception {
        TlsServerConfig server = new TlsServerConfig(pemServer(pki.server, "server").key(), null, null, List.of("TLSv1.3"), null);
        TlsClientConfig tls12Only = new TlsClientConfig(null, TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()),
                false, true, List.of("TLSv1.2"), List.of());
        TlsClientConfig tls13Only = new TlsClientConfig(null, TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()),
                false, true, List.of("TLSv1.3"), List.of("TLS_AES_128_GCM_SHA256"));

        assertThat(echo.exchange(SslContexts.forServer(server), SslContexts.forClient(tls12Only), tls12Only).succeeded()).isFalse();
        assertThat(echo.exchange(SslContexts.forServer(server), SslContexts.forClient(tls13Only), tls13Only).succeeded()).isTrue();
    }

    @Test
    void hostnameVerificationIsSetOnTheEngineOnlyWhenWanted() {
        TlsClientConfig verifying = TlsClientConfig.defaults();
        TlsClientConfig notVerifying = new TlsClientConfig(null, null, false, false, List.of(), List.of());
        TlsClientConfig insecure = new TlsClientConfig(null, null, true, true, List.of(), List.of());
        SslContext context = SslContexts.forClient(notVerifying);

        assertThat(algorithmAfterApplying(context, verifying)).isEqualTo("HTTPS");
        assertThat(algorithmAfterApplying(context, notVerifying)).isNull();
        assertThat(algorithmAfterApplying(context, insecure)).isNull();
    }

    private static String algorithmAfterApplying(SslContext context, TlsClientConfig cfg) {
        SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT, "broker", 9092);
        SslContexts.applyHostnameVerification(engine, cfg);
        return engine.getSSLParameters().getEndpointIdentificationAlgorithm();
    }

    private static TlsServerConfig pemServer(io.netty.pkitesting.X509Bundle bundle, String name) throws Exception {
        return new TlsServerConfig(KeyConfig.pem(pki.privateKeyPem(bundle, name).toString(),
                pki.certificatePem(bundle, name).toString(), null), null, null, null, null);
    }

    private static TlsServerConfig mtlsServer(ClientAuthMode clientAuth) throws Exception {
        return new TlsServerConfig(pemServer(pki.server, "server").key(), TrustConfig.pem(pki.caPem(pki.ca, "ca").toString()),
                clientAuth, null, null);
    }

    private static TlsClientConfig clientTrusting(TrustConfig trust) {
        return new TlsClientConfig(null, trust, false, true, List.of(), List.of());
    }
}
