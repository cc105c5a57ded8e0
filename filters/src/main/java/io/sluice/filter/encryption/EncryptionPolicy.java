package io.sluice.filter.encryption;

import java.util.List;
import java.util.Optional;

import io.sluice.auth.NamePattern;

/**
 * Which topics are encrypted and under which KEK. Topics are selected by name patterns, the same
 * {@link NamePattern}s as JWT permissions ({@code secure.*}, {@code *-pii}); the KEK name comes from a template in
 * which {@code $(topic)} stands for the topic name. The {@code $( )} form is used, not {@code ${ }},
 * because {@code ${...}} in the YAML file is environment substitution.
 */
public final class EncryptionPolicy {

    /** What to do with a selected topic whose KEK the KMS does not have. */
    public enum UnresolvedKek {
        /** Fail the produce for that topic: nothing is written, in plaintext or otherwise. */
        REJECT,
        /** Write that topic's records unencrypted (logged), e.g. while KEKs are being created. */
        PASSTHROUGH
    }

    public static final String TOPIC_PLACEHOLDER = "$(topic)";

    private final List<NamePattern> topics;
    private final String kekTemplate;
    private final UnresolvedKek unresolvedKek;
    private final boolean encryptHeaders;

    public EncryptionPolicy(List<String> topicPatterns, String kekTemplate, UnresolvedKek unresolvedKek, boolean encryptHeaders) {
        this.topics = topicPatterns.stream().map(NamePattern::compile).toList();
        this.kekTemplate = kekTemplate;
        this.unresolvedKek = unresolvedKek;
        this.encryptHeaders = encryptHeaders;
    }

    /** The KEK for a topic's new records, or empty when the topic is not encrypted. */
    public Optional<String> kekFor(String topic) {
        if (topic == null || topics.stream().noneMatch(p -> p.matches(topic))) {
            return Optional.empty();
        }
        return Optional.of(kekTemplate.replace(TOPIC_PLACEHOLDER, topic));
    }

    public UnresolvedKek unresolvedKek() {
        return unresolvedKek;
    }

    public boolean encryptHeaders() {
        return encryptHeaders;
    }
}
