package io.sluice.kms.vault;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.kms.vault.standin.VaultTransitStandIn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Vault KMS over https: trust from PEM or PKCS12, insecure mode, and an untrusted server. */
class VaultTlsTest {

    private static final String KEY = "kek-tls";

    @TempDir
    static Path dir;
    private static X509Bundle ca;
    private static VaultTransitStandIn trusted;
    private static VaultTransitStandIn wrongHost;

    @BeforeAll
    static void start() throws Exception {
        ca = new CertificateBuilder().subject("CN=Vault Test CA").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        X509Bundle server = new CertificateBuilder().subject("CN=localhost").addSanDnsName("localhost").addSanIpAddress("127.0.0.1")
                .addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        X509Bundle elsewhere = new CertificateBuilder().subject("CN=vault.elsewhere.example").addSanDnsName("vault.elsewhere.example")
                .addExtendedKeyUsageServerAuth().ecp256().buildIssuedBy(ca);
        trusted = VaultTransitStandIn.startHttps(serverContext(server));
        wrongHost = VaultTransitStandIn.startHttps(serverContext(elsewhere));
        for (VaultTransitStandIn standIn : new VaultTransitStandIn[]{ trusted, wrongHost }) {
            new VaultAdmin(standIn.url(), standIn.rootToken(), null, VaultTrust.sslContext(new VaultTls(null, null, null, true)))
                    .createKey("transit", KEY);
        }
    }

    @AfterAll
    static void stop() {
        trusted.close();
        wrongHost.close();
    }

    private static SSLContext serverContext(X509Bundle bundle) throws Exception {
        KeyManagerFactory keys = bundle.toKeyManagerFactory();
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), null, null);
        return context;
    }

    private static Kms kms(VaultTransitStandIn standIn, VaultTls tls) {
        VaultKmsConfig config = new VaultKmsConfig(standIn.url(), null, null, new VaultAuth(standIn.rootToken(), null, null, null), tls,
                Duration.ofSeconds(2), Duration.ofSeconds(5));
        return new VaultKmsService().create(config, new SimpleMeterRegistry());
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static void assertWorks(Kms kms) {
        DataKey dataKey = join(kms.generateDataKey(join(kms.resolveKek(KEY))));
        assertThat(join(kms.unwrap(dataKey.wrapped())).getEncoded()).isEqualTo(dataKey.key().getEncoded());
    }

    @Test
    void pemTrust() throws Exception {
        Path pem = Files.writeString(dir.resolve("ca.pem"), ca.getCertificatePEM());
        try (Kms kms = kms(trusted, new VaultTls(pem.toString(), null, null, null))) {
            assertWorks(kms);
        }
    }

    @Test
    void pkcs12TrustStoreWithPassword() throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", ca.getCertificate());
        Path p12 = dir.resolve("trust.p12");
        try (OutputStream out = Files.newOutputStream(p12)) {
            store.store(out, "changeit".toCharArray());
        }
        try (Kms kms = kms(trusted, new VaultTls(p12.toString(), "changeit", null, null))) {
            assertWorks(kms);
        }
    }

    @Test
    void appRoleLoginGoesOverTheSameTls(@TempDir Path roleDir) throws Exception {
        VaultAdmin admin = new VaultAdmin(trusted.url(), trusted.rootToken(), null, VaultTrust.sslContext(new VaultTls(null, null, null, true)));
        admin.writePolicy("tls-policy", TransitBackend.leastPrivilegePolicy("transit", "kek-"));
        admin.createRole("tls-role", Duration.ofMinutes(5), Duration.ofMinutes(10), "tls-policy");
        Path pem = Files.writeString(roleDir.resolve("ca.pem"), ca.getCertificatePEM());
        VaultKmsConfig config = new VaultKmsConfig(trusted.url(), null, null,
                new VaultAuth(null, null, null, new AppRole(admin.roleId("tls-role"), admin.newSecretId("tls-role"), null, null)),
                new VaultTls(pem.toString(), null, "PEM", null), null, null);
        try (Kms kms = new VaultKmsService().create(config, new SimpleMeterRegistry())) {
            assertWorks(kms);
        }
    }

    @Test
    void insecureTrustsAnyCertificateAndHost() {
        try (Kms kms = kms(wrongHost, new VaultTls(null, null, null, true))) {
            assertWorks(kms);
        }
    }

    @Test
    void untrustedServerIsAConfigurationErrorNotAnOutage() throws Exception {
        X509Bundle otherCa = new CertificateBuilder().subject("CN=Someone Else").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        Path other = Files.writeString(dir.resolve("other.pem"), otherCa.getCertificatePEM());
        Path right = Files.writeString(dir.resolve("right.pem"), ca.getCertificatePEM());
        try (Kms untrusted = kms(trusted, new VaultTls(other.toString(), null, null, null));
             Kms wrongName = kms(wrongHost, new VaultTls(right.toString(), null, null, null))) {
            for (Kms kms : new Kms[]{ untrusted, wrongName }) {
                assertThatThrownBy(() -> join(kms.generateDataKey(new KekRef(KEY, 1))))
                        .isInstanceOf(CompletionException.class)
                        .cause().isExactlyInstanceOf(KmsException.class).isNotInstanceOf(KmsUnavailableException.class)
                        .hasMessageContaining("not trusted");
            }
        }
    }
}
