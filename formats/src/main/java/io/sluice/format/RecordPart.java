package io.sluice.format;

/** Which half of a record a codec reads: it names the registry subject publish serializes against. */
public enum RecordPart {
    KEY("-key"),
    VALUE("-value");

    private final String subjectSuffix;

    RecordPart(String subjectSuffix) {
        this.subjectSuffix = subjectSuffix;
    }

    /** The subject under Confluent's default TopicNameStrategy: {@code <topic>-key} or {@code <topic>-value}. */
    public String subject(String topic) {
        return topic + subjectSuffix;
    }
}
