package io.sluice.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.google.cloud.tools.jib.api.InvalidImageReferenceException;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.Ports;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;

/**
 * The container image: what proxy/app/Dockerfile builds with a container engine, built here with Jib so that no
 * daemon is needed (docs/container.md). ImageIT checks that the Dockerfile says the same as these constants.
 *
 * <p>The files are the distribution's, under {@link #HOME}, owned by root and not writable by anyone else: the
 * process runs as {@link #USER} and can change none of them, with or without a read-only root filesystem. The
 * launcher {@code bin/sluice} execs the JVM, so the JVM is PID 1 and receives the SIGTERM that stops the container.
 */
public final class SluiceImage {

    /** The default base: the JRE 17 the Dockerfile names (a tag; pin a digest with --from NAME:TAG@sha256:...). */
    public static final String DEFAULT_BASE = "eclipse-temurin:17-jre-noble";
    /** Jib's name for the empty base: no registry, so the image's own layers can be built and inspected offline. */
    public static final String SCRATCH = "scratch";
    public static final String HOME = "/opt/sluice";
    public static final String LAUNCHER = "bin/sluice";
    /** Numeric, so Kubernetes' runAsNonRoot can verify it without an /etc/passwd entry; the manifests' runAsUser. */
    public static final String USER = "10001:10001";
    public static final List<String> ENTRYPOINT = List.of(LAUNCHER);
    /** The manifests mount the configuration at /etc/sluice and pass their own arguments; this is the proxy's. */
    public static final List<String> CMD = List.of("proxy", "--config", "/etc/sluice/proxy.yaml");
    /**
     * The ports of the shipped configurations: the bridge's WebSocket 8080, management 9190 (proxy) and 9191 (bridge),
     * the proxy's bootstrap 9192 and its brokers 9193-9198 (the Kubernetes config's nodeIdRanges 0-5).
     */
    public static final List<String> PORTS = List.of("8080", "9190", "9191", "9192-9198");
    public static final String LICENSES = "Apache-2.0";

    /** Files in the layers: reproducible (Jib's fixed time), root's, readable by all; only executables executable. */
    private static final String ROOT = "0:0";
    private static final Instant MODIFIED = FileEntriesLayer.DEFAULT_MODIFICATION_TIME;
    private static final FilePermissions FILE = FilePermissions.fromOctalString("644");
    private static final FilePermissions EXECUTABLE = FilePermissions.fromOctalString("755");
    /** The project's own jars change with every build, the third-party ones rarely: separate layers pull less. */
    private static final String OWN_JARS = "io.sluice-";
    /**
     * The distribution's folders that nothing in a pod uses, so the image leaves them out and scanners see only what
     * runs: {@code lib-extra}, the jars only {@code demo}, {@code bench}, {@code omb} and {@code size} load (Kafka's
     * broker, Scala, log4j-core, the benchmark harness; {@code bin/sluice} says so when one of those commands is run in
     * the image), and {@code clients}, the JavaScript client's npm package for developers' builds.
     */
    public static final List<String> NOT_IN_IMAGE = List.of("lib-extra", "clients");

    private SluiceImage() {
    }

    /**
     * The image from {@code distribution} on {@code base} ({@link #SCRATCH} for none), with the OCI labels; {@code source}
     * (the repository's URL) is labelled when not blank.
     */
    public static JibContainerBuilder plan(Distribution distribution, String base, String source)
            throws IOException, InvalidImageReferenceException {
        JibContainerBuilder builder = SCRATCH.equals(base) ? Jib.fromScratch() : Jib.from(base);
        return builder.setFileEntriesLayers(layers(distribution.home()))
                .setWorkingDirectory(AbsoluteUnixPath.get(HOME))
                .setUser(USER)
                .setEntrypoint(ENTRYPOINT)
                .setProgramArguments(CMD)
                .setExposedPorts(Ports.parse(PORTS))
                .setLabels(labels(distribution, source));
    }

    static Map<String, String> labels(Distribution distribution, String source) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("org.opencontainers.image.title", "Sluice");
        labels.put("org.opencontainers.image.description", "Kafka protocol proxy with filter plugins, and a WebSocket bridge");
        labels.put("org.opencontainers.image.version", distribution.version());
        labels.put("org.opencontainers.image.revision", distribution.revision());
        labels.put("org.opencontainers.image.licenses", LICENSES);
        if (source != null && !source.isBlank()) {
            labels.put("org.opencontainers.image.source", source.strip());
        }
        return labels;
    }

    /**
     * Third-party jars, the project's jars, then everything else (launcher, examples, manifests, docs, licence);
     * {@link #NOT_IN_IMAGE} left out.
     */
    /** Whether a file of the distribution, by its path relative to the distribution's folder, goes into the image. */
    public static boolean inImage(Path relative) {
        return NOT_IN_IMAGE.stream().noneMatch(relative::startsWith);
    }

    private static List<FileEntriesLayer> layers(Path home) throws IOException {
        FileEntriesLayer.Builder dependencies = FileEntriesLayer.builder().setName("dependencies");
        FileEntriesLayer.Builder own = FileEntriesLayer.builder().setName("sluice-jars");
        FileEntriesLayer.Builder rest = FileEntriesLayer.builder().setName("distribution");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(home)) {
            walk.filter(Files::isRegularFile).sorted().forEach(files::add);
        }
        for (Path file : files) {
            Path relative = home.relativize(file);
            if (!inImage(relative)) {
                continue;
            }
            AbsoluteUnixPath target = AbsoluteUnixPath.get(HOME).resolve(relative.toString().replace('\\', '/'));
            FileEntriesLayer.Builder layer = !relative.startsWith("lib") ? rest
                    : relative.getFileName().toString().startsWith(OWN_JARS) ? own : dependencies;
            FilePermissions permissions = relative.startsWith("bin") ? EXECUTABLE : FILE;
            layer.addEntry(file, target, permissions, MODIFIED, ROOT);
        }
        return List.of(dependencies.build(), own.build(), rest.build());
    }
}
