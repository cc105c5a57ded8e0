package io.sluice.kms.endtoend;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import software.amazon.awssdk.services.kms.KmsClient;

import io.sluice.kms.aws.Moto;
import io.sluice.testkit.MotoServer;

/**
 * {@code kms: AwsKmsService} against moto, a KMS-API server nobody here wrote. KEKs are aliases; refusing one disables
 * its key (moto still answers GenerateDataKey under a disabled key, but reports the state in DescribeKey, which the
 * provider checks when it resolves a KEK).
 */
final class AwsUnderTest implements KmsUnderTest {

    private final MotoServer moto = Moto.server();
    private final KmsClient operator = Moto.operator();
    private final Map<String, String> keys = new ConcurrentHashMap<>();

    @Override
    public String provider() {
        return "aws";
    }

    @Override
    public String kekTemplate() {
        return "alias/kek-$(topic)";
    }

    @Override
    public String kmsYaml() {
        return """
                kms: AwsKmsService
                kmsConfig:
                  region: %s
                  endpointOverride: %s
                  credentials:
                    accessKeyId: %s
                    secretAccessKey: %s
                """.formatted(MotoServer.REGION, moto.endpoint(), MotoServer.ACCESS_KEY_ID, MotoServer.SECRET_ACCESS_KEY);
    }

    @Override
    public void createKek(String kek) throws Exception {
        String arn = moto.createKey(kek);
        // The key id, not the ARN: moto 5.2.5's DisableKey fails on an ARN (a KeyError, HTTP 500), which AWS accepts.
        keys.put(kek, arn.substring(arn.lastIndexOf('/') + 1));
    }

    @Override
    public void refuse(String kek) {
        operator.disableKey(k -> k.keyId(keys.get(kek)));
    }

    @Override
    public void close() {
        // moto itself stops with the JVM (Moto.server()).
        operator.close();
    }
}
