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
        /**
         * Write that topic's records unencrypted (logged), e.g. while KEKs are being created. Only for a KEK that does not
         * exist: one the KMS refuses (disabled, pending deletion, access denied) fails the produce all the same.
         */
        PASSTHROUGH
    }

    /** What a reader gets when one record of an encrypted topic cannot be decrypted. */
    public enum OnUndecryptable {
        /**
         * The partition is answered with CORRUPT_MESSAGE and no records, as long as the record is there: nothing is
         * skipped without the consumer knowing. The default.
         */
        FAIL,
        /**
         * The record is left out (its offset stays taken, as after compaction) and the rest is delivered: a consumer
         * never stops on a record someone wrote to break it, at the price of not seeing that record.
         */
        DROP
    }

    public static final String TOPIC_PLACEHOLDER = "$(topic)";

    private final List<NamePattern> topics;
    private final String kekTemplate;
    private final UnresolvedKek unresolvedKek;
    private final boolean encryptHeaders;
    private final OnUndecryptable onUndecryptable;

    public EncryptionPolicy(List<String> topicPatterns, String kekTemplate, UnresolvedKek unresolvedKek, boolean encryptHeaders) {
        this(topicPatterns, kekTemplate, unresolvedKek, encryptHeaders, OnUndecryptable.FAIL);
    }

    public EncryptionPolicy(List<String> topicPatterns, String kekTemplate, UnresolvedKek unresolvedKek, boolean encryptHeaders,
                            OnUndecryptable onUndecryptable) {
        this.topics = topicPatterns.stream().map(NamePattern::compile).toList();
        this.kekTemplate = kekTemplate;
        this.unresolvedKek = unresolvedKek;
        this.encryptHeaders = encryptHeaders;
        this.onUndecryptable = onUndecryptable;
    }

    /**
     * Whether a topic is encrypted: its new records are encrypted, and only its records are ever decrypted. On any
     * other topic the marker header means nothing, so whoever may write a record there cannot make it unreadable
     * for everyone else by adding the header.
     */
    public boolean encrypts(String topic) {
        if (topic == null) {
            return false;
        }
        for (NamePattern p : topics) {
            if (p.matches(topic)) {
                return true;
            }
        }
        return false;
    }

    /** The KEK for a topic's new records, or empty when the topic is not encrypted. */
    public Optional<String> kekFor(String topic) {
        if (!encrypts(topic)) {
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

    public OnUndecryptable onUndecryptable() {
        return onUndecryptable;
    }
}
