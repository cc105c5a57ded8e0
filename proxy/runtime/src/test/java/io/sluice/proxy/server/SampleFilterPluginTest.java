package io.sluice.proxy.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A plugin author needs the filter API alone: the sample project in docs/examples/sample-filter is compiled here
 * against exactly sluice-proxy-api and its compile-scope dependencies (kafka-clients, micrometer-core and what that
 * needs), never the runtime, then found by {@link java.util.ServiceLoader} in a class loader of its own and run in
 * a proxy in front of a real broker.
 */
@ExtendWith(KafkaClusterExtension.class)
class SampleFilterPluginTest {

    private static final String SAMPLE = "docs/examples/sample-filter";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @TempDir
    Path classes;

    @Test
    void sampleCompiledAgainstTheApiAloneActsOnTrafficThroughTheProxy() throws Exception {
        Path sample = repositoryRoot().resolve(SAMPLE);
        compileAgainstApiOnly(sample.resolve("src/main/java"), classes);
        copyTree(sample.resolve("src/main/resources"), classes);
        assertThatThrownBy(() -> Class.forName("com.example.sluice.TopicNamePolicy"))
                .as("the sample must come from its own compiled classes, not the test class path")
                .isInstanceOf(ClassNotFoundException.class);

        try (URLClassLoader plugin = new URLClassLoader(new URL[]{ classes.toUri().toURL() }, getClass().getClassLoader());
                ProxyFixture proxy = startWithContextLoader(plugin);
                Admin viaProxy = Admin.create(proxy.clientConfig());
                Admin direct = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.getBootstrapServers()))) {

            io.sluice.testkit.Topics.createTopics(viaProxy, List.of(new NewTopic("team-a.orders", 1, (short) 1)));
            assertThatThrownBy(() -> viaProxy.createTopics(List.of(new NewTopic("scratch", 1, (short) 1))).all().get())
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(PolicyViolationException.class)
                    .hasMessageContaining("team-a.");

            Set<String> topics = direct.listTopics().names().get();
            assertThat(topics).contains("team-a.orders").doesNotContain("scratch");
            assertThat(proxy.metric("sample_topic_policy_refusals_total", "filter=\"team-topics\"")).isEqualTo(1.0);
        }
    }

    /** The proxy finds filter factories through the thread context class loader, as an application server would. */
    private static ProxyFixture startWithContextLoader(ClassLoader loader) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return ProxyFixture.start(cluster.getBootstrapServers(), "", """
                    filterDefinitions:
                      - name: team-topics
                        type: TopicNamePolicy
                        config:
                          requiredPrefix: team-a.
                    defaultFilters: [team-topics]
                    """);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static void compileAgainstApiOnly(Path sources, Path out) throws IOException {
        Path api = locationOf(FilterFactory.class);
        assertThat(containsEntry(api, "io/sluice/proxy/server/ProxyServer.class"))
                .as("%s must be the API alone, without the runtime", api).isFalse();
        List<Path> classPath = List.of(api, locationOf(ApiMessage.class), locationOf(MeterRegistry.class), locationOf(KeyValue.class),
                locationOf(Observation.class));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).toList();
        }
        assertThat(files).isNotEmpty();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, null, null)) {
            List<String> options = new ArrayList<>(List.of("--release", "17", "-proc:none", "-d", out.toString(), "-classpath",
                    String.join(java.io.File.pathSeparator, classPath.stream().map(Path::toString).toList())));
            boolean compiled = javac.getTask(null, fileManager, diagnostics, options, null, fileManager.getJavaFileObjectsFromPaths(files)).call();
            assertThat(compiled).as("the sample compiles against %s: %s", classPath, diagnostics.getDiagnostics()).isTrue();
        }
    }

    private static Path locationOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static boolean containsEntry(Path classPathEntry, String entry) throws IOException {
        if (Files.isDirectory(classPathEntry)) {
            return Files.exists(classPathEntry.resolve(entry));
        }
        try (JarFile jar = new JarFile(classPathEntry.toFile())) {
            return jar.getEntry(entry) != null;
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            walk.filter(Files::isRegularFile).forEach(file -> {
                try {
                    Path target = to.resolve(from.relativize(file).toString());
                    Files.createDirectories(target.getParent());
                    Files.copy(file, target);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve(SAMPLE))) {
                return dir;
            }
        }
        throw new IllegalStateException(SAMPLE + " not found above " + Path.of("").toAbsolutePath());
    }
}
