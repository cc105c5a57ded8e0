package io.sluice.kms.aws;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.fakes.ConfigYaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Configuration: binding, defaults, every validation message naming its field, secrets masked, the docs' examples. */
class AwsKmsServiceTest {

    private static final AwsCredentials STATIC = new AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI-secret", null);

    private static void invalid(AwsKmsConfig config, Map<String, String> env, String message) {
        assertThatThrownBy(() -> new AwsKmsService(env::get).validate(config)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    @Test
    void everyBadFieldIsNamed(@TempDir Path dir) throws IOException {
        Map<String, String> none = Map.of();
        invalid(new AwsKmsConfig(null, null, null, null, null), none, "region: required, e.g. eu-west-1 (or set AWS_REGION)");
        invalid(new AwsKmsConfig("Europe", null, null, null, null), none, "region: 'Europe' is not an AWS region name such as eu-west-1");
        invalid(new AwsKmsConfig(null, null, null, null, null), Map.of("AWS_REGION", "moon"),
                "region (from AWS_REGION): 'moon' is not an AWS region name such as eu-west-1");
        invalid(new AwsKmsConfig("eu-west-1", "ftp://kms", null, null, null), none, "endpointOverride: expected https://host[:port], not 'ftp://kms'");
        invalid(new AwsKmsConfig("eu-west-1", "https://kms.example/path?x=1", null, null, null), none,
                "endpointOverride: must be scheme, host and port only, not 'https://kms.example/path?x=1'");
        invalid(new AwsKmsConfig("eu-west-1", null, null, Duration.ZERO, null), none, "connectTimeout: must be positive");
        invalid(new AwsKmsConfig("eu-west-1", null, null, null, Duration.ofSeconds(-1)), none, "requestTimeout: must be positive");
        invalid(new AwsKmsConfig("eu-west-1", null, new AwsCredentials(null, "s", null), null, null), none,
                "credentials.accessKeyId: required with static credentials (or leave credentials out for the default chain)");
        invalid(new AwsKmsConfig("eu-west-1", null, new AwsCredentials("AKID", null, null), null, null), none,
                "credentials: exactly one of secretAccessKey or secretAccessKeyFile");
        invalid(new AwsKmsConfig("eu-west-1", null, new AwsCredentials("AKID", "s", "/x"), null, null), none,
                "credentials: exactly one of secretAccessKey or secretAccessKeyFile");
        invalid(new AwsKmsConfig("eu-west-1", null, new AwsCredentials("AKID", null, dir.resolve("missing").toString()), null, null), none,
                "credentials.secretAccessKeyFile: '" + dir.resolve("missing") + "' does not exist");
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        invalid(new AwsKmsConfig("eu-west-1", null, new AwsCredentials("AKID", null, empty.toString()), null, null), none,
                "credentials.secretAccessKeyFile: '" + empty + "' is empty");
    }

    @Test
    void defaultsRegionFromTheEnvironmentAndASecretFromAFile(@TempDir Path dir) throws IOException {
        AwsKmsConfig defaults = new AwsKmsConfig(null, null, null, null, null);
        assertThat(defaults.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
        new AwsKmsService(Map.of("AWS_DEFAULT_REGION", "us-east-2")::get).validate(defaults);
        Path secret = Files.writeString(dir.resolve("secret"), "wJalrXUtnFEMI-from-file\n");
        new AwsKmsService(name -> null).validate(new AwsKmsConfig("eu-west-1", null, new AwsCredentials("AKID", null, secret.toString()), null, null));
    }

    @Test
    void secretsAreMasked() {
        AwsKmsConfig config = new AwsKmsConfig("eu-west-1", null, STATIC, null, null);
        assertThat(config.toString()).contains("AKIDEXAMPLE").doesNotContain("wJalrXUtnFEMI");
        Kms kms = new AwsKmsService(name -> null).create(config, new SimpleMeterRegistry());
        try {
            assertThat(kms.toString()).doesNotContain("wJalrXUtnFEMI");
        }
        finally {
            kms.close();
        }
    }

    @Test
    void validatingAndCreatingContactNothing() throws Exception {
        try (ServerSocket kms = new ServerSocket(0)) {
            AwsKmsConfig config = new AwsKmsConfig("eu-west-1", "http://127.0.0.1:" + kms.getLocalPort(), null, null, null);
            new AwsKmsService(name -> null).validate(config);
            new AwsKmsService(name -> null).create(config, new SimpleMeterRegistry()).close();
            kms.setSoTimeout(500);
            assertThatThrownBy(kms::accept).as("a connection reached the KMS").isInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void foundByServiceLoaderUnderItsSimpleName() {
        assertThat(ServiceLoader.load(KmsService.class).stream().map(p -> p.type().getSimpleName())).contains("AwsKmsService");
    }

    /** The YAML examples in docs/kms.md headed {@code # AwsKmsConfig} bind and validate; its IAM policies are JSON. */
    @Test
    void docsExamplesBindAndPoliciesParse() throws Exception {
        String docs = Files.readString(Path.of("../../docs/kms.md"));
        Matcher yaml = Pattern.compile("```yaml\\n# AwsKmsConfig\\n(.*?)```", Pattern.DOTALL).matcher(docs);
        List<AwsKmsConfig> bound = new ArrayList<>();
        while (yaml.find()) {
            AwsKmsConfig config = ConfigYaml.bind(yaml.group(1), AwsKmsConfig.class);
            if (config.credentials() == null || config.credentials().secretAccessKeyFile() == null) {
                new AwsKmsService(Map.of("AWS_REGION", "eu-west-1")::get).validate(config);
            }
            bound.add(config);
        }
        assertThat(bound).hasSizeGreaterThanOrEqualTo(2);
        Matcher json = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL).matcher(docs);
        List<String> actions = new ArrayList<>();
        while (json.find()) {
            JsonNode policy = new ObjectMapper().readTree(json.group(1));
            policy.path("Statement").forEach(s -> s.path("Action").forEach(a -> actions.add(a.asText())));
        }
        assertThat(actions).contains("kms:DescribeKey", "kms:GenerateDataKey", "kms:Decrypt").doesNotContain("kms:*", "kms:Encrypt");
    }
}
