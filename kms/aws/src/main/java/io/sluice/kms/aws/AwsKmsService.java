package io.sluice.kms.aws;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientAsyncConfiguration;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.client.config.SdkAdvancedAsyncClientOption;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kms.KmsAsyncClient;
import software.amazon.awssdk.services.kms.KmsAsyncClientBuilder;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.ProviderSupport;
import io.sluice.kms.metrics.MeteredKms;

/**
 * {@code kms: AwsKmsService}: KEKs in AWS KMS, called through the AWS SDK for Java v2 on its Netty HTTP client. See
 * {@link AwsKmsConfig} and docs/kms.md. Creating the KMS contacts nothing (no KMS, no instance metadata): credentials
 * are fetched by the SDK's chain on the first call, and a KMS that is down at start-up makes calls fail as unavailable.
 */
public final class AwsKmsService implements KmsService<AwsKmsConfig> {

    private static final Logger LOG = LoggerFactory.getLogger(AwsKmsService.class);
    private static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z0-9]+)+-\\d{1,2}|local");
    /** HTTP connections to KMS at most: the key cache coalesces requests, so a handful suffice; more queue in the client. */
    private static final int MAX_CONNECTIONS = 16;

    private final UnaryOperator<String> environment;

    public AwsKmsService() {
        this(System::getenv);
    }

    /** @param environment looks up environment variables (tests pass their own) */
    AwsKmsService(UnaryOperator<String> environment) {
        this.environment = environment;
    }

    @Override
    public Class<AwsKmsConfig> configType() {
        return AwsKmsConfig.class;
    }

    /** Every check {@link #create} makes (region, endpoint, credentials and their file, timeouts); no network. */
    @Override
    public void validate(AwsKmsConfig config) {
        checked(config);
    }

    @Override
    public Kms create(AwsKmsConfig config, MeterRegistry registry) {
        Checked checked = checked(config);
        // Signs or authenticates and sends each call, and completes it: never the caller's thread, which may be an event loop.
        ExecutorService executor = ProviderSupport.threads("sluice-kms-aws", 2);
        NettyNioAsyncHttpClient.Builder http = NettyNioAsyncHttpClient.builder()
                .connectionTimeout(config.connectTimeout())
                .maxConcurrency(MAX_CONNECTIONS)
                .eventLoopGroupBuilder(SdkEventLoopGroup.builder().numberOfThreads(1).threadFactory(r -> {
                    Thread t = new Thread(r, "sluice-kms-aws-netty");
                    t.setDaemon(true);
                    return t;
                }));
        KmsAsyncClientBuilder builder = KmsAsyncClient.builder()
                .region(Region.of(checked.region()))
                .credentialsProvider(checked.credentials())
                .httpClientBuilder(http)
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        // One attempt per call: the key cache retries unavailable calls with its own backoff and counts them.
                        .retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallTimeout(config.requestTimeout())
                        .apiCallAttemptTimeout(config.requestTimeout())
                        .build())
                .asyncConfiguration(ClientAsyncConfiguration.builder()
                        .advancedOption(SdkAdvancedAsyncClientOption.FUTURE_COMPLETION_EXECUTOR, executor)
                        .build());
        if (checked.endpoint() != null) {
            builder.endpointOverride(checked.endpoint());
        }
        String description = "region " + checked.region() + (checked.endpoint() == null ? "" : ", endpoint " + checked.endpoint())
                + ", credentials " + checked.credentialsDescription();
        AwsKms kms = new AwsKms(builder.build(), executor, description);
        LOG.info("AWS KMS: {}", description);
        return new MeteredKms(kms, "aws", registry);
    }

    private record Checked(String region, URI endpoint, AwsCredentialsProvider credentials, String credentialsDescription) {
    }

    private Checked checked(AwsKmsConfig config) {
        if (config == null) {
            config = new AwsKmsConfig(null, null, null, null, null);
        }
        String region = region(config.region());
        URI endpoint = config.endpointOverride() == null ? null : endpoint(config.endpointOverride());
        ProviderSupport.positive("connectTimeout", config.connectTimeout());
        ProviderSupport.positive("requestTimeout", config.requestTimeout());
        AwsCredentials credentials = config.credentials();
        if (credentials == null) {
            return new Checked(region, endpoint, DefaultCredentialsProvider.builder().build(),
                    "from the default chain (environment, system properties, web identity/IRSA, profile, container/EKS Pod Identity, instance profile)");
        }
        if (credentials.accessKeyId() == null || credentials.accessKeyId().isBlank()) {
            throw new IllegalArgumentException("credentials.accessKeyId: required with static credentials (or leave credentials out for the default chain)");
        }
        if ((credentials.secretAccessKey() == null) == (credentials.secretAccessKeyFile() == null)) {
            throw new IllegalArgumentException("credentials: exactly one of secretAccessKey or secretAccessKeyFile");
        }
        String secret = credentials.secretAccessKey() != null ? credentials.secretAccessKey().strip()
                : ProviderSupport.secretFile("credentials.secretAccessKeyFile", credentials.secretAccessKeyFile());
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("credentials.secretAccessKey: must not be empty");
        }
        String id = credentials.accessKeyId().strip();
        return new Checked(region, endpoint, StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret)),
                "static, access key id " + id);
    }

    private String region(String configured) {
        String region = configured;
        String field = "region";
        if (region == null) {
            region = environment.apply("AWS_REGION");
            field = "region (from AWS_REGION)";
            if (region == null || region.isBlank()) {
                region = environment.apply("AWS_DEFAULT_REGION");
                field = "region (from AWS_DEFAULT_REGION)";
            }
            if (region == null || region.isBlank()) {
                throw new IllegalArgumentException("region: required, e.g. eu-west-1 (or set AWS_REGION)");
            }
        }
        region = region.strip();
        if (!REGION.matcher(region).matches()) {
            throw new IllegalArgumentException(field + ": '" + region + "' is not an AWS region name such as eu-west-1");
        }
        return region;
    }

    private static URI endpoint(String value) {
        URI uri;
        try {
            uri = new URI(value.strip());
        }
        catch (URISyntaxException e) {
            throw new IllegalArgumentException("endpointOverride: not a URL: " + e.getMessage(), e);
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("endpointOverride: expected https://host[:port], not '" + value + "'");
        }
        if (uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null || uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/")) {
            throw new IllegalArgumentException("endpointOverride: must be scheme, host and port only, not '" + value + "'");
        }
        if (uri.getScheme().equals("http") && !loopback(uri.getHost())) {
            LOG.warn("AWS KMS endpointOverride {} is plain http: anyone on the path can read the data keys", uri);
        }
        return uri;
    }

    /** By the name alone: validation resolves no host name (DNS is a network service too). */
    private static boolean loopback(String host) {
        return host.equals("localhost") || host.matches("127(\\.\\d{1,3}){3}") || host.equals("[::1]") || host.equals("::1");
    }
}
