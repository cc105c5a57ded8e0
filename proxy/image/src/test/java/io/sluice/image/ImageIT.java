package io.sluice.image;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.TarImage;

import io.sluice.image.Dockerfile.Instruction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The image, built offline: {@link SluiceImage} on the empty {@code scratch} base (no registry is reachable here, so
 * no JRE layer), from the tarball {@code mvn package} built, written as a {@code docker load} tar. The test reads that
 * tar as a container engine would (manifest.json, the config, every layer) and checks the contract the Kubernetes
 * manifests rely on; then that proxy/app/Dockerfile, the build with a container engine, says the same. Running the
 * image needs a container engine and the base, and is not tested here (docs/container.md).
 */
class ImageIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SOURCE = "https://example.org/sluice.git";

    @TempDir
    static Path work;

    private static String version;
    private static Path app;
    private static Distribution distribution;
    private static JsonNode config;
    /** Every layer entry by its path (without the leading slash); a later layer's entry replaces an earlier one's. */
    private static final Map<String, LayerEntry> entries = new TreeMap<>();

    private record LayerEntry(TarArchiveEntry header, String sha256) {
    }

    @BeforeAll
    static void buildOffline() throws Exception {
        version = System.getProperty("sluice.version");
        app = Path.of(System.getProperty("sluice.app"));
        Path tarball = Path.of(System.getProperty("sluice.distribution"));
        assertThat(tarball).as("built by mvn package in proxy/app").isRegularFile();
        distribution = Distribution.unpack(tarball, work.resolve("distribution"));

        Path imageTar = work.resolve("image.tar");
        SluiceImage.plan(distribution, SluiceImage.SCRATCH, SOURCE).containerize(
                Containerizer.to(TarImage.at(imageTar).named("sluice:" + version))
                        .setOfflineMode(true)
                        .setApplicationLayersCache(work.resolve("layers-cache"))
                        .setBaseImageLayersCache(work.resolve("base-cache")));

        Map<String, byte[]> files = new HashMap<>();
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new BufferedInputStream(Files.newInputStream(imageTar)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                files.put(entry.getName(), tar.readAllBytes());
            }
        }
        JsonNode manifest = JSON.readTree(files.get("manifest.json")).get(0);
        assertThat(manifest.path("RepoTags").get(0).asText()).isEqualTo("sluice:" + version);
        config = JSON.readTree(files.get(manifest.path("Config").asText()));
        for (JsonNode layer : manifest.path("Layers")) {
            try (TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(
                    new ByteArrayInputStream(files.get(layer.asText()))))) {
                TarArchiveEntry entry;
                while ((entry = tar.getNextEntry()) != null) {
                    String path = entry.getName().replaceFirst("^\\./", "").replaceFirst("^/", "").replaceFirst("/$", "");
                    entries.put(path, new LayerEntry(entry, entry.isDirectory() ? null : sha256(tar)));
                }
            }
        }
    }

    @Test
    void theConfigRunsTheLauncherAsTheNonRootUserFromTheDistributionsHome() {
        JsonNode container = config.path("config");
        assertThat(strings(container.path("Entrypoint"))).containsExactly("bin/sluice");
        assertThat(strings(container.path("Cmd"))).containsExactly("proxy", "--config", "/etc/sluice/proxy.yaml");
        assertThat(container.path("User").asText()).isEqualTo("10001:10001");
        assertThat(container.path("WorkingDir").asText()).isEqualTo("/opt/sluice");
        Set<String> ports = new TreeSet<>();
        container.path("ExposedPorts").fieldNames().forEachRemaining(ports::add);
        assertThat(ports).isEqualTo(new TreeSet<>(Set.of("8080/tcp", "9190/tcp", "9191/tcp", "9192/tcp", "9193/tcp", "9194/tcp",
                "9195/tcp", "9196/tcp", "9197/tcp", "9198/tcp")));
        // The JVM options and the Kafka address are the deployment's (SLUICE_JAVA_OPTS, KAFKA_BOOTSTRAP): the image sets
        // none of Sluice's variables, and the base supplies JAVA_HOME and PATH.
        assertThat(strings(container.path("Env"))).noneMatch(e -> e.startsWith("SLUICE_") || e.startsWith("KAFKA_"));

        Map<String, String> labels = new LinkedHashMap<>();
        container.path("Labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        assertThat(labels).containsEntry("org.opencontainers.image.version", version)
                .containsEntry("org.opencontainers.image.licenses", "Apache-2.0")
                .containsEntry("org.opencontainers.image.source", SOURCE)
                .containsEntry("org.opencontainers.image.title", "Sluice");
        // The commit the distribution's own build recorded (sluice_build_info reports the same one).
        assertThat(labels.get("org.opencontainers.image.revision")).isEqualTo(distribution.revision()).matches("[0-9a-f]{7,40}|unknown");
    }

    @Test
    void theLayersHoldExactlyTheTarballsFilesUnderOptSluice() throws IOException {
        Map<String, String> expected = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(distribution.home())) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                if (!SluiceImage.inImage(distribution.home().relativize(file))) {
                    continue;
                }
                try (InputStream in = Files.newInputStream(file)) {
                    expected.put("opt/sluice/" + distribution.home().relativize(file), sha256(in));
                }
            }
        }
        Map<String, String> actual = new TreeMap<>();
        entries.forEach((path, entry) -> {
            if (!entry.header().isDirectory()) {
                actual.put(path, entry.sha256());
            }
        });
        // Same names, same bytes: every runtime jar in lib/ once, the launcher, examples, manifests, licence.
        assertThat(actual).isEqualTo(expected);
        // The demo broker, Scala, log4j-core and the benchmark/OMB jars are in the tarball's lib-extra/, not in the image.
        try (Stream<Path> extra = Files.list(distribution.home().resolve("lib-extra"))) {
            assertThat(extra.map(f -> f.getFileName().toString())).anyMatch(j -> j.startsWith("org.apache.kafka-kafka_2.13-"));
        }
        // The JavaScript client's npm package is in the tarball's clients/, not in the image.
        assertThat(distribution.home().resolve("clients")).isNotEmptyDirectory();
        assertThat(actual.keySet()).noneMatch(p -> p.contains("/lib-extra/") || p.contains("/clients/") || p.endsWith(".tgz") || p.contains("kafka_2.13") || p.contains("scala-library")
                || p.contains("log4j-core") || p.contains("sluice-omb-workloads") || p.contains("sluice-bench") || p.contains("sluice-testkit"));
        assertThat(actual.keySet()).contains("opt/sluice/bin/sluice", "opt/sluice/LICENSE", "opt/sluice/NOTICE",
                "opt/sluice/config/examples/passthrough.yaml", "opt/sluice/config/examples/bridge.yaml",
                "opt/sluice/kubernetes/base/kustomization.yaml");
        assertThat(actual.keySet()).anyMatch(p -> p.startsWith("opt/sluice/lib/io.sluice-sluice-app-"))
                .anyMatch(p -> p.startsWith("opt/sluice/lib/io.netty-"))
                .noneMatch(p -> p.endsWith("-tests.jar") || p.contains("junit") || p.contains("assertj") || p.contains("kroxylicious"));
        // Nothing else: the image adds no files of its own outside the distribution's home.
        assertThat(entries.keySet()).allMatch(p -> p.startsWith("opt/sluice/") || p.equals("opt/sluice") || p.equals("opt"));
    }

    @Test
    void everyFileIsRootsAndReadOnlyForTheUserAndOnlyTheLauncherIsExecutable() {
        assertThat(entries).isNotEmpty().allSatisfy((path, entry) -> {
            TarArchiveEntry header = entry.header();
            assertThat(header.getLongUserId()).as("%s owner", path).isZero();
            assertThat(header.getLongGroupId()).as("%s group", path).isZero();
            int mode = header.getMode() & 07777;
            // Neither group nor others may write, nor setuid/setgid/sticky: uid 10001 can change nothing here.
            assertThat(mode & 07022).as("%s mode %o", path, mode).isZero();
            assertThat(mode & 0004).as("%s readable by the user", path).isNotZero();
            boolean executable = (mode & 0001) != 0;
            assertThat(executable).as("%s executable (mode %o)", path, mode)
                    .isEqualTo(header.isDirectory() || path.startsWith("opt/sluice/bin/"));
        });
        assertThat(entries.get("opt/sluice/bin/sluice").header().getMode() & 07777).isEqualTo(0755);
    }

    @Test
    void theDockerfileBuildsTheSameImageFromTheTarball() throws IOException {
        Dockerfile dockerfile = Dockerfile.read(app.resolve("Dockerfile"));

        List<Instruction> from = dockerfile.all("FROM");
        assertThat(from).as("multi-stage: unpack, then the image").hasSizeGreaterThanOrEqualTo(2);
        for (Instruction stage : from) {
            String image = stage.arguments().split("\\s+")[0];
            assertThat(image).as("every base pinned by a tag or digest").matches("[^:@\\s]+(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?")
                    .matches(".*[:@].*").doesNotEndWith(":latest");
        }
        assertThat(from.get(from.size() - 1).arguments().split("\\s+")[0]).as("the final base, the same Jib uses")
                .isEqualTo(SluiceImage.DEFAULT_BASE);

        assertThat(single(dockerfile.finalStage("USER"))).isEqualTo(SluiceImage.USER).matches("[1-9][0-9]*:[1-9][0-9]*");
        assertThat(single(dockerfile.finalStage("WORKDIR"))).isEqualTo(SluiceImage.HOME);
        // Exec form (a JSON array): a shell form would run /bin/sh -c as PID 1, which does not pass SIGTERM on.
        assertThat(strings(json(single(dockerfile.finalStage("ENTRYPOINT"))))).isEqualTo(SluiceImage.ENTRYPOINT);
        assertThat(strings(json(single(dockerfile.finalStage("CMD"))))).isEqualTo(SluiceImage.CMD);
        assertThat(dockerfile.finalStage("EXPOSE").stream().flatMap(i -> Stream.of(i.arguments().split("\\s+"))).toList())
                .containsExactlyInAnyOrderElementsOf(SluiceImage.PORTS);
        String labels = dockerfile.finalStage("LABEL").stream().map(Instruction::arguments).collect(Collectors.joining(" "));
        assertThat(labels).contains("org.opencontainers.image.version=\"" + version + "\"",
                "org.opencontainers.image.licenses=\"" + SluiceImage.LICENSES + "\"", "org.opencontainers.image.revision=",
                "org.opencontainers.image.source=");
        SluiceImage.labels(distribution, SOURCE).keySet().forEach(key -> assertThat(labels).contains(key + "="));

        // The final stage copies from the unpack stage only; the first copies the tarball mvn package built (so the
        // ARG default is this version), and .dockerignore lets exactly that into the build context.
        assertThat(dockerfile.finalStage("COPY")).isNotEmpty().allMatch(i -> i.arguments().startsWith("--from="));
        assertThat(dockerfile.finalStage("RUN")).isEmpty();
        String removed = SluiceImage.NOT_IN_IMAGE.stream().map(folder -> SluiceImage.HOME + "/" + folder).collect(Collectors.joining(" "));
        assertThat(dockerfile.all("RUN")).as("the unpack stage leaves out what Jib leaves out")
                .anyMatch(i -> i.arguments().contains("rm -rf " + removed + " "));
        List<String> sources = dockerfile.all("COPY").stream().filter(i -> !i.arguments().startsWith("--from="))
                .map(i -> i.arguments().split("\\s+")[0]).toList();
        assertThat(sources).containsExactly("target/sluice-" + version + ".tar.gz");
        assertThat(app.resolve(sources.get(0))).isRegularFile();
        assertThat(inContext(sources.get(0))).as("%s passes .dockerignore", sources.get(0)).isTrue();
        assertThat(inContext("pom.xml")).isFalse();
        assertThat(inContext("src/main/java/io/sluice/app/cli/Main.java")).isFalse();
    }

    @Test
    void theShippedDeploymentsRunThisImageAsItsUser() throws IOException {
        YAMLMapper yaml = new YAMLMapper();
        List<Path> deployments;
        try (Stream<Path> base = Files.list(app.resolve("kubernetes/base"))) {
            deployments = base.filter(p -> p.getFileName().toString().endsWith("-deployment.yaml")).sorted().toList();
        }
        assertThat(deployments).hasSize(2);
        Set<String> exposed = SluiceImage.PORTS.stream().flatMap(ImageIT::portRange).collect(Collectors.toSet());
        for (Path file : deployments) {
            JsonNode pod = yaml.readTree(file.toFile()).path("spec").path("template").path("spec");
            assertThat(pod.path("securityContext").path("runAsUser").asText() + ":" + pod.path("securityContext").path("runAsGroup").asText())
                    .as(file.toString()).isEqualTo(SluiceImage.USER);
            for (JsonNode container : pod.path("containers")) {
                assertThat(container.path("image").asText()).as(file.toString()).isEqualTo("sluice:" + version);
                // The image's entrypoint and working directory stay: bin/sluice is relative to /opt/sluice.
                assertThat(container.has("command")).as("%s overrides the entrypoint", file).isFalse();
                assertThat(container.has("workingDir")).as("%s overrides the working directory", file).isFalse();
                for (JsonNode port : container.path("ports")) {
                    assertThat(exposed).as("%s port %s exposed by the image", file, port).contains(port.path("containerPort").asText());
                }
            }
        }
    }

    /** Whether .dockerignore lets {@code path} into the build context: the last pattern that matches decides. */
    private static boolean inContext(String path) throws IOException {
        boolean included = true;
        for (String line : Files.readAllLines(app.resolve(".dockerignore"))) {
            String pattern = line.strip();
            if (pattern.isEmpty() || pattern.startsWith("#")) {
                continue;
            }
            boolean negated = pattern.startsWith("!");
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + (negated ? pattern.substring(1) : pattern));
            if (matcher.matches(Path.of(path)) || (!negated && Path.of(path).getNameCount() > 1 && matcher.matches(Path.of(path).getName(0)))) {
                included = negated;
            }
        }
        return included;
    }

    private static Stream<String> portRange(String port) {
        String[] bounds = port.split("-");
        int low = Integer.parseInt(bounds[0]);
        int high = Integer.parseInt(bounds[bounds.length - 1]);
        return IntStream.rangeClosed(low, high).mapToObj(Integer::toString);
    }

    private static String single(List<Instruction> instructions) {
        assertThat(instructions).hasSize(1);
        return instructions.get(0).arguments();
    }

    /** The exec form's JSON array; anything else is the shell form. */
    private static JsonNode json(String text) {
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (IOException notJson) {
            node = null;
        }
        assertThat(node != null && node.isArray()).as("exec form (a JSON array), not the shell form: %s", text).isTrue();
        return node;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[65536];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
