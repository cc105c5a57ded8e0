package io.sluice.kms.aws;

/**
 * Static AWS credentials, for tests and for places without a better way (prefer the default chain: IRSA, EKS Pod
 * Identity or an instance profile, whose credentials rotate by themselves). {@link #toString()} never shows the secret.
 *
 * @param accessKeyId the access key id
 * @param secretAccessKey the secret inline (prefer the proxy's {@code ${ENV}} substitution, or the file)
 * @param secretAccessKeyFile a file holding the secret (trailing newline ignored), read when the KMS client is made
 */
public record AwsCredentials(String accessKeyId, String secretAccessKey, String secretAccessKeyFile) {

    @Override
    public String toString() {
        return "AwsCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=" + (secretAccessKey == null ? "absent" : "****")
                + ", secretAccessKeyFile=" + secretAccessKeyFile + "]";
    }
}
