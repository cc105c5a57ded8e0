package io.sluice.kms.aws;

import java.time.Duration;

/**
 * Configuration of the AWS KMS provider ({@code kms: AwsKmsService}).
 *
 * <pre>{@code
 * kmsConfig:
 *   region: eu-west-1                  # absent: AWS_REGION, then AWS_DEFAULT_REGION
 *   endpointOverride: https://vpce-0a1b-kms.eu-west-1.vpce.amazonaws.com   # optional
 *   credentials:                       # absent: the SDK's default chain (env, IRSA, EKS Pod Identity, instance profile)
 *     accessKeyId: AKIA...
 *     secretAccessKeyFile: /run/secrets/aws-secret-access-key
 *   connectTimeout: 5s
 *   requestTimeout: 10s
 * }</pre>
 *
 * @param region the KMS's AWS region; required unless {@code AWS_REGION} or {@code AWS_DEFAULT_REGION} is set (EKS
 *        sets both for IRSA and Pod Identity)
 * @param endpointOverride another endpoint than the region's public one: a VPC endpoint, FIPS, or a KMS-API server
 *        for tests (moto)
 * @param credentials static credentials; absent means the SDK's default chain
 * @param connectTimeout connecting to KMS (default 5s)
 * @param requestTimeout one KMS call, connecting included (default 10s); the SDK does not retry, the key cache does
 */
public record AwsKmsConfig(String region, String endpointOverride, AwsCredentials credentials, Duration connectTimeout,
                           Duration requestTimeout) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

    public AwsKmsConfig {
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    }
}
