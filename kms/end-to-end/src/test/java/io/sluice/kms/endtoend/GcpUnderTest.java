package io.sluice.kms.endtoend;

import java.nio.file.Path;

import io.sluice.kms.gcp.CloudKmsStandIn;

/**
 * {@code kms: GcpKmsService} against {@link CloudKmsStandIn} (Cloud KMS's REST API v1), with a service account key
 * file ({@code credentialsFile}) whose token endpoint is the stand-in's: the client signs a JWT, trades it for a token
 * and sends the token with every call. KEKs are CryptoKey ids in one key ring; refusing one disables its versions.
 */
final class GcpUnderTest implements KmsUnderTest {

    private static final String KEY_RING = "projects/sluice-test/locations/europe-west1/keyRings/end-to-end";

    private final CloudKmsStandIn cloudKms;
    private final Path credentials;

    GcpUnderTest(Path dir) throws Exception {
        cloudKms = new CloudKmsStandIn();
        credentials = cloudKms.serviceAccountKey(dir);
    }

    @Override
    public String provider() {
        return "gcp";
    }

    @Override
    public String kmsYaml() {
        return """
                kms: GcpKmsService
                kmsConfig:
                  keyRing: %s
                  endpoint: http://127.0.0.1:%d
                  credentialsFile: %s
                """.formatted(KEY_RING, cloudKms.port(), credentials);
    }

    @Override
    public void createKek(String kek) throws Exception {
        cloudKms.createKey(KEY_RING + "/cryptoKeys/" + kek);
    }

    @Override
    public void refuse(String kek) {
        cloudKms.setEnabled(KEY_RING + "/cryptoKeys/" + kek, false);
    }

    @Override
    public void close() {
        cloudKms.close();
    }
}
