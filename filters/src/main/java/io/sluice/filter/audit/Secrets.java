package io.sluice.filter.audit;

import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigResource;

import io.sluice.auth.Untrusted;

/**
 * The rule that keeps secrets out of the audit trail, in one place (docs/audit.md, "What is never written").
 *
 * <p>What the filter never reads at all is the larger half of the rule and lives where messages are read: SASL
 * authentication bytes, records, delegation-token HMACs and SCRAM salts and salted passwords are not looked at. What it
 * does write passes through here: every text that came from a client or a broker (names, error messages) is escaped and
 * cut to {@value Untrusted#MAX_CHARS} characters; an error message also loses anything shaped like a JWT or a bearer
 * credential (the token is the one secret a client's own request echoes back into messages about it); and a config
 * value is written only where it cannot be a secret.</p>
 */
final class Secrets {

    static final String REDACTED = "[redacted]";

    /** A JWS or JWE: every one starts with a base64url JSON header, {@code eyJ}. */
    private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_=.+/-]{6,}");
    private static final Pattern BEARER = Pattern.compile("(?i)(bearer)(\\s+|=)[^\\s,;\\u0001]+");
    /**
     * Config names whose values may be secrets: every Kafka config of type PASSWORD (ssl.key.password,
     * ssl.keystore.key, ssl.truststore.certificates, sasl.jaas.config, password.encoder.secret, the OAuth client
     * secret...) matches, and so do the usual names plugins give theirs.
     */
    private static final Pattern SENSITIVE_NAME = Pattern.compile("(?i).*(password|passwd|secret|jaas|credential|token|key|store|certificate|private|auth).*");

    private Secrets() {
    }

    /** Text from a client or broker (a name): escaped, bounded; null stays null. */
    static String text(String value) {
        return value == null ? null : Untrusted.text(value);
    }

    /** An error message or a reason: bounded, escaped, with JWT-shaped and bearer values replaced by {@value #REDACTED}. */
    static String message(String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        String bounded = value.length() > 4 * Untrusted.MAX_CHARS ? value.substring(0, 4 * Untrusted.MAX_CHARS) : value;
        String redacted = BEARER.matcher(JWT.matcher(bounded).replaceAll(REDACTED)).replaceAll("$1$2" + REDACTED);
        return Untrusted.text(redacted);
    }

    /**
     * A config value as the event may show it: the value itself only for topic, group, broker-logger and
     * client-metrics resources (Kafka defines no secret among their configs) and only when the name is not one that
     * may hold a secret; {@value #REDACTED} otherwise. Broker configs are always redacted: a broker plugin may define
     * a password under any name. Null (a deletion) stays null.
     */
    static String configValue(byte resourceType, String name, String value) {
        if (value == null) {
            return null;
        }
        boolean plainResource = resourceType == ConfigResource.Type.TOPIC.id() || resourceType == ConfigResource.Type.GROUP.id()
                || resourceType == ConfigResource.Type.BROKER_LOGGER.id() || resourceType == ConfigResource.Type.CLIENT_METRICS.id();
        if (!plainResource || name == null || SENSITIVE_NAME.matcher(name).matches()) {
            return REDACTED;
        }
        return Untrusted.text(value);
    }
}
