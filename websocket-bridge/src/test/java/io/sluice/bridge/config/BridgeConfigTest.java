package io.sluice.bridge.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BridgeConfigTest {

    private static final Map<String, String> ENV = Map.of(
            "KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092",
            "SLUICE_BRIDGE_TOPICS", "scores, news",
            "SLUICE_JWKS", "https://issuer.example/jwks.json",
            "SLUICE_JWT_ISSUER", "https://issuer.example",
            "SLUICE_JWT_AUDIENCE", "sluice-bridge");

    @Test
    void exampleConfigurationLoadsWithEveryTopicAsAnEndpointPrefix() {
        String yaml = ConfigLoader.read(Path.of("..", "config", "examples", "bridge.yaml"));
        BridgeConfig config = BridgeConfigLoader.parse(yaml, ENV);
        assertThat(config.server().listen().toString()).isEqualTo("127.0.0.1:8080");
        assertThat(config.kafka().bootstrapServers()).isEqualTo("broker-1:9092,broker-2:9092");
        assertThat(config.readTopics()).containsExactly("scores", "news");
        assertThat(config.mappings()).extracting(EndpointMapping::endpoint).containsExactly("/scores/*", "/news/*");
        assertThat(config.auth().jwt().jwks()).isEqualTo("https://issuer.example/jwks.json");
        assertThat(config.auth().jwt().issuer()).isEqualTo("https://issuer.example");
        assertThat(config.auth().jwt().audience()).isEqualTo("sluice-bridge");
        assertThat(config.auth().jwt().problems()).isEmpty();
        assertThat(config.management().port()).isEqualTo(9191);
        assertThat(config.outbound()).isEqualTo(OutboundConfig.defaults());
        assertThat(config.recovery().cacheMaxAge()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void theCompleteExampleInDocsBridgeMdLoadsWithTheValuesItShows() throws Exception {
        String doc = java.nio.file.Files.readString(Path.of("..", "docs", "bridge.md"));
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("```yaml\\n(server:.*?)```", java.util.regex.Pattern.DOTALL).matcher(doc);
        assertThat(block.find()).as("a complete configuration in docs/bridge.md").isTrue();
        BridgeConfig config = BridgeConfigLoader.parse(block.group(1), Map.of());
        assertThat(config.outbound()).isEqualTo(OutboundConfig.defaults());
        assertThat(config.recovery()).isEqualTo(RecoveryConfig.defaults());
        assertThat(config.requests()).isEqualTo(RequestLimitsConfig.defaults());
        assertThat(config.mappings()).extracting(EndpointMapping::endpoint).containsExactly("/live/*", "/results", "/scores/*", "/news/*");
        assertThat(config.server().maxInboundMessageBytes()).isEqualTo(ServerConfig.DEFAULT_MAX_INBOUND_MESSAGE_BYTES);
    }

    @Test
    void listenAddressComesFromTheEnvironmentWhenSet() {
        Map<String, String> env = new java.util.HashMap<>(ENV);
        env.put("SLUICE_BRIDGE_LISTEN", "0.0.0.0:9000");
        String yaml = ConfigLoader.read(Path.of("..", "config", "examples", "bridge.yaml"));
        assertThat(BridgeConfigLoader.parse(yaml, env).server().listen().port()).isEqualTo(9000);
    }

    @Test
    void everyProblemIsReportedWithItsField() {
        String yaml = """
                server:
                  path: ws
                  transport: kqueue
                  listen: "nohost"
                kafka:
                  metadataRefresh: 0s
                  properties:
                    group.id: mine
                endpoints:
                  - endpoint: /a/*/b
                    topic: "bad topic"
                    key: x
                  - endpoint: /scores/*
                    topic: scores
                    key: exact
                outbound:
                  highWaterMarkBytes: 100
                  maxBytes: 50
                """;
        assertThatThrownBy(() -> BridgeConfigLoader.parse(yaml, Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).anySatisfy(p -> assertThat(p).startsWith("server.listen:")));
        List<String> problems = problems(yaml.replace("  listen: \"nohost\"\n", ""));
        assertThat(problems).contains(
                "server.path: must start with '/'",
                "server.transport: must be one of auto, io_uring, epoll, nio (was 'kqueue')",
                "kafka.bootstrapServers: is required",
                "kafka.metadataRefresh: must be longer than 0",
                "kafka.properties.group.id: is set by the bridge itself",
                "endpoints[0].topic: 'bad topic' is not a valid Kafka topic name",
                "endpoints[0].endpoint: '*' may only stand at the end, after '/' (e.g. /scores/live/*)",
                "endpoints[1]: endpoint and key must both end in '*' or neither",
                "outbound.maxBytes: must be greater than highWaterMarkBytes (100)");
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("outbound.lowWaterMarkBytes:"));
    }

    @Test
    void unknownFieldsAndMissingTopicsAreErrors() {
        assertThat(problems("kafka:\n  bootstrapServers: b:9092\ntopicz: [a]\n")).contains("topicz: unknown field");
        assertThat(problems("kafka:\n  bootstrapServers: b:9092\n"))
                .contains("topics: at least one topic (or an entry in endpoints) is required");
        assertThat(problems("kafka:\n  bootstrapServers: b:9092\ntopics: a\nendpoints:\n  - endpoint: /a/*\n    topic: a\n    key: \"*\"\n"))
                .contains("topics (a): endpoint '/a/*' is mapped twice");
    }

    @Test
    void theJwtSectionIsTheProxysWithItsValidationNamedUnderAuthJwt() {
        String yaml = """
                kafka:
                  bootstrapServers: b:9092
                topics: a
                auth:
                  jwt:
                    hmacSecret: short
                    jwks: https://issuer.example/jwks.json
                    algorithms: [none]
                    permissionsClaim: https://example.com/kafka
                """;
        assertThat(problems(yaml)).contains(
                "auth.jwt.jwks: set only one key source of jwks, publicKeyFile and hmacSecret/hmacSecretFile",
                "auth.jwt.issuer: is required (the exact iss of accepted tokens)",
                "auth.jwt.audience: is required (the aud accepted tokens must contain)",
                "auth.jwt.algorithms: 'none' is never accepted: unsigned tokens prove nothing");
        assertThat(problems("kafka:\n  bootstrapServers: b:9092\ntopics: a\nauth:\n  jwt:\n    jwksUrl: x\n"))
                .anySatisfy(p -> assertThat(p).startsWith("auth.jwt.jwksUrl: unknown field"));
    }

    private static List<String> problems(String yaml) {
        try {
            BridgeConfigLoader.parse(yaml, Map.of());
        }
        catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected a ConfigException");
    }

    @Test
    void requestAndRecoveryLimitsAreValidatedByName() {
        String yaml = """
                kafka:
                  bootstrapServers: b:9092
                topics: a
                recovery:
                  kafkaQueue: -1
                  kafkaReadsPerConnection: 0
                requests:
                  maxEndpointBytes: 1
                  maxTokenBytes: 0
                  subscribesPerSecond: 0
                  subscribeBurst: 0
                  publishesInFlight: 0
                  publishBytesInFlight: 0
                """;
        assertThat(problems(yaml)).containsExactlyInAnyOrder(
                "recovery.kafkaQueue: must be 0 (no waiting) or more",
                "recovery.kafkaReadsPerConnection: must be at least 1",
                "requests.maxEndpointBytes: must be at least 2",
                "requests.maxTokenBytes: must be at least 1",
                "requests.subscribesPerSecond: must be a number greater than 0",
                "requests.subscribeBurst: must be at least 1",
                "requests.publishesInFlight: must be at least 1",
                "requests.publishBytesInFlight: must be at least 1");
        BridgeConfig config = BridgeConfigLoader.parse("kafka:\n  bootstrapServers: b:9092\ntopics: a\n"
                + "recovery:\n  kafkaQueue: 0\nrequests:\n  subscribesPerSecond: 0.5\n", Map.of());
        assertThat(config.recovery().kafkaQueue()).isZero();
        assertThat(config.requests().subscribesPerSecond()).isEqualTo(0.5);
        assertThat(config.requests().subscribeBurst()).isEqualTo(RequestLimitsConfig.DEFAULT_SUBSCRIBE_BURST);
    }
}
