package io.sluice.build;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.metrics.JvmMetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

class BuildInfoTest {

    @Test
    void versionIsTheMavenProjectVersion() throws IOException {
        // The module's own pom names the parent's version; the build filtered the same value into the resource.
        String pom = Files.readString(Path.of("pom.xml"));
        String parent = pom.substring(pom.indexOf("<parent>"), pom.indexOf("</parent>"));
        String version = parent.substring(parent.indexOf("<version>") + 9, parent.indexOf("</version>"));

        assertThat(BuildInfo.current().version()).isEqualTo(version);
    }

    @Test
    void commitIsTheCheckedOutCommitWhenBuiltInGit() throws Exception {
        String head = git("rev-parse", "--short=12", "HEAD");
        assumeThat(head).as("tests run outside a git checkout").isNotEmpty();

        assertThat(BuildInfo.current().commit()).isEqualTo(head);
    }

    @Test
    void valuesTheBuildCouldNotFillInAreUnknown() {
        Properties outsideGit = new Properties();
        outsideGit.setProperty("version", "1.2.3");
        outsideGit.setProperty("commit", "${git.commit.id.abbrev}");

        assertThat(BuildInfo.parse(outsideGit)).isEqualTo(new BuildInfo("1.2.3", BuildInfo.UNKNOWN));
        assertThat(BuildInfo.parse(new Properties())).isEqualTo(new BuildInfo(BuildInfo.UNKNOWN, BuildInfo.UNKNOWN));
    }

    @Test
    void everyProcessWithMetricsScrapesBuildInfo() throws Exception {
        // The proxy and the bridge both bind their process meters here.
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (AutoCloseable jvm = JvmMetrics.bind(registry)) {
            BuildInfo build = BuildInfo.current();

            assertThat(registry.scrape()).contains("# TYPE sluice_build_info gauge\n")
                    .contains("sluice_build_info{commit=\"" + build.commit() + "\",version=\"" + build.version() + "\"} 1");
        } finally {
            registry.close();
        }
    }

    private static String git(String... args) throws Exception {
        String[] command = new String[args.length + 1];
        command[0] = "git";
        System.arraycopy(args, 0, command, 1, args.length);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(false).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        }
    }
}
