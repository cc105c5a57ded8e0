package io.sluice.bridge.config;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge config shipped in the Kubernetes base (proxy/app/kubernetes/base, docs/kubernetes.md) loads as the bridge
 * loads it, with the environment the base gives the pod, and listens where the pod's probes, Service and Prometheus
 * annotation point. The manifests themselves are validated by the sizing module's ShippedManifestsTest.
 */
class KubernetesConfigTest {

    static final Path BASE = Path.of("..", "proxy", "app", "kubernetes", "base");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void theBaseBridgeConfigLoadsAndListensOnThePodsPorts() throws IOException {
        Map<String, String> env = new HashMap<>();
        YAML.readTree(BASE.resolve("sluice-env.yaml").toFile()).get("data").fields()
                .forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        String yaml = YAML.readTree(BASE.resolve("sluice-bridge-configmap.yaml").toFile()).at("/data/bridge.yaml").asText();

        BridgeConfig config = BridgeConfigLoader.parse(yaml, env);

        JsonNode container = YAML.readTree(BASE.resolve("sluice-bridge-deployment.yaml").toFile()).at("/spec/template/spec/containers/0");
        Map<String, Integer> ports = new HashMap<>();
        container.get("ports").forEach(p -> ports.put(p.get("name").asText(), p.get("containerPort").asInt()));
        assertThat(config.management().bindAddress()).as("probes and scrapes come from outside the pod").isEqualTo("0.0.0.0");
        assertThat(config.management().port()).isEqualTo(ports.get("management"));
        assertThat(config.server().listen().host()).isEqualTo("0.0.0.0");
        assertThat(config.server().listen().port()).isEqualTo(ports.get("websocket"));
        assertThat(config.auth().jwt()).as("the bridge refuses to start without auth.jwt").isNotNull();
        assertThat(container.at("/args").toString()).contains("/etc/sluice/bridge.yaml");
    }
}
