package io.sluice.app.cli;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.logging.LogSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped logback.xml (not the tests' logback-test.xml), in a child JVM with the environment an operator sets:
 * what its lines look like and which ones it lets through.
 */
class LogOutputTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SLUICE_LOGGER = "io.sluice.logging.Sample";
    private static final String KAFKA_LOGGER = "org.apache.kafka.clients.Sample";
    private static final String OTHER_LOGGER = "com.example.Sample";
    /** A message a client could have shaped: a forged second line must stay inside the first. */
    private static final String SHAPED = "from client \"x\"\n2026-01-01T00:00:00.000Z [main] ERROR forged";

    /** The child: one line per level and logger family. */
    public static void main(String[] args) {
        Logger sluice = LoggerFactory.getLogger(SLUICE_LOGGER);
        Logger kafka = LoggerFactory.getLogger(KAFKA_LOGGER);
        Logger other = LoggerFactory.getLogger(OTHER_LOGGER);
        sluice.debug("sluice debug");
        sluice.info("sluice info {}", SHAPED);
        sluice.warn("sluice warn", new IllegalStateException("boom"));
        kafka.info("kafka info");
        kafka.warn("kafka warn");
        other.debug("other debug");
        other.info("other info");
    }

    @Test
    void textLinesStartWithIsoDateTimeMillisAndZoneOffset() throws Exception {
        List<String> lines = run(Map.of("TZ", "Asia/Kolkata"));

        List<String> events = lines.stream().filter(l -> !l.startsWith("\t") && !l.startsWith("java.lang.")).toList();
        assertThat(events).hasSize(4);
        assertThat(events).allMatch(l -> l.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\+05:30 \\[main] .*"), "ISO-8601 with offset");
        assertThat(String.join("\n", lines))
                .contains("INFO  " + SLUICE_LOGGER + " - sluice info " + SHAPED.replace("\n", "\\n"), "WARN  " + SLUICE_LOGGER + " - sluice warn",
                        "java.lang.IllegalStateException: boom", "WARN  " + KAFKA_LOGGER + " - kafka warn",
                        "INFO  " + OTHER_LOGGER + " - other info")
                .doesNotContain("sluice debug", "kafka info", "other debug");
    }

    @Test
    void sluiceLevelComesFromTheEnvironmentAndLeavesOtherLoggersAlone() throws Exception {
        String out = String.join("\n", run(Map.of(LogSettings.LEVEL, "debug")));

        assertThat(out).contains("sluice debug", "sluice info", "other info").doesNotContain("kafka info", "other debug");

        String quiet = String.join("\n", run(Map.of(LogSettings.LEVEL, "ERROR")));
        assertThat(quiet).doesNotContain("sluice info", "sluice warn").contains("kafka warn", "other info");
    }

    @Test
    void rootLevelComesFromTheEnvironmentForEveryOtherLogger() throws Exception {
        String out = String.join("\n", run(Map.of(LogSettings.ROOT_LEVEL, "DEBUG")));

        assertThat(out).contains("kafka info", "other debug", "sluice info").doesNotContain("sluice debug");
    }

    @Test
    void jsonFormatWritesOneObjectPerLine() throws Exception {
        long before = Instant.now().toEpochMilli();
        List<String> lines = run(Map.of(LogSettings.FORMAT, "json"));

        List<JsonNode> events = new ArrayList<>();
        for (String line : lines) {
            events.add(JSON.readTree(line));
        }
        assertThat(events).hasSize(4).allSatisfy(event -> {
            assertThat(event.isObject()).isTrue();
            assertThat(event.get("timestamp").asLong()).isBetween(before - 60_000, Instant.now().toEpochMilli());
            assertThat(event.get("level").asText()).isIn("INFO", "WARN");
            assertThat(event.get("loggerName").asText()).isIn(SLUICE_LOGGER, KAFKA_LOGGER, OTHER_LOGGER);
            assertThat(event.has("formattedMessage")).isTrue();
        });
        JsonNode info = events.get(0);
        assertThat(info.get("level").asText()).isEqualTo("INFO");
        assertThat(info.get("loggerName").asText()).isEqualTo(SLUICE_LOGGER);
        assertThat(info.get("formattedMessage").asText()).isEqualTo("sluice info " + SHAPED);
        assertThat(events.get(1).get("throwable").get("message").asText()).isEqualTo("boom");
    }

    /** Stdout lines of the child with these settings (and none inherited from whoever runs the tests). */
    private static List<String> run(Map<String, String> settings) throws IOException, InterruptedException {
        URL shipped = LogOutputTest.class.getResource("/logback.xml");
        assertThat(shipped).as("logback.xml of src/main/resources on the class path").isNotNull();
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx32m", "-XX:TieredStopAtLevel=1", "-Dlogback.configurationFile=" + shipped,
                "-cp", System.getProperty("java.class.path"), LogOutputTest.class.getName());
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().keySet().removeIf(name -> name.startsWith("SLUICE_LOG"));
        builder.environment().putAll(settings);
        Process child = builder.start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).as(out).isZero();
        return out.lines().toList();
    }
}
