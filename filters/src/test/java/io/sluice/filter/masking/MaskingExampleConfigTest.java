package io.sluice.filter.masking;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.format.mask.FieldMaskConfig;
import io.sluice.format.mask.MaskFailure;
import io.sluice.format.mask.MaskKind;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** config/examples/masking.yaml loads and binds to the filter's config; mistakes are named with their path. */
class MaskingExampleConfigTest {

    static final Path EXAMPLE = Path.of("../config/examples/masking.yaml");
    private static final Map<String, String> ENV = Map.of("KAFKA_BOOTSTRAP", "kafka:9092", "SCHEMA_REGISTRY_URL", "http://registry:8081",
            "JWKS_URL", "https://id.example.com/jwks", "MASK_KEY_FILE", "/etc/sluice/mask.key");

    private static FieldMasking.Config bind(String yaml) throws Exception {
        ProxyConfig proxy = ProxyConfigLoader.parse(yaml, ENV);
        return ConfigLoader.bind(proxy.filterDefinitions().get(1).config(), new FieldMasking().configType(), "filterDefinitions[1].config");
    }

    @Test
    void theExampleBindsAndPassesTheFiltersOwnChecks() throws Exception {
        FieldMasking.Config config = bind(Files.readString(EXAMPLE));

        assertThat(config.masking().hashKeyFile()).isEqualTo("/etc/sluice/mask.key");
        assertThat(config.masking().rules()).hasSize(1);
        assertThat(config.masking().rules().get(0).fields()).containsExactly(
                new FieldMaskConfig("/card/number", MaskKind.KEEP_LAST, null, 4),
                new FieldMaskConfig("/customer/email", MaskKind.HASH, null, null),
                new FieldMaskConfig("/card/cvv", MaskKind.REMOVE, null, null));
        assertThat(config.masking().rules().get(0).unmaskPrincipals()).isEqualTo(List.of("payments-.*"));
        assertThat(config.masking().rules().get(0).onFailure()).isEqualTo(MaskFailure.REFUSE);
        assertThat(config.formats()).hasSize(1);
        FieldMasking.checked(config);
    }

    @Test
    void mistakesAreNamedWithTheirPath() throws Exception {
        String mistyped = Files.readString(EXAMPLE).replace("mask: keepLast, chars: 4", "mask: keepLast, char: 4");
        assertThatThrownBy(() -> bind(mistyped)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[1].config.masking.rules[0].fields[0].char");
        String unknownKind = Files.readString(EXAMPLE).replace("mask: hash", "mask: scramble");
        assertThatThrownBy(() -> bind(unknownKind)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[1].config.masking.rules[0].fields[1].mask");
        FieldMasking.Config noChars = bind(Files.readString(EXAMPLE).replace("mask: keepLast, chars: 4", "mask: keepLast"));
        assertThatThrownBy(() -> FieldMasking.checked(noChars)).hasMessageContaining("masking.rules[0].fields[0].chars: mask keepLast needs chars");
    }
}
