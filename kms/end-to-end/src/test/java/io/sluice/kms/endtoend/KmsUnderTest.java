package io.sluice.kms.endtoend;

import java.nio.file.Path;

/**
 * One cloud KMS provider and the KMS it talks to in these tests: how RecordEncryption names it in YAML, and an
 * operator's two actions on the KMS itself (create a KEK, make the KMS refuse it). The tests are the same for every
 * provider; this is all that differs.
 */
interface KmsUnderTest extends AutoCloseable {

    /** The provider's name in the tests' display names: aws, azure, gcp. */
    String provider();

    /**
     * RecordEncryption's {@code kek:}, with {@code $(topic)}, as the provider's KEK names allow: {@code kek-$(topic)}
     * unless the provider says otherwise (letters, digits and '-' suit Key Vault key names and CryptoKey ids).
     */
    default String kekTemplate() {
        return "kek-$(topic)";
    }

    /** RecordEncryption's {@code kms:} and {@code kmsConfig:} lines at column 0, as a user writes them. */
    String kmsYaml();

    /** Creates the KEK in the KMS, as an operator would. */
    void createKek(String kek) throws Exception;

    /** Makes the KMS refuse the KEK (disables it), as an operator would. */
    void refuse(String kek) throws Exception;

    default String kekOf(String topic) {
        return kekTemplate().replace("$(topic)", topic);
    }

    /** Starts the KMS for {@code provider} (files it needs go in {@code dir}). */
    static KmsUnderTest start(String provider, Path dir) throws Exception {
        return switch (provider) {
            case "aws" -> new AwsUnderTest();
            case "azure" -> new AzureUnderTest(dir);
            case "gcp" -> new GcpUnderTest(dir);
            default -> throw new IllegalArgumentException(provider);
        };
    }
}
