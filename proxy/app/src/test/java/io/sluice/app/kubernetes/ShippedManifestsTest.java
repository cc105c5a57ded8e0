package io.sluice.app.kubernetes;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.results.read.ResultSetReader;
import io.sluice.sizing.deploy.DeployedComponent;
import io.sluice.sizing.deploy.DeploymentYaml;
import io.sluice.sizing.deploy.JvmBudget;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;
import io.sluice.sizing.report.SizingOutput;
import io.sluice.sizing.testing.KubernetesSchemas;
import io.sluice.sizing.testing.KubernetesSchemas.Document;
import io.sluice.testkit.Executables;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kubernetes manifests shipped in {@code proxy/app/kubernetes}: every resource file is valid against the
 * Kubernetes API's schemas, the kustomizations name files that exist and (where kubectl is installed) render to valid
 * resources, the references between resources hold, the configs in the ConfigMaps load and listen where the Services
 * point, and the Deployments are exactly what {@code sluice size} writes, so they cannot drift from it.
 */
class ShippedManifestsTest {

    static final Path KUBERNETES = Path.of("kubernetes");
    static final Path BASE = KUBERNETES.resolve("base");
    static final Path EXAMPLE = KUBERNETES.resolve("overlays").resolve("example");
    /** The Helm chart and its example values: templates, not resources (HelmChartTest renders and checks them). */
    static final Path HELM = KUBERNETES.resolve("helm");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final String SECRETS = "/var/run/secrets/";
    static final Set<String> KUSTOMIZE_KINDS = Set.of("Kustomization", "Component");

    @TempDir
    Path tmp;

    @Test
    void everyResourceFileIsValidAgainstTheKubernetesSchemas() throws IOException {
        List<Path> files = resourceFiles();
        List<Document> documents = KubernetesSchemas.validate(files);

        assertThat(documents).extracting(Document::kind)
                .contains("Deployment", "Service", "ConfigMap", "PodDisruptionBudget", "ServiceMonitor", "Certificate");
        // The ServiceMonitor and cert-manager's Certificate are CRDs the Kubernetes schemas do not hold: their references
        // are checked below instead.
        assertThat(documents).filteredOn(d -> !d.schema()).extracting(Document::kind).containsOnly("ServiceMonitor", "Certificate");
        assertThat(documents).filteredOn(Document::schema)
                .allSatisfy(d -> assertThat(d.errors()).as("%s %s in %s", d.kind(), d.name(), d.file()).isEmpty());
    }

    @Test
    void kustomizationsNameFilesThatExistAndTheBaseNamesEveryFileBesideIt() throws IOException {
        for (Path kustomization : kustomizations()) {
            JsonNode k = YAML.readTree(kustomization.toFile());
            Path dir = kustomization.getParent();
            for (String field : List.of("resources", "components")) {
                k.path(field).forEach(entry -> assertThat(dir.resolve(entry.asText())).as("%s %s", kustomization, field).exists());
            }
            k.path("patches").forEach(p -> assertThat(dir.resolve(p.get("path").asText())).as("%s patches", kustomization).isRegularFile());
            k.path("configMapGenerator").forEach(g -> g.path("files").forEach(f -> assertThat(dir.resolve(f.asText())).isRegularFile()));
        }
        List<String> listed = new ArrayList<>();
        YAML.readTree(BASE.resolve("kustomization.yaml").toFile()).get("resources").forEach(r -> listed.add(r.asText()));
        try (Stream<Path> files = Files.list(BASE)) {
            assertThat(listed).containsExactlyInAnyOrderElementsOf(files.map(f -> f.getFileName().toString())
                    .filter(name -> !name.equals("kustomization.yaml")).toList());
        }
    }

    /** Renders each kustomization as {@code kubectl apply -k} would, and validates the result. */
    @Test
    void theBaseAndTheExampleOverlayRenderToValidResources() throws Exception {
        Assumptions.assumeTrue(Executables.onPath("kubectl"), "kubectl is not installed: the kustomizations are checked file by file only");
        List<Path> rendered = new ArrayList<>();
        for (Path dir : List.of(BASE, EXAMPLE)) {
            Path out = tmp.resolve(dir.getFileName() + ".yaml");
            Process p = new ProcessBuilder("kubectl", "kustomize", dir.toString()).redirectOutput(out.toFile()).redirectErrorStream(false).start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("kubectl kustomize %s: %s", dir, new String(p.getErrorStream().readAllBytes())).isZero();
            rendered.add(out);
        }
        List<Document> documents = KubernetesSchemas.validate(rendered);
        assertThat(documents).filteredOn(Document::schema)
                .allSatisfy(d -> assertThat(d.errors()).as("%s %s in %s", d.kind(), d.name(), d.file()).isEmpty());
        assertReferencesHold(documents(rendered.get(0)));
        List<JsonNode> example = documents(rendered.get(1));
        assertReferencesHold(example);
        JsonNode service = find(example, "Service", "sluice-proxy");
        assertThat(service.at("/spec/type").asText()).isEqualTo("LoadBalancer");
        JsonNode container = find(example, "Deployment", "sluice-proxy").at("/spec/template/spec/containers/0");
        assertThat(container.get("image").asText()).startsWith("registry.example.com/sluice:");
        assertThat(env(container, "SLUICE_ADVERTISED_HOST")).isEqualTo("kafka.example.com");
        assertThat(env(container, "SLUICE_JAVA_OPTS")).as("the patch keeps the sized JVM").contains("-XX:+UseParallelGC");
        assertExampleTlsFilesComeFromSecrets(example, container);
    }

    /**
     * The example serves JwtAuth through a LoadBalancer and reaches Strimzi's TLS listener: both sides are TLS, and every
     * file its TLS sections name is in a Secret volume mounted read-only; the gateway's Secret is the one the
     * cert-manager Certificate writes, for the name the proxy advertises.
     */
    private void assertExampleTlsFilesComeFromSecrets(List<JsonNode> example, JsonNode container) throws IOException {
        Map<String, String> env = new HashMap<>(Map.of("KAFKA_BOOTSTRAP", "prod-kafka-bootstrap.kafka.svc:9093", "SLUICE_ADVERTISED_HOST",
                env(container, "SLUICE_ADVERTISED_HOST"), "VAULT_ADDR", "https://vault.example.com:8200", "SLUICE_JWKS", "https://issuer.example/jwks",
                "SLUICE_JWT_ISSUER", "https://issuer.example", "SLUICE_JWT_AUDIENCE", "kafka"));
        ProxyConfig config = ProxyConfigLoader.parse(withSecretFiles(find(example, "ConfigMap", "sluice-proxy").at("/data/proxy.yaml").asText()), env);
        var cluster = config.virtualClusters().get(0);
        var gateway = cluster.gateways().get(0);
        assertThat(gateway.tls()).as("clients send bearer tokens through the LoadBalancer: the gateway is TLS").isNotNull();
        assertThat(cluster.targetCluster().tls()).as("Strimzi's 9093 listener is TLS").isNotNull();
        Map<String, String> secretByMount = new HashMap<>();
        JsonNode pod = find(example, "Deployment", "sluice-proxy").at("/spec/template/spec");
        container.get("volumeMounts").forEach(m -> pod.get("volumes").forEach(v -> {
            if (v.get("name").equals(m.get("name")) && v.has("secret")) {
                assertThat(m.path("readOnly").asBoolean()).as("mount %s", m.get("mountPath")).isTrue();
                secretByMount.put(m.get("mountPath").asText(), v.at("/secret/secretName").asText());
            }
        }));
        String gatewaySecret = secretOf(secretByMount, inPod(gateway.tls().key().certificateFile()));
        assertThat(secretOf(secretByMount, inPod(gateway.tls().key().privateKeyFile()))).isEqualTo(gatewaySecret);
        assertThat(secretOf(secretByMount, inPod(cluster.targetCluster().tls().trust().storeFile()))).isNotNull();
        JsonNode issued = find(example, "Certificate", "sluice-proxy");
        assertThat(issued.at("/spec/secretName").asText()).isEqualTo(gatewaySecret);
        assertThat(issued.at("/spec/dnsNames").toString()).contains('"' + env.get("SLUICE_ADVERTISED_HOST") + '"');
        assertThat(issued.at("/spec/privateKey/encoding").asText()).as("the proxy reads PKCS#8 keys").isEqualTo("PKCS8");
    }

    private String withSecretFiles(String yaml) throws IOException {
        return withSecretFiles(yaml, tmp);
    }

    private String inPod(String file) {
        return file.replace(tmp.resolve("secrets") + "/", SECRETS);
    }

    /**
     * Loading checks that the files a config names exist: the Secrets' files (under /var/run/secrets) are created under
     * {@code dir}, and the config pointed there; {@link #inPod} maps a path back.
     */
    static String withSecretFiles(String yaml, Path dir) throws IOException {
        var m = java.util.regex.Pattern.compile(SECRETS + "[\\w./-]+").matcher(yaml);
        while (m.find()) {
            Path file = dir.resolve("secrets").resolve(m.group().substring(SECRETS.length()));
            Files.createDirectories(file.getParent());
            if (!Files.exists(file)) {
                Files.writeString(file, "");
            }
        }
        return yaml.replace(SECRETS, dir.resolve("secrets") + "/");
    }

    private static String secretOf(Map<String, String> secretByMount, String file) {
        return secretByMount.entrySet().stream().filter(e -> file.startsWith(e.getKey() + "/")).map(Map.Entry::getValue).findFirst()
                .orElseThrow(() -> new AssertionError(file + " is in no Secret volume"));
    }

    @Test
    void referencesBetweenTheShippedResourcesHold() throws IOException {
        List<JsonNode> all = new ArrayList<>();
        for (Path file : resourceFiles()) {
            if (file.startsWith(BASE) || file.startsWith(KUBERNETES.resolve("monitoring"))) {
                all.addAll(documents(file));
            }
        }
        assertThat(all).filteredOn(r -> r.get("kind").asText().equals("Deployment")).extracting(d -> d.at("/metadata/name").asText())
                .containsExactlyInAnyOrder("sluice-proxy", "sluice-bridge");
        assertReferencesHold(all);
    }

    /** The configs in the ConfigMaps load as the proxy loads them, and listen on the ports the Services name. */
    @Test
    void theProxyConfigsLoadAndServeThePortsTheServiceExposes() throws IOException {
        List<JsonNode> base = new ArrayList<>();
        for (Path file : resourceFiles()) {
            if (file.startsWith(BASE)) {
                base.addAll(documents(file));
            }
        }
        Map<String, String> env = new HashMap<>();
        find(base, "ConfigMap", "sluice-env").get("data").fields().forEachRemaining(e -> env.put(e.getKey(), e.getValue().asText()));
        env.put("SLUICE_ADVERTISED_HOST", "sluice-proxy.default.svc");
        env.put("VAULT_ADDR", "https://vault.example.com:8200");
        Set<Integer> servicePorts = new HashSet<>();
        find(base, "Service", "sluice-proxy").at("/spec/ports").forEach(p -> servicePorts.add(p.get("port").asInt()));
        // The Service's ports reach the container's by name: the numbers behind those names must be the same ones.
        Set<Integer> containerPorts = new HashSet<>();
        find(base, "Deployment", "sluice-proxy").at("/spec/template/spec/containers/0/ports").forEach(p -> {
            if (!p.get("name").asText().equals("management")) {
                containerPorts.add(p.get("containerPort").asInt());
            }
        });
        assertThat(containerPorts).isEqualTo(servicePorts);

        List<String> configs = List.of(find(base, "ConfigMap", "sluice-proxy").at("/data/proxy.yaml").asText(), Files.readString(EXAMPLE.resolve("proxy.yaml")));
        for (String yaml : configs) {
            ProxyConfig config = ProxyConfigLoader.parse(withSecretFiles(yaml), env);
            assertThat(config.management().bindAddress()).as("probes and scrapes come from outside the pod").isEqualTo("0.0.0.0");
            assertThat(config.management().port()).isEqualTo(DeployedComponent.PROXY.managementPort());
            var gateway = config.virtualClusters().get(0).gateways().get(0).portIdentifiesNode();
            assertThat(portsListenedOn(config)).as("ports the config listens on").isEqualTo(servicePorts);
            // The one source of the node ids is the config's nodeIdRanges; sizing writes the Deployment's ports from these.
            assertThat(gateway.nodeIdRanges()).singleElement().satisfies(r -> {
                assertThat(r.start()).isEqualTo(DeployedComponent.PROXY_FIRST_NODE_ID);
                assertThat(r.end()).isEqualTo(DeployedComponent.PROXY_LAST_NODE_ID);
            });
        }
    }

    /** The base's proxy Deployment is what docs/kubernetes.md's command prints for the committed runs. */
    @Test
    void theProxyDeploymentIsWhatSluiceSizeWritesForTheDocumentedTraffic() throws Exception {
        // `sluice size --runs docs/sizing-runs/2026-11-22 --produce-mb-s 50 --consumer-groups 1`
        Path out = sizeTheCommittedRuns(50, tmp.resolve("size"));

        assertThat(YAML.readTree(BASE.resolve("sluice-proxy-deployment.yaml").toFile()))
                .as("base/sluice-proxy-deployment.yaml against `sluice size` (regenerate it with the command at its top)")
                .isEqualTo(YAML.readTree(out.resolve("resources-passthrough.yaml").toFile()));
    }

    /** `sluice size` on the committed runs for {@code produceMbS} read by one consumer group, its other options at their defaults. */
    static Path sizeTheCommittedRuns(double produceMbS, Path out) throws IOException {
        Path runs = Path.of("..", "..", "docs", "sizing-runs", "2026-11-22");
        SizingOutput.writeProxy(Sizing.of(runs, ResultSetReader.read(runs), new TrafficSpec(produceMbS, 1, 1024, 1.3, 2000), false), runs, out,
                new PrintStream(OutputStream.nullOutputStream()));
        return out;
    }

    /** No bridge runs are committed: the base's bridge is the shape `size bridge` writes, at 1 CPU and -Xmx1g. */
    @Test
    void theBridgeDeploymentIsWhatSluiceSizeBridgeWritesForOneCoreAndTheDefaultHeap() throws IOException {
        JvmBudget jvm = new JvmBudget(1L << 30, "-XX:+UseParallelGC", 2);
        String expected = DeploymentYaml.of(DeployedComponent.BRIDGE, List.of(), 2, 1000, jvm.limitBytes(), jvm);

        assertThat(YAML.readTree(BASE.resolve("sluice-bridge-deployment.yaml").toFile())).isEqualTo(YAML.readTree(expected));
    }

    /** The bootstrap and broker ports of the config's first gateway (port per broker). */
    static Set<Integer> portsListenedOn(ProxyConfig config) {
        Set<Integer> ports = new HashSet<>();
        var gateway = config.virtualClusters().get(0).gateways().get(0).portIdentifiesNode();
        ports.add(gateway.bootstrapAddress().port());
        int port = gateway.nodeStartPort();
        for (var range : gateway.nodeIdRanges()) {
            for (int node = range.start(); node <= range.end(); node++) {
                ports.add(port++);
            }
        }
        return ports;
    }

    /**
     * What the schemas cannot see: every Service, PodDisruptionBudget and ServiceMonitor selects pods or Services that
     * exist, every named target port and probe port is a port of the container, and the ConfigMaps the pods mount exist.
     */
    static void assertReferencesHold(List<JsonNode> resources) {
        List<JsonNode> deployments = resources.stream().filter(r -> r.get("kind").asText().equals("Deployment")).toList();
        assertThat(deployments).as("Deployments").isNotEmpty();
        for (JsonNode d : deployments) {
            assertThat(selects(d.at("/spec/selector/matchLabels"), d.at("/spec/template/metadata/labels"))).as("selector of %s", name(d)).isTrue();
            JsonNode container = d.at("/spec/template/spec/containers/0");
            Set<String> ports = new HashSet<>();
            container.get("ports").forEach(p -> ports.add(p.get("name").asText()));
            for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
                assertThat(ports).as("%s of %s", probe, name(d)).contains(container.at("/" + probe + "/httpGet/port").asText());
            }
            d.at("/spec/template/spec/volumes").forEach(v -> {
                if (v.has("configMap")) {
                    assertThat(find(resources, "ConfigMap", v.at("/configMap/name").asText())).as("ConfigMap of %s", name(d)).isNotNull();
                }
            });
            container.path("envFrom").forEach(e -> assertThat(find(resources, "ConfigMap", e.at("/configMapRef/name").asText())).isNotNull());
            assertThat(container.at("/securityContext/capabilities/drop/0").asText()).isEqualTo("ALL");
            assertThat(d.at("/spec/template/spec/securityContext/runAsNonRoot").asBoolean()).isTrue();
            // N+1: one node lost takes one replica, so the replicas are spread over nodes (and zones where labelled).
            JsonNode spread = d.at("/spec/template/spec/topologySpreadConstraints");
            assertThat(spread.findValuesAsText("topologyKey")).as("spread of %s", name(d)).contains("kubernetes.io/hostname");
            spread.forEach(c -> assertThat(selects(c.at("/labelSelector/matchLabels"), d.at("/spec/template/metadata/labels")))
                    .as("spread of %s counts its own pods", name(d)).isTrue());
            // The pause before SIGTERM, then the drain (shutdownTimeout: the proxy's default 15 s), within the grace period.
            JsonNode preStop = container.at("/lifecycle/preStop/exec/command");
            assertThat(preStop.get(0).asText()).as("preStop of %s", name(d)).isEqualTo("sleep");
            assertThat(preStop.get(1).asInt()).isPositive();
            assertThat(d.at("/spec/template/spec/terminationGracePeriodSeconds").asInt()).isGreaterThanOrEqualTo(preStop.get(1).asInt() + 15);
        }
        for (JsonNode r : resources) {
            String kind = r.get("kind").asText();
            if (kind.equals("Service")) {
                JsonNode pod = podSelectedBy(deployments, r.at("/spec/selector"));
                assertThat(pod).as("pods of Service %s", name(r)).isNotNull();
                Set<String> ports = new HashSet<>();
                pod.at("/containers/0/ports").forEach(p -> ports.add(p.get("name").asText()));
                r.at("/spec/ports").forEach(p -> assertThat(ports).as("targetPort of Service %s", name(r)).contains(p.get("targetPort").asText()));
            } else if (kind.equals("PodDisruptionBudget")) {
                assertThat(podSelectedBy(deployments, r.at("/spec/selector/matchLabels"))).as("pods of %s", name(r)).isNotNull();
            } else if (kind.equals("ServiceMonitor")) {
                List<JsonNode> selected = resources.stream().filter(s -> s.get("kind").asText().equals("Service"))
                        .filter(s -> selects(r.at("/spec/selector/matchLabels"), s.at("/metadata/labels")))
                        .filter(s -> {
                            JsonNode names = r.at("/spec/selector/matchExpressions/0/values");
                            return names.isMissingNode() || names.toString().contains('"' + s.at("/metadata/labels/app.kubernetes.io~1name").asText() + '"');
                        }).toList();
                // Every component's metrics Service, and nothing else.
                List<String> metrics = resources.stream().filter(s -> s.get("kind").asText().equals("Service"))
                        .filter(s -> s.at("/metadata/labels/app.kubernetes.io~1component").asText().equals("metrics")).map(s -> s.at("/metadata/name").asText()).toList();
                assertThat(metrics).hasSameSizeAs(deployments);
                assertThat(selected).extracting(s -> s.at("/metadata/name").asText()).containsExactlyInAnyOrderElementsOf(metrics);
                String port = r.at("/spec/endpoints/0/port").asText();
                selected.forEach(s -> assertThat(s.at("/spec/ports").findValuesAsText("name")).contains(port));
            }
        }
    }

    private static JsonNode podSelectedBy(List<JsonNode> deployments, JsonNode selector) {
        return deployments.stream().map(d -> d.at("/spec/template")).filter(t -> selects(selector, t.at("/metadata/labels"))).findFirst()
                .map(t -> t.get("spec")).orElse(null);
    }

    private static boolean selects(JsonNode selector, JsonNode labels) {
        if (selector.isMissingNode() || selector.isEmpty()) {
            return false;
        }
        var fields = selector.fields();
        while (fields.hasNext()) {
            var label = fields.next();
            if (!label.getValue().equals(labels.get(label.getKey()))) {
                return false;
            }
        }
        return true;
    }

    static String env(JsonNode container, String name) {
        for (JsonNode e : container.get("env")) {
            if (e.get("name").asText().equals(name)) {
                return e.path("value").asText();
            }
        }
        return null;
    }

    private static String name(JsonNode resource) {
        return resource.get("kind").asText() + " " + resource.at("/metadata/name").asText();
    }

    static JsonNode find(List<JsonNode> resources, String kind, String name) {
        return resources.stream().filter(r -> r.get("kind").asText().equals(kind) && r.at("/metadata/name").asText().equals(name))
                .findFirst().orElse(null);
    }

    static List<JsonNode> documents(Path file) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (YAMLParser parser = new YAMLFactory().createParser(file.toFile())) {
            var values = YAML.readValues(parser, JsonNode.class);
            while (values.hasNext()) {
                JsonNode node = values.next();
                if (node != null && !node.isNull() && !node.isMissingNode()) {
                    documents.add(node);
                }
            }
        }
        return documents;
    }

    /**
     * Every YAML file under proxy/app/kubernetes that is a Kubernetes resource: not a kustomization, not a config, and
     * not a patch (a patch is part of a resource; the rendered overlay is validated whole).
     */
    static List<Path> resourceFiles() throws IOException {
        Set<Path> patches = new HashSet<>();
        for (Path kustomization : kustomizations()) {
            YAML.readTree(kustomization.toFile()).path("patches")
                    .forEach(p -> patches.add(kustomization.getParent().resolve(p.get("path").asText()).normalize()));
        }
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            List<Path> yaml = files.filter(f -> f.toString().endsWith(".yaml")).filter(f -> !patches.contains(f.normalize()))
                    .filter(f -> !f.startsWith(HELM)).sorted().toList();
            List<Path> resources = new ArrayList<>();
            for (Path file : yaml) {
                JsonNode first = documents(file).get(0);
                if (first.has("apiVersion") && first.has("kind") && !KUSTOMIZE_KINDS.contains(first.get("kind").asText())) {
                    resources.add(file);
                }
            }
            return resources;
        }
    }

    static List<Path> kustomizations() throws IOException {
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            return files.filter(f -> f.getFileName().toString().equals("kustomization.yaml")).sorted().toList();
        }
    }
}
