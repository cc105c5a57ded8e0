package io.sluice.format.registry;

import java.nio.file.Path;
import java.util.List;

import javax.net.ssl.SSLContext;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import io.sluice.config.TlsClientConfig;
import io.sluice.config.TrustConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RegistryClient} over https: trusting a self-signed registry certificate, and refusing what it should. */
class RegistryTlsTest {

    @TempDir
    Path dir;

    private static SSLContext serverContext(X509Bundle cert) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(cert.toKeyManagerFactory().getKeyManagers(), null, null);
        return context;
    }

    private static RegistryConfig https(String url, TlsClientConfig tls) {
        return new RegistryConfig(url, null, tls, null, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null);
    }

    private static TlsClientConfig trusting(Path pem) {
        return new TlsClientConfig(null, TrustConfig.pem(pem.toString()), false, true, List.of(), List.of());
    }

    @Test
    void aSelfSignedRegistryCertificateIsTrustedWhenConfiguredAndRefusedOtherwise() throws Exception {
        X509Bundle selfSigned = new CertificateBuilder().subject("CN=localhost").addSanIpAddress("127.0.0.1")
                .setIsCertificateAuthority(true).addExtendedKeyUsageServerAuth().ecp256().buildSelfSigned();
        X509Bundle other = new CertificateBuilder().subject("CN=other").addSanIpAddress("127.0.0.1")
                .setIsCertificateAuthority(true).addExtendedKeyUsageServerAuth().ecp256().buildSelfSigned();
        Path pem = java.nio.file.Files.writeString(dir.resolve("registry.pem"), selfSigned.getCertificatePEM());
        Path otherPem = java.nio.file.Files.writeString(dir.resolve("other.pem"), other.getCertificatePEM());
        try (RegistryStandIn registry = RegistryStandIn.startHttps(serverContext(selfSigned))) {
            int id = registry.register("s", RegistryClientTest.PAYMENT);
            assertThat(registry.url()).startsWith("https://");
            try (RegistryClient client = RegistryClient.create(https(registry.url(), trusting(pem)), new SimpleMeterRegistry())) {
                assertThat(client.byId(id).text()).isEqualTo(RegistryClientTest.PAYMENT);
            }
            try (RegistryClient client = RegistryClient.create(https(registry.url(), trusting(otherPem)), new SimpleMeterRegistry())) {
                assertThatThrownBy(() -> client.byId(id)).isInstanceOf(RegistryUnreachableException.class)
                        .hasMessageContaining("TLS with the schema registry at " + registry.url() + " failed");
            }
            // The JVM's trust store does not know it either.
            try (RegistryClient client = RegistryClient.create(RegistryConfig.of(registry.url()), new SimpleMeterRegistry())) {
                assertThatThrownBy(() -> client.byId(id)).isInstanceOf(RegistryUnreachableException.class).hasMessageContaining("TLS");
            }
            try (RegistryClient client = RegistryClient.create(https(registry.url(),
                    new TlsClientConfig(null, null, true, true, List.of(), List.of())), new SimpleMeterRegistry())) {
                assertThat(client.byId(id).id()).isEqualTo(id);
            }
        }
    }

    @Test
    void aCertificateForAnotherHostIsRefused() throws Exception {
        X509Bundle elsewhere = new CertificateBuilder().subject("CN=registry.elsewhere.example").addSanDnsName("registry.elsewhere.example")
                .setIsCertificateAuthority(true).addExtendedKeyUsageServerAuth().ecp256().buildSelfSigned();
        Path pem = java.nio.file.Files.writeString(dir.resolve("elsewhere.pem"), elsewhere.getCertificatePEM());
        try (RegistryStandIn registry = RegistryStandIn.startHttps(serverContext(elsewhere));
             RegistryClient client = RegistryClient.create(https(registry.url(), trusting(pem)), new SimpleMeterRegistry())) {
            int id = registry.register("s", RegistryClientTest.PAYMENT);
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(RegistryUnreachableException.class).hasMessageContaining("TLS");
        }
    }
}
