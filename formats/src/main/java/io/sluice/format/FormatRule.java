package io.sluice.format;

import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One entry of {@code formats:}: the topics it covers and their key and value formats. The first rule whose pattern
 * matches a topic applies; a side left out keeps the bridge's default (JSON if the bytes are JSON, else text, else base64).
 *
 * @param topics          a regular expression matched against the whole topic name; a plain topic name matches itself
 *                        (escape its dots, {@code orders\.eu}, if {@code ordersXeu} could exist too)
 * @param key             the key's format, or null
 * @param value           the value's format, or null
 * @param onDecodeFailure what happens to a record that does not decode: raw (default), drop or gap
 */
public record FormatRule(String topics, CodecConfig key, CodecConfig value, DecodeFailurePolicy onDecodeFailure) {

    @JsonCreator
    static FormatRule fromYaml(@JsonProperty("topics") String topics,
                               @JsonProperty("key") CodecConfig key,
                               @JsonProperty("value") CodecConfig value,
                               @JsonProperty("onDecodeFailure") DecodeFailurePolicy onDecodeFailure) {
        return new FormatRule(topics, key, value, onDecodeFailure == null ? DecodeFailurePolicy.RAW : onDecodeFailure);
    }

    Pattern pattern() {
        return Pattern.compile(topics);
    }

    /** Problems, each naming its field under {@code formats[index]}. */
    public void validate(int index, boolean registryConfigured, List<String> problems) {
        String prefix = "formats[" + index + "]";
        if (topics == null || topics.isBlank()) {
            problems.add(prefix + ".topics: required (a topic name or a regular expression)");
        }
        else {
            try {
                pattern();
            }
            catch (PatternSyntaxException e) {
                problems.add(prefix + ".topics: not a regular expression: " + e.getDescription());
            }
        }
        if (key == null && value == null) {
            problems.add(prefix + ": give key, value or both");
        }
        if (key != null) {
            key.validate(prefix + ".key", problems);
            if (key.registry() && !registryConfigured) {
                problems.add(prefix + ".key.registry: needs schemaRegistry.url");
            }
        }
        if (value != null) {
            value.validate(prefix + ".value", problems);
            if (value.registry() && !registryConfigured) {
                problems.add(prefix + ".value.registry: needs schemaRegistry.url");
            }
        }
    }
}
