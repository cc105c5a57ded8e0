package io.sluice.build;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What was built: the Maven project version and the git commit, written into a resource when the jar is built
 * (proxy/common/pom.xml filters {@code build-info.properties}; git-commit-id-maven-plugin supplies the commit). A value the
 * build could not fill in, such as the commit of sources built outside a git checkout, reads {@value #UNKNOWN}.
 *
 * @param version the Maven project version, e.g. {@code 0.1.0-SNAPSHOT}
 * @param commit  the abbreviated git commit id
 */
public record BuildInfo(String version, String commit) {

    public static final String UNKNOWN = "unknown";
    static final String RESOURCE = "build-info.properties";

    private static final BuildInfo CURRENT = load();

    /** This build's facts. */
    public static BuildInfo current() {
        return CURRENT;
    }

    /**
     * Registers {@code sluice_build_info{version,commit} 1}: the usual Prometheus idiom, so a query can join any
     * series on the build that produced it and a dashboard can show which build each pod runs.
     */
    public void register(MeterRegistry registry) {
        Gauge.builder("sluice.build.info", () -> 1)
                .description("Always 1; its labels name the build this process runs")
                .tag("version", version)
                .tag("commit", commit)
                .register(registry);
    }

    /** One line for {@code --version} and the start-up log. */
    @Override
    public String toString() {
        return "sluice " + version + " (commit " + commit + ")";
    }

    static BuildInfo parse(Properties properties) {
        return new BuildInfo(value(properties, "version"), value(properties, "commit"));
    }

    private static BuildInfo load() {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + " from the classpath", e);
        }
        return parse(properties);
    }

    /** An unset value, or one the build left as its {@code ${placeholder}} (no git at build time), is unknown. */
    private static String value(Properties properties, String key) {
        String value = properties.getProperty(key, "").strip();
        return value.isEmpty() || value.contains("${") ? UNKNOWN : value;
    }
}
