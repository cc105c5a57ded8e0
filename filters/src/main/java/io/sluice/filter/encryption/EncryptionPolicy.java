package io.sluice.filter.encryption;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which topics are encrypted and under which KEK. Topics are selected by name patterns where {@code *}
 * matches any run of characters ({@code secure.*}, {@code *-pii}); the KEK name comes from a template in
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

    private final Pattern topics;
    private final String kekTemplate;
    private final UnresolvedKek unresolvedKek;
    private final boolean encryptHeaders;

    public EncryptionPolicy(List<String> topicPatterns, String kekTemplate, UnresolvedKek unresolvedKek, boolean encryptHeaders) {
        this.topics = Pattern.compile(topicPatterns.stream().map(EncryptionPolicy::globToRegex).collect(Collectors.joining("|")));
        this.kekTemplate = kekTemplate;
        this.unresolvedKek = unresolvedKek;
        this.encryptHeaders = encryptHeaders;
    }

    /** The KEK for a topic's new records, or empty when the topic is not encrypted. */
    public Optional<String> kekFor(String topic) {
        if (topic == null || !topics.matcher(topic).matches()) {
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

    private static String globToRegex(String glob) {
        StringBuilder regex = new StringBuilder();
        for (String part : glob.split("\\*", -1)) {
            if (regex.length() > 0) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(part));
        }
        return "(?:" + regex + ")";
    }
}
