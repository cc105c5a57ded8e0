package io.sluice.config;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationFormatTest {

    record Timeouts(Duration timeout) {
    }

    @ParameterizedTest
    @CsvSource({
            "500ms, PT0.5S",
            "20s, PT20S",
            "5m, PT5M",
            "1h, PT1H",
            "2d, PT48H",
            "PT20S, PT20S",
            "pt1m30s, PT1M30S",
            "1500, PT1.5S",
            "'\"1500\"', PT1.5S",
            "0, PT0S",
    })
    void readsEveryDocumentedForm(String yaml, String iso) throws Exception {
        Timeouts bound = ConfigLoader.bind(ConfigLoader.mapper().readTree("timeout: " + yaml), Timeouts.class, "t");

        assertThat(bound.timeout()).isEqualTo(Duration.parse(iso));
    }

    @ParameterizedTest
    @ValueSource(strings = { "soon", "5 parsecs", "-5s", "PT-5S", "1.5s", "s", "-100" })
    void rejectsOthersNamingTheField(String yaml) throws Exception {
        var node = ConfigLoader.mapper().readTree("timeout: '" + yaml + "'");

        assertThatThrownBy(() -> ConfigLoader.bind(node, Timeouts.class, "t"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("t.timeout: invalid value '" + yaml + "'")
                .hasMessageContaining(DurationDeserializer.EXPECTED);
    }

    @ParameterizedTest
    @ValueSource(strings = { "-100", "[1]" })
    void rejectsNegativeNumbersAndNonScalars(String yaml) throws Exception {
        var node = ConfigLoader.mapper().readTree("timeout: " + yaml);

        assertThatThrownBy(() -> ConfigLoader.bind(node, Timeouts.class, "t")).hasMessageContaining("t.timeout: ");
    }
}
