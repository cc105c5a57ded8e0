package io.sluice.filter.audit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** config/examples/audit.yaml keeps loading, binding and validating, Audit first in the chain. */
class AuditExampleConfigTest {

    private static final Path EXAMPLE = Path.of("../config/examples/audit.yaml");

    @Test
    void exampleBindsAndValidatesWithAuditBeforeJwtAuth(@TempDir Path dir) throws Exception {
        ProxyConfig proxy = ProxyConfigLoader.parse(Files.readString(EXAMPLE), Map.of("KAFKA_BOOTSTRAP", "kafka:9092",
                "SLUICE_JWKS", "https://idp.example.com/jwks.json", "SLUICE_JWT_ISSUER", "https://idp.example.com/", "SLUICE_JWT_AUDIENCE", "kafka",
                "SLUICE_AUDIT_DIR", dir.toString()));
        FilterDefinition audit = proxy.filtersFor(proxy.virtualClusters().get(0)).get(0);
        assertThat(proxy.filtersFor(proxy.virtualClusters().get(0))).extracting(FilterDefinition::type).containsExactly("Audit", "JwtAuth");

        AuditConfig config = ConfigLoader.bind(audit.config(), new Audit().configType(), "filterDefinitions[0].config");
        assertThat(config.sampleInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.file().path()).isEqualTo(dir.resolve("audit.jsonl").toString());
        assertThat(config.kafka().topic()).isEqualTo("sluice-audit");
        assertThat(config.kafka().producerConfig()).containsEntry("compression.type", "zstd");
        Audit.check("audit", config);
    }
}
