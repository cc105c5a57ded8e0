package io.sluice.app.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.sizing.deploy.DeployedComponent;
import io.sluice.sizing.deploy.DeploymentYaml;
import io.sluice.sizing.deploy.HelmValues;
import io.sluice.sizing.deploy.JvmBudget;
import io.sluice.sizing.testing.KubernetesSchemas;
import io.sluice.sizing.testing.KubernetesSchemas.Document;
import io.sluice.testkit.Executables;

import static io.sluice.app.kubernetes.ShippedManifestsTest.BASE;
import static io.sluice.app.kubernetes.ShippedManifestsTest.EXAMPLE;
import static io.sluice.app.kubernetes.ShippedManifestsTest.KUBERNETES;
import static io.sluice.app.kubernetes.ShippedManifestsTest.YAML;
import static io.sluice.app.kubernetes.ShippedManifestsTest.assertReferencesHold;
import static io.sluice.app.kubernetes.ShippedManifestsTest.documents;
import static io.sluice.app.kubernetes.ShippedManifestsTest.env;
import static io.sluice.app.kubernetes.ShippedManifestsTest.find;
import static io.sluice.app.kubernetes.ShippedManifestsTest.portsListenedOn;
import static io.sluice.app.kubernetes.ShippedManifestsTest.sizeTheCommittedRuns;
import static io.sluice.app.kubernetes.ShippedManifestsTest.withSecretFiles;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Helm chart in {@code kubernetes/helm/sluice}, run through the real {@code helm} ({@link HelmCli}): it lints, and
 * renders with its default values and every example values file to resources valid against the Kubernetes API's
 * schemas; the default rendering is the Kustomize base and the external example is the Kustomize example overlay,
 * field by field (Helm's own labels and the config checksum aside), so the two packagings cannot drift; the rendered
 * configs load as the proxy and the bridge load them and listen where the Services point; the values {@code sluice
 * size} writes give the Deployment it writes; bad values are refused naming the field.
 */
class HelmChartTest {

    static final Path CHART = KUBERNETES.resolve("helm").resolve("sluice");
    static final Path EXAMPLES = KUBERNETES.resolve("helm").resolve("examples");
    static final Path EXTERNAL = EXAMPLES.resolve("port-per-broker-external.yaml");
    static final Path SNI = EXAMPLES.resolve("sni-loadbalancer.yaml");
    /** The release name that gives the Kustomize base's names (sluice-proxy, ...). */
    static final String RELEASE = "sluice";
    /** The labels Helm adds besides the base's: they name the release and chart, and select one release's pods. */
    static final Set<String> HELM_LABELS = Set.of("app.kubernetes.io/instance", "app.kubernetes.io/managed-by", "app.kubernetes.io/version",
            "helm.sh/chart");
    static final Set<String> LABEL_FIELDS = Set.of("labels", "matchLabels", "selector");

    @TempDir
    static Path tmp;

    static HelmCli helm;
    /** The renderings every test shares, by what they were rendered with. */
    static final Map<String, Path> renderings = new TreeMap<>();

    @BeforeAll
    static void lintAndRender() throws IOException {
        helm = HelmCli.require();
        List<Path> examples;
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            examples = files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(examples).contains(EXTERNAL, SNI);
        helm.run("lint", "--strict", CHART.toString()).ok();
        renderings.put("default", render("default", RELEASE));
        for (Path values : examples) {
            helm.run("lint", "--strict", CHART.toString(), "-f", values.toString()).ok();
            renderings.put(values.getFileName().toString(), render(values.getFileName().toString(), RELEASE, "-f", values.toString()));
        }
        // Another release name, and node ids that are neither 0-based nor contiguous.
        Path ranges = tmp.resolve("ranges.yaml");
        Files.writeString(ranges, """
                proxy:
                  gateway:
                    portPerBroker:
                      bootstrapPort: 9300
                      nodeStartPort: 9310
                      nodeIdRanges: [{name: first, start: 1, end: 3}, {name: second, start: 10, end: 11}]
                """);
        renderings.put("ranges", render("ranges", "blue", "-f", ranges.toString()));
    }

    @Test
    void everyRenderingIsValidAgainstTheKubernetesSchemasAndItsReferencesHold() throws IOException {
        List<Document> documents = KubernetesSchemas.validate(List.copyOf(renderings.values()));

        assertThat(documents).filteredOn(d -> !d.schema()).extracting(Document::kind).containsOnly("ServiceMonitor", "Certificate");
        assertThat(documents).filteredOn(Document::schema)
                .allSatisfy(d -> assertThat(d.errors()).as("%s %s in %s", d.kind(), d.name(), d.file()).isEmpty());
        assertThat(documents).extracting(Document::kind).contains("Deployment", "Service", "ConfigMap", "PodDisruptionBudget", "ServiceMonitor",
                "Certificate");
        for (var rendering : renderings.entrySet()) {
            List<JsonNode> resources = documents(rendering.getValue());
            assertReferencesHold(resources);
            // Selectors name the release too, so that two releases in one namespace never pick each other's pods.
            String release = rendering.getKey().equals("ranges") ? "blue" : RELEASE;
            resources.stream().filter(r -> r.get("kind").asText().equals("Deployment")).forEach(d -> {
                assertThat(d.at("/spec/selector/matchLabels/app.kubernetes.io~1instance").asText()).isEqualTo(release);
                assertThat(d.at("/spec/template/spec/topologySpreadConstraints").findValuesAsText("app.kubernetes.io/instance")).containsOnly(release);
            });
            resources.stream().filter(r -> r.get("kind").asText().equals("Service"))
                    .forEach(s -> assertThat(s.at("/spec/selector/app.kubernetes.io~1instance").asText()).isEqualTo(release));
        }
        assertThat(documents(renderings.get("ranges"))).extracting(r -> r.at("/metadata/name").asText())
                .contains("blue-sluice-proxy", "blue-sluice-env", "blue-sluice-bridge-metrics");
    }

    /** The chart with its default values is the Kustomize base, resource by resource and field by field. */
    @Test
    void theDefaultValuesRenderTheKustomizeBase() throws IOException {
        List<JsonNode> base = new ArrayList<>();
        JsonNode kustomization = YAML.readTree(BASE.resolve("kustomization.yaml").toFile());
        for (JsonNode file : kustomization.get("resources")) {
            base.addAll(documents(BASE.resolve(file.asText())));
        }
        // What kustomize's `labels:` adds: these pairs on every resource's metadata, not on selectors or templates.
        for (JsonNode entry : kustomization.get("labels")) {
            assertThat(entry.path("includeSelectors").asBoolean() || entry.path("includeTemplates").asBoolean()).isFalse();
            base.forEach(r -> ((ObjectNode) r.get("metadata")).with("labels").setAll((ObjectNode) entry.get("pairs")));
        }

        assertSameResources(documents(renderings.get("default")), base);

        // The components: the ServiceMonitor and the Certificate of the external example are the Kustomize components' files.
        List<JsonNode> external = documents(renderings.get(EXTERNAL.getFileName().toString()));
        for (Path component : List.of(KUBERNETES.resolve("monitoring/servicemonitor.yaml"), KUBERNETES.resolve("cert-manager/sluice-proxy-certificate.yaml"))) {
            JsonNode expected = documents(component).get(0);
            JsonNode rendered = find(external, expected.get("kind").asText(), expected.at("/metadata/name").asText());
            assertThat(rendered).as("%s in the external example", component).isNotNull();
            assertThat(normalized(rendered)).as("%s", component).isEqualTo(normalized(expected));
        }
    }

    /** The external example values are the Kustomize example overlay, as kubectl kustomize renders it. */
    @Test
    void theExternalExampleRendersTheKustomizeExampleOverlay() throws Exception {
        Assumptions.assumeTrue(Executables.onPath("kubectl"), "kubectl is not installed: the overlay cannot be rendered to compare with");
        Path out = tmp.resolve("overlay.yaml");
        Process p = new ProcessBuilder("kubectl", "kustomize", EXAMPLE.toString()).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("kubectl kustomize: %s", new String(p.getErrorStream().readAllBytes())).isZero();

        // Kustomize's strategic merge puts a patch's new items first in env, volumes and volumeMounts, lists whose order
        // Kubernetes ignores (env's matters only to $(VAR) references, and the chart's order is the base's, checked above).
        assertSameResources(inNameOrder(documents(renderings.get(EXTERNAL.getFileName().toString()))), inNameOrder(documents(out)));
    }

    private static List<JsonNode> inNameOrder(List<JsonNode> resources) {
        for (JsonNode r : resources) {
            JsonNode pod = r.at("/spec/template/spec");
            if (pod instanceof ObjectNode podSpec) {
                sortByName(podSpec, "volumes");
                pod.path("containers").forEach(c -> {
                    sortByName((ObjectNode) c, "env");
                    sortByName((ObjectNode) c, "volumeMounts");
                });
            }
        }
        return resources;
    }

    private static void sortByName(ObjectNode parent, String field) {
        List<JsonNode> items = new ArrayList<>();
        parent.path(field).forEach(items::add);
        items.sort(java.util.Comparator.comparing(item -> item.get("name").asText()));
        parent.putArray(field).addAll(items);
    }

    /**
     * SNI: one LoadBalancer port for the bootstrap and every broker, the host names in the config, the certificate
     * covering them all, TLS required. Where the proxy's config has an SNI gateway, the rendered config loads with the
     * proxy's loader too.
     */
    @Test
    void theSniExampleServesEveryBrokerOnOneLoadBalancerPort() throws IOException {
        List<JsonNode> sni = documents(renderings.get(SNI.getFileName().toString()));
        JsonNode service = find(sni, "Service", "sluice-proxy");
        assertThat(service.at("/spec/type").asText()).isEqualTo("LoadBalancer");
        assertThat(service.at("/spec/externalTrafficPolicy").asText()).isEqualTo("Local");
        assertThat(service.at("/spec/ports")).singleElement().satisfies(port -> {
            assertThat(port.get("port").asInt()).isEqualTo(443);
            assertThat(port.get("targetPort").asText()).isEqualTo("kafka-sni");
        });
        JsonNode container = find(sni, "Deployment", "sluice-proxy").at("/spec/template/spec/containers/0");
        assertThat(container.get("ports").findValuesAsText("name")).containsExactly("kafka-sni", "management");
        assertThat(container.at("/ports/0/containerPort").asInt()).isEqualTo(9092);
        assertThat(env(container, "SLUICE_ADVERTISED_HOST")).as("the names are in the config").isNull();
        assertThat(container.get("volumeMounts").findValuesAsText("mountPath")).contains("/var/run/secrets/gateway-tls");
        assertThat(find(sni, "Deployment", "sluice-bridge")).as("bridge.enabled false").isNull();
        assertThat(find(sni, "Certificate", "sluice-proxy").at("/spec/dnsNames").toString())
                .isEqualTo("[\"bootstrap.kafka.example.com\",\"*.kafka.example.com\"]");

        String yaml = find(sni, "ConfigMap", "sluice-proxy").at("/data/proxy.yaml").asText();
        JsonNode gateway = YAML.readTree(yaml).at("/virtualClusters/0/gateways/0");
        assertThat(gateway.at("/tls/key/certificateFile").asText()).isEqualTo("/var/run/secrets/gateway-tls/tls.crt");
        assertThat(gateway.toString()).contains("9092", "bootstrap.kafka.example.com", "443")
                .contains("broker-$(nodeId).kafka.example.com");
        if (proxyHasSniGateways()) {
            Map<String, String> env = envOf(sni, container);
            ProxyConfig config = ProxyConfigLoader.parse(withSecretFiles(yaml, tmp), env);
            assertThat(config.virtualClusters().get(0).gateways().get(0).tls()).isNotNull();
        } else {
            System.out.println("HelmChartTest: the proxy has no SNI gateway yet (GatewayConfig " + Arrays.toString(GatewayConfig.class.getRecordComponents())
                    + "): the SNI config is checked by its content only");
        }
    }

    /** Every port-per-broker rendering's configs load as the proxy and the bridge load them, and listen where the pods and Services point. */
    @Test
    void theRenderedConfigsLoadAndListenOnTheServicesPorts() throws IOException {
        for (var rendering : renderings.entrySet()) {
            if (rendering.getKey().equals(SNI.getFileName().toString())) {
                continue;
            }
            List<JsonNode> resources = documents(rendering.getValue());
            String prefix = rendering.getKey().equals("ranges") ? "blue-sluice" : "sluice";
            JsonNode proxy = find(resources, "Deployment", prefix + "-proxy").at("/spec/template/spec/containers/0");
            Map<String, Integer> containerPorts = new HashMap<>();
            proxy.get("ports").forEach(p -> containerPorts.put(p.get("name").asText(), p.get("containerPort").asInt()));
            List<Integer> servicePorts = new ArrayList<>();
            find(resources, "Service", prefix + "-proxy").at("/spec/ports").forEach(p -> {
                assertThat(p.get("port").asInt()).as("port per broker: the Service's port is the container's").isEqualTo(containerPorts.get(p.get("targetPort").asText()));
                servicePorts.add(p.get("port").asInt());
            });
            Map<String, String> env = envOf(resources, proxy);
            ProxyConfig config = ProxyConfigLoader.parse(withSecretFiles(find(resources, "ConfigMap", prefix + "-proxy").at("/data/proxy.yaml").asText(), tmp), env);
            assertThat(portsListenedOn(config)).as("%s: ports the config listens on", rendering.getKey()).containsExactlyInAnyOrderElementsOf(servicePorts);
            assertThat(config.management().port()).isEqualTo(containerPorts.get("management"));
            assertThat(config.management().bindAddress()).isEqualTo("0.0.0.0");

            JsonNode bridge = find(resources, "Deployment", prefix + "-bridge").at("/spec/template/spec/containers/0");
            BridgeConfig bridgeConfig = BridgeConfigLoader.parse(find(resources, "ConfigMap", prefix + "-bridge").at("/data/bridge.yaml").asText(), env);
            assertThat(bridgeConfig.server().listen().port()).isEqualTo(bridge.at("/ports/0/containerPort").asInt());
            assertThat(bridgeConfig.management().port()).isEqualTo(bridge.at("/ports/1/containerPort").asInt());
        }
        JsonNode ranges = find(documents(renderings.get("ranges")), "Service", "blue-sluice-proxy");
        assertThat(ranges.at("/spec/ports").findValuesAsText("name"))
                .containsExactly("bootstrap", "broker-1", "broker-2", "broker-3", "broker-10", "broker-11");
    }

    /** `sluice size` writes values-SCENARIO.yaml beside resources-SCENARIO.yaml: the chart given it renders that Deployment. */
    @Test
    void theValuesSluiceSizeWritesGiveTheDeploymentItWrites() throws Exception {
        // Four times the documented traffic: more replicas and CPU than the defaults.
        Path out = sizeTheCommittedRuns(200, tmp.resolve("size"));
        JsonNode sized = YAML.readTree(out.resolve("resources-passthrough.yaml").toFile());
        assertThat(normalized(sized)).as("not the defaults").isNotEqualTo(normalized(find(documents(renderings.get("default")), "Deployment", "sluice-proxy")));

        JsonNode rendered = find(documents(render("sized", RELEASE, "-f", out.resolve("values-passthrough.yaml").toString())), "Deployment", "sluice-proxy");
        assertThat(normalized(rendered)).isEqualTo(normalized(sized));

        JvmBudget jvm = new JvmBudget(2L << 30, "-XX:+UseG1GC", 4);
        Path bridgeValues = tmp.resolve("bridge-values.yaml");
        Files.writeString(bridgeValues, HelmValues.of(DeployedComponent.BRIDGE, List.of("a sizing"), 3, 2500, jvm.limitBytes(), jvm));
        JsonNode bridge = find(documents(render("sized-bridge", RELEASE, "-f", bridgeValues.toString())), "Deployment", "sluice-bridge");
        assertThat(normalized(bridge)).isEqualTo(normalized(YAML.readTree(DeploymentYaml.of(DeployedComponent.BRIDGE, List.of(), 3, 2500, jvm.limitBytes(), jvm))));
    }

    /** The pods roll when a config they read at start changes, and not when only the replicas do. */
    @Test
    void aChangedConfigRollsThePodsAndAScaleDoesNot() throws IOException {
        Map<String, String> before = checksums(renderings.get("default"));
        assertThat(before).containsOnlyKeys("sluice-proxy", "sluice-bridge");

        assertThat(checksums(render("scaled", RELEASE, "--set", "proxy.replicas=5", "--set", "bridge.replicas=4"))).isEqualTo(before);
        Map<String, String> moved = checksums(render("moved", RELEASE, "--set", "kafka.bootstrapServers=other-kafka:9092"));
        assertThat(moved.get("sluice-proxy")).isNotEqualTo(before.get("sluice-proxy"));
        assertThat(moved.get("sluice-bridge")).isNotEqualTo(before.get("sluice-bridge"));
        Map<String, String> filtered = checksums(render("filtered", RELEASE, "--set", "proxy.extraConfig.network.shutdownTimeout=20s"));
        assertThat(filtered.get("sluice-proxy")).isNotEqualTo(before.get("sluice-proxy"));
        assertThat(filtered.get("sluice-bridge")).isEqualTo(before.get("sluice-bridge"));
    }

    /** Values that cannot work are refused before anything is rendered, with a message naming the field. */
    @Test
    void badValuesAreRefusedNamingTheField() throws IOException {
        Path reversed = tmp.resolve("reversed.yaml");
        Files.writeString(reversed, "proxy: {gateway: {portPerBroker: {nodeIdRanges: [{name: brokers, start: 7, end: 5}]}}}\n");
        Map<List<String>, String> cases = new java.util.LinkedHashMap<>();
        cases.put(List.of("--set", "proxy.gateway.mode=sniff"), "/proxy/gateway/mode");
        cases.put(List.of("--set", "proxy.replcias=3"), "replcias");
        cases.put(List.of("--set", "proxy.resources.request.cpu=1"), "request");
        cases.put(List.of("--set", "proxy.gateway.portPerBroker.bootstrapPort=70000"), "/proxy/gateway/portPerBroker/bootstrapPort");
        cases.put(List.of("-f", SNI.toString(), "--set", "proxy.gateway.sni.brokerHostPattern=broker.kafka.example.com"),
                "/proxy/gateway/sni/brokerHostPattern");
        cases.put(List.of("-f", SNI.toString(), "--set", "proxy.gateway.sni.bootstrapHost=broker-0.kafka.example.com"),
                "proxy.gateway.sni.bootstrapHost");
        cases.put(List.of("--set", "proxy.gateway.mode=sni"), "proxy.gateway.tls.secretName: required with proxy.gateway.mode sni");
        cases.put(List.of("-f", reversed.toString()), "proxy.gateway.portPerBroker.nodeIdRanges: range brokers ends (5) before it starts (7)");
        cases.put(List.of("--set", "proxy.extraConfig.management.port=1"), "proxy.extraConfig.management");
        cases.put(List.of("--set", "env.KAFKA_BOOTSTRAP=x:9092"), "env.KAFKA_BOOTSTRAP");
        cases.put(List.of("-f", EXTERNAL.toString(), "--set", "certificate.issuerRef.name="), "certificate.issuerRef.name");
        cases.put(List.of("--set", "certificate.enabled=true", "--set", "certificate.issuerRef.name=ca", "--set", "proxy.gateway.tls.secretName=tls"),
                "certificate.dnsNames");
        for (var c : cases.entrySet()) {
            List<String> args = new ArrayList<>(List.of("template", RELEASE, CHART.toString()));
            args.addAll(c.getKey());
            HelmCli.Result result = helm.run(args.toArray(String[]::new));
            assertThat(result.exitCode()).as("helm %s", c.getKey()).isNotZero();
            assertThat(result.stderr()).as("helm %s", c.getKey()).contains(c.getValue());
            assertThat(result.stdout()).as("nothing rendered for %s", c.getKey()).isBlank();
        }
    }

    /** The chart's version and appVersion are the project's (the image tag the manifests name). */
    @Test
    void theChartCarriesTheProjectsVersion() throws IOException {
        String version = DeploymentYaml.IMAGE.substring(DeploymentYaml.IMAGE.indexOf(':') + 1);
        JsonNode chart = YAML.readTree(CHART.resolve("Chart.yaml").toFile());
        assertThat(chart.get("version").asText()).as("Chart.yaml version").isEqualTo(version);
        assertThat(chart.get("appVersion").asText()).as("Chart.yaml appVersion").isEqualTo(version);
    }

    /** Whether the proxy's config has a gateway scheme besides port per broker (issue 33's SNI routing). */
    static boolean proxyHasSniGateways() {
        return Arrays.stream(GatewayConfig.class.getRecordComponents()).map(c -> c.getName())
                .anyMatch(name -> !Set.of("name", "portIdentifiesNode", "tls").contains(name));
    }

    static Path render(String name, String release, String... values) throws IOException {
        List<String> args = new ArrayList<>(List.of("template", release, CHART.toString(), "--namespace", "default", "--kube-version",
                KubernetesSchemas.VERSION));
        args.addAll(List.of(values));
        Path out = tmp.resolve("rendered-" + name + ".yaml");
        Files.writeString(out, helm.run(args.toArray(String[]::new)).ok().stdout());
        return out;
    }

    /** The environment a container's config sees: its env ConfigMap and its own entries, $(POD_NAMESPACE) resolved. */
    private static Map<String, String> envOf(List<JsonNode> resources, JsonNode container) {
        Map<String, String> env = new HashMap<>();
        container.path("envFrom").forEach(e -> find(resources, "ConfigMap", e.at("/configMapRef/name").asText()).get("data").fields()
                .forEachRemaining(d -> env.put(d.getKey(), d.getValue().asText())));
        container.path("env").forEach(e -> {
            if (e.has("value")) {
                env.put(e.get("name").asText(), e.get("value").asText().replace("$(POD_NAMESPACE)", "default"));
            }
        });
        return env;
    }

    private static Map<String, String> checksums(Path rendering) throws IOException {
        return documents(rendering).stream().filter(r -> r.get("kind").asText().equals("Deployment"))
                .collect(Collectors.toMap(d -> d.at("/metadata/name").asText(), d -> d.at("/spec/template/metadata/annotations/checksum~1config").asText()));
    }

    /** The same resources, by kind and name, each equal once {@link #normalized}. */
    private static void assertSameResources(List<JsonNode> chart, List<JsonNode> kustomize) {
        Map<String, JsonNode> rendered = byKindAndName(chart);
        Map<String, JsonNode> expected = byKindAndName(kustomize);
        assertThat(rendered.keySet()).isEqualTo(expected.keySet());
        expected.forEach((key, resource) -> assertThat(rendered.get(key)).as(key).isEqualTo(resource));
    }

    private static Map<String, JsonNode> byKindAndName(List<JsonNode> resources) {
        Map<String, JsonNode> map = new TreeMap<>();
        resources.forEach(r -> map.put(r.get("kind").asText() + " " + r.at("/metadata/name").asText(), normalized(r)));
        return map;
    }

    /**
     * A resource without what only Helm adds (its labels, on resources and in selectors, and the pods' config checksum),
     * and with each config file in a ConfigMap parsed, so that comments and layout do not count but every field does.
     */
    static JsonNode normalized(JsonNode resource) {
        ObjectNode copy = resource.deepCopy();
        strip(copy, "");
        if (copy.get("kind").asText().equals("ConfigMap")) {
            ObjectNode data = (ObjectNode) copy.get("data");
            List<String> files = new ArrayList<>();
            data.fieldNames().forEachRemaining(files::add);
            for (String file : files) {
                if (file.endsWith(".yaml")) {
                    try {
                        data.set(file, YAML.readTree(data.get(file).asText()));
                    } catch (IOException e) {
                        throw new AssertionError(file + " in ConfigMap " + copy.at("/metadata/name").asText() + " is not YAML", e);
                    }
                }
            }
        }
        return copy;
    }

    private static void strip(JsonNode node, String field) {
        if (node instanceof ObjectNode object) {
            if (LABEL_FIELDS.contains(field)) {
                object.remove(HELM_LABELS);
            }
            if (field.equals("annotations")) {
                List<String> checksums = new ArrayList<>();
                object.fieldNames().forEachRemaining(name -> {
                    if (name.startsWith("checksum/")) {
                        checksums.add(name);
                    }
                });
                object.remove(checksums);
            }
            object.fields().forEachRemaining(e -> strip(e.getValue(), e.getKey()));
        } else if (node.isArray()) {
            node.forEach(element -> strip(element, field));
        }
    }
}
