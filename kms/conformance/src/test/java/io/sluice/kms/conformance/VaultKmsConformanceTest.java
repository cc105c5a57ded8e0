package io.sluice.kms.conformance;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.vault.VaultAuth;
import io.sluice.kms.vault.VaultKmsConfig;
import io.sluice.kms.vault.VaultKmsService;
import io.sluice.kms.vault.standin.VaultAdmin;
import io.sluice.kms.vault.standin.VaultTransitStandIn;

/**
 * The conformance suite against the Vault Transit provider, over real HTTP to the Vault stand-in. The provider's token
 * has a least-privilege policy naming each KEK it may use; disabling a KEK is what a Vault operator does to revoke the
 * proxy's use of it: the policy is rewritten without it (Transit keys themselves cannot be disabled).
 */
class VaultKmsConformanceTest extends KmsConformance {

    private static final String POLICY = "sluice-conformance";

    @Override
    protected KmsFixture createFixture() throws Exception {
        VaultTransitStandIn vault = VaultTransitStandIn.start();
        VaultAdmin admin = new VaultAdmin(vault.url(), vault.rootToken(), null, javax.net.ssl.SSLContext.getDefault());
        admin.writePolicy(POLICY, "");
        String token = admin.createToken(Duration.ofHours(1), List.of(POLICY));
        return new KmsFixture() {
            private final Set<String> allowed = ConcurrentHashMap.newKeySet();

            @Override
            public String provider() {
                return "vault";
            }

            @Override
            public Optional<InetSocketAddress> server() {
                return Optional.of(new InetSocketAddress("127.0.0.1", vault.port()));
            }

            @Override
            public Kms connect(InetSocketAddress address, Duration requestTimeout, MeterRegistry registry) {
                return new VaultKmsService().create(new VaultKmsConfig("http://127.0.0.1:" + address.getPort(), null, null,
                        new VaultAuth(token, null, null, null), null, Duration.ofSeconds(2), requestTimeout), registry);
            }

            @Override
            public String createKek() {
                String name = allow("kek-");
                admin.createKey("transit", name);
                return name;
            }

            @Override
            public String absentKek() {
                return allow("kek-absent-");
            }

            @Override
            public void disable(String kek) {
                allowed.remove(kek);
                writePolicy();
            }

            @Override
            public void enable(String kek) {
                allowed.add(kek);
                writePolicy();
            }

            @Override
            public void rotate(String kek) {
                admin.rotate("transit", kek);
            }

            @Override
            public String wrappingKey(WrappedKey wrapped) {
                return wrapped.ciphertextText().split(":")[1];
            }

            @Override
            public void close() {
                vault.close();
            }

            private String allow(String prefix) {
                String name = prefix + UUID.randomUUID();
                allowed.add(name);
                writePolicy();
                return name;
            }

            /** docs/kms.md's least-privilege policy, with exact paths for the KEKs the proxy may use. */
            private void writePolicy() {
                StringBuilder hcl = new StringBuilder();
                for (String key : allowed) {
                    hcl.append("path \"transit/keys/").append(key).append("\" { capabilities = [\"read\"] }\n")
                            .append("path \"transit/datakey/plaintext/").append(key).append("\" { capabilities = [\"update\"] }\n")
                            .append("path \"transit/decrypt/").append(key).append("\" { capabilities = [\"update\"] }\n");
                }
                admin.writePolicy(POLICY, hcl.toString());
            }
        };
    }
}
