package io.sluice.proxy.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import io.sluice.config.ConfigException;
import io.sluice.config.TlsClientConfig;

/** The complete configurations shown in docs/configuration.md must load, so the reference cannot drift from the code. */
class DocumentedExamplesTest {

    private static final Path REFERENCE = Path.of("../../docs/configuration.md");
    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyCompleteExampleLoads() throws Exception {
        List<String> complete = new ArrayList<>();
        Matcher m = YAML_BLOCK.matcher(Files.readString(REFERENCE));
        while (m.find()) {
            String yaml = m.group(1);
            // Fragments start indented or with a section other than a whole file's first key; outlines elide with "...".
            boolean whole = yaml.startsWith("virtualClusters:") || yaml.startsWith("network:");
            if (whole && !yaml.contains(" ... ")) {
                complete.add(yaml);
            }
        }

        assertThat(complete).hasSizeGreaterThanOrEqualTo(3);
        for (String yaml : complete) {
            // The certificate and key files an example names do not exist here; anything else must be right.
            try {
                ProxyConfigLoader.parse(yaml, Map.of("KAFKA_BOOTSTRAP", "kafka:9092"));
            }
            catch (ConfigException e) {
                assertThat(e.problems()).as(yaml).allMatch(p -> p.endsWith("' does not exist"));
            }
        }
    }

    @Test
    void anEmptyClientTlsSectionMeansVerifiedTlsWithTheJvmTrustStore() {
        String yaml = ProxyConfigLoaderTest.MINIMAL.replace("bootstrapServers: kafka:9092", "bootstrapServers: kafka:9092\n      tls: {}");

        TlsClientConfig tls = ProxyConfigLoader.parse(yaml, Map.of()).virtualClusters().get(0).targetCluster().tls();

        assertThat(tls).isEqualTo(TlsClientConfig.defaults());
    }
}
