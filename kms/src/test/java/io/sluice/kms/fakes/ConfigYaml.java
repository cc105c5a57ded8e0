package io.sluice.kms.fakes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * Binds config records from YAML the way the proxy's loader does (unknown fields fail, durations like {@code 5s}), so
 * that the records and the YAML in docs/kms.md are checked here without depending on the proxy module.
 */
public final class ConfigYaml {

    private static final ObjectMapper MAPPER = YAMLMapper.builder()
            .addModule(new SimpleModule().addDeserializer(Duration.class, new Durations()))
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private ConfigYaml() {
    }

    public static <T> T bind(String yaml, Class<T> type) {
        try {
            return MAPPER.readValue(yaml, type);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Durations extends StdScalarDeserializer<Duration> {
        private static final long serialVersionUID = 1L;

        Durations() {
            super(Duration.class);
        }

        @Override
        public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            String text = p.getText().strip().toLowerCase(Locale.ROOT);
            if (text.startsWith("p")) {
                return Duration.parse(text.toUpperCase(Locale.ROOT));
            }
            long amount = Long.parseLong(text.replaceAll("[a-z]+$", ""));
            return switch (text.replaceAll("^\\d+", "")) {
                case "ms", "" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> throw ctxt.weirdStringException(text, Duration.class, "not a duration");
            };
        }
    }
}
