package io.sluice.format;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Which registry subject a record part's schema belongs to, as Confluent's serializers name it
 * ({@code subject.name.strategy}): {@code topic} (TopicNameStrategy, the default: {@code <topic>-key} or
 * {@code <topic>-value}), {@code record} (RecordNameStrategy: the record's name, for key and value alike) or
 * {@code topic-record} (TopicRecordNameStrategy: {@code <topic>-<record name>}). The record name is
 * {@link SchemaRecord#recordName()}.
 */
public enum SubjectNameStrategy {
    TOPIC("topic"),
    RECORD("record"),
    TOPIC_RECORD("topic-record");

    private final String yaml;

    SubjectNameStrategy(String yaml) {
        this.yaml = yaml;
    }

    /** The subject, or null when the strategy needs a record name the schema does not have. */
    public String subject(String topic, RecordPart part, String recordName) {
        return switch (this) {
            case TOPIC -> part.subject(topic);
            case RECORD -> recordName;
            case TOPIC_RECORD -> recordName == null ? null : topic + "-" + recordName;
        };
    }

    public boolean needsRecordName() {
        return this != TOPIC;
    }

    @JsonValue
    public String yaml() {
        return yaml;
    }

    @JsonCreator
    public static SubjectNameStrategy fromYaml(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (SubjectNameStrategy s : values()) {
            if (s.yaml.equals(t)) {
                return s;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not a subject name strategy (topic, record or topic-record)");
    }
}
