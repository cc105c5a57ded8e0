package io.sluice.logging;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LogSettingsTest {

    @Test
    void unsetAndKnownValuesPass() {
        assertThat(LogSettings.problems(name -> null)).isEmpty();
        assertThat(LogSettings.problems(Map.of(LogSettings.LEVEL, "debug", LogSettings.ROOT_LEVEL, "WARN",
                LogSettings.FORMAT, "json")::get)).isEmpty();
    }

    @Test
    void aTypoIsRefusedByName() {
        // Logback would read WARNING as DEBUG and an unknown format as no appender at all.
        assertThat(LogSettings.problems(Map.of(LogSettings.LEVEL, "WARNING", LogSettings.ROOT_LEVEL, "",
                LogSettings.FORMAT, "JSON")::get)).containsExactly(
                "SLUICE_LOG_LEVEL: 'WARNING' is not a level (TRACE, DEBUG, INFO, WARN, ERROR or OFF)",
                "SLUICE_LOG_LEVEL_ROOT: '' is not a level (TRACE, DEBUG, INFO, WARN, ERROR or OFF)",
                "SLUICE_LOG_FORMAT: 'JSON' is not a log format (text or json)");
    }
}
