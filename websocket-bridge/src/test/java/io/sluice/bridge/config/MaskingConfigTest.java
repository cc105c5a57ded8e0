package io.sluice.bridge.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bridge's {@code masking} is the proxy's FieldMasking section: the block of config/examples/masking.yaml, moved to
 * the top level of a bridge configuration, binds to the same rules; its problems are named under {@code masking}.
 */
public class MaskingConfigTest {

    private static final Map<String, String> ENV = Map.of("MASK_KEY_FILE", "/etc/sluice/mask.key");

    /** The example's {@code masking:} block, indented as a top-level section. */
    public static String exampleBlock() throws Exception {
        String text = Files.readString(Path.of("../config/examples/masking.yaml"));
        String[] lines = text.split("\n");
        StringBuilder block = new StringBuilder();
        boolean in = false;
        for (String line : lines) {
            if (line.equals("      masking:")) {
                in = true;
            } else if (in && !line.startsWith("        ")) {
                break;
            }
            if (in) {
                block.append(line.substring(6)).append('\n');
            }
        }
        return block.toString();
    }

    @Test
    void theProxysSectionBindsInTheBridge() throws Exception {
        BridgeConfig config = BridgeConfigLoader.parse("kafka: {bootstrapServers: \"kafka:9092\"}\ntopics: orders\n" + exampleBlock(), ENV);

        assertThat(config.masking().hashKeyFile()).isEqualTo("/etc/sluice/mask.key");
        assertThat(config.masking().rules()).hasSize(1);
        assertThat(config.masking().rules().get(0).fields().stream().map(f -> f.path() + " " + f.mask().yamlName()).collect(Collectors.toList()))
                .containsExactly("/card/number keepLast", "/customer/email hash", "/card/cvv remove");
    }

    @Test
    void problemsAreNamedUnderMasking() throws Exception {
        String noKey = "kafka: {bootstrapServers: \"kafka:9092\"}\ntopics: orders\n" + exampleBlock().replace("  hashKeyFile: ${MASK_KEY_FILE}\n", "");
        assertThatThrownBy(() -> BridgeConfigLoader.parse(noKey, ENV)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("masking.hashKeyFile: required");
        String badPath = "kafka: {bootstrapServers: \"kafka:9092\"}\ntopics: orders\n" + exampleBlock().replace("path: /card/number", "path: card.number");
        assertThatThrownBy(() -> BridgeConfigLoader.parse(badPath, ENV)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("masking.rules[0].fields[0].path: not a JSON Pointer");
    }
}
