package io.sluice.omb.workload;

import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.sluice.bench.targets.BenchTargets;
import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DriverTemplatesTest {

    private static final Map<String, String> ENV = Map.of("KAFKA_BOOTSTRAP", "127.0.0.1:9092", "SLUICE_BOOTSTRAP", "127.0.0.1:9192");

    @Test
    void everyBuiltInTargetHasItsOwnDriverWithItsAddressFromTheEnvironment() throws Exception {
        for (String target : BenchTargets.builtInNames()) {
            if (!BenchTargets.resolve(target).clientConfig().isEmpty()) {
                continue; // OmbRun skips it: OMB's driver cannot carry the bench's client classes (validating's JSON values)
            }
            JsonNode driver = new ObjectMapper(new YAMLFactory()).readTree(DriverTemplates.render(target, ENV));

            assertThat(driver.get("name").asText()).as(target).endsWith(target);
            assertThat(driver.get("driverClass").asText()).isEqualTo("io.openmessaging.benchmark.driver.kafka.KafkaBenchmarkDriver");
            assertThat(driver.get("commonConfig").asText()).as(target)
                    .contains(target.equals("direct") ? "bootstrap.servers=127.0.0.1:9092" : "bootstrap.servers=127.0.0.1:9192");
            // Same client settings everywhere, so the proxy is the only difference measured.
            assertThat(driver.get("producerConfig").asText()).contains("acks=all", "linger.ms=1", "batch.size=131072");
        }
    }

    @Test
    void theJwtDriverLogsInWithOauthBearerByDefault() throws Exception {
        JsonNode driver = new ObjectMapper(new YAMLFactory()).readTree(DriverTemplates.render("jwt", ENV));

        assertThat(driver.get("commonConfig").asText()).contains("sasl.mechanism=OAUTHBEARER")
                .contains("OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"omb\";");
    }

    @Test
    void aTargetWithoutADriverOfItsOwnUsesPassthroughs() {
        assertThat(DriverTemplates.template("my-config")).isEqualTo(DriverTemplates.template("passthrough"));
    }

    @Test
    void aMissingAddressIsNamed() {
        assertThatThrownBy(() -> DriverTemplates.render("passthrough", Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).singleElement().asString()
                        .contains("commonConfig").contains("SLUICE_BOOTSTRAP is not set"));
    }

    @Test
    void aWorkloadsProducerSettingsOverrideTheDriversAndKeepTheRest() throws Exception {
        String driver = DriverTemplates.withProducerConfig(DriverTemplates.render("passthrough", ENV),
                java.util.Map.of("linger.ms", "50", "batch.size", "1048576"));

        JsonNode tree = new ObjectMapper(new YAMLFactory()).readTree(driver);
        assertThat(tree.get("producerConfig").asText()).isEqualTo("acks=all\nlinger.ms=50\nbatch.size=1048576\n");
        assertThat(tree.get("name").asText()).isEqualTo("Kafka-sluice-passthrough");
        assertThat(tree.get("consumerConfig").asText()).contains("auto.offset.reset=earliest");
        assertThat(DriverTemplates.withProducerConfig("name: x\n", java.util.Map.of())).isEqualTo("name: x\n");
    }
}
