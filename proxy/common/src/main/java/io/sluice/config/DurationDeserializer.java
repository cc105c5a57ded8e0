package io.sluice.config;

import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;

/**
 * Reads durations the way operators write them: {@code 500ms}, {@code 20s}, {@code 5m}, {@code 1h}, ISO-8601
 * ({@code PT20S}), or a bare number of milliseconds. Registered on the shared mapper so filter configs get it too.
 */
final class DurationDeserializer extends StdScalarDeserializer<Duration> {

    private static final long serialVersionUID = 1L;

    static final String EXPECTED = "a duration such as 500ms, 20s, 5m, 1h, PT20S or a number of milliseconds";

    private static final Pattern WITH_UNIT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    DurationDeserializer() {
        super(Duration.class);
    }

    @Override
    public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        JsonToken token = p.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT) {
            long millis = p.getLongValue();
            if (millis < 0) {
                return (Duration) ctxt.handleWeirdNumberValue(Duration.class, p.getNumberValue(), "must not be negative");
            }
            return Duration.ofMillis(millis);
        }
        if (token == JsonToken.VALUE_STRING) {
            String text = p.getText();
            Duration parsed = parse(text);
            if (parsed == null) {
                return (Duration) ctxt.handleWeirdStringValue(Duration.class, text, "expected " + EXPECTED);
            }
            return parsed;
        }
        return (Duration) ctxt.handleUnexpectedToken(Duration.class, p);
    }

    /** The duration, or null if the text is not one; negative durations are rejected as meaningless here. */
    static Duration parse(String text) {
        String trimmed = text.strip();
        if (trimmed.chars().allMatch(Character::isDigit) && !trimmed.isEmpty()) {
            return trimmed.length() > 18 ? null : Duration.ofMillis(Long.parseLong(trimmed));
        }
        Matcher m = WITH_UNIT.matcher(trimmed.toLowerCase(Locale.ROOT));
        if (m.matches()) {
            if (m.group(1).length() > 15) {
                return null;
            }
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        if (trimmed.regionMatches(true, 0, "P", 0, 1)) {
            try {
                Duration iso = Duration.parse(trimmed);
                return iso.isNegative() ? null : iso;
            }
            catch (DateTimeParseException e) {
                return null;
            }
        }
        return null;
    }
}
