package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;

/**
 * MQTT topic names and filters to the bridge's endpoints and subscription patterns, and back (docs/bridge-mqtt.md#topics).
 * A topic name is an endpoint without its leading slash: {@code scores/live/football} ↔ {@code /scores/live/football}.
 * A filter with wildcards subscribes the bridge's prefix up to its first wildcard ({@code scores/+/football} and
 * {@code scores/#} both {@code /scores/*}), so the token must allow reading everything under that prefix; which of the
 * prefix's messages the client gets is then decided here, by MQTT's own matching ({@link #matches}). Pure functions.
 */
final class MqttTopics {

    /** MQTT's bound on a UTF-8 string (two length bytes). */
    static final int MAX_TOPIC_BYTES = 65_535;

    private MqttTopics() {
    }

    /** A filter that can be subscribed: the bridge pattern it subscribes, or why it cannot be. */
    record Mapping(String pattern, String refusal) {
        boolean refused() {
            return refusal != null;
        }
    }

    /**
     * The endpoint a PUBLISH topic name stands for, or null when the name is not one the bridge maps: empty, with a
     * wildcard ({@code +}, {@code #}, which MQTT forbids in names), with {@code *} (the bridge's prefix marker), with a
     * NUL, or starting with {@code $} (MQTT reserves those names for servers).
     */
    static String endpointOf(String topicName) {
        if (topicName == null || topicName.isEmpty() || topicName.startsWith("$") || topicName.indexOf('\0') >= 0
                || topicName.indexOf('+') >= 0 || topicName.indexOf('#') >= 0 || topicName.indexOf('*') >= 0) {
            return null;
        }
        return "/" + topicName;
    }

    /**
     * The topic name a record on {@code endpoint} is delivered as, or null when MQTT cannot carry it: an endpoint whose
     * key holds {@code +}, {@code #} or NUL, or whose name would be longer than MQTT allows.
     */
    static String topicOf(String endpoint) {
        String topic = endpoint.substring(1);
        if (topic.isEmpty() || topic.indexOf('+') >= 0 || topic.indexOf('#') >= 0 || topic.indexOf('\0') >= 0
                || topic.startsWith("$") || topic.length() * 3 > MAX_TOPIC_BYTES
                && topic.getBytes(StandardCharsets.UTF_8).length > MAX_TOPIC_BYTES) {
            return null;
        }
        return topic;
    }

    /** The pattern a SUBSCRIBE filter maps to, or the reason it does not. */
    static Mapping map(String filter) {
        if (filter == null || filter.isEmpty()) {
            return new Mapping(null, "an empty topic filter");
        }
        if (filter.startsWith("$share/")) {
            return new Mapping(null, "shared subscriptions are not supported");
        }
        if (filter.startsWith("$")) {
            return new Mapping(null, "topics starting with '$' are not mapped");
        }
        if (filter.indexOf('\0') >= 0 || filter.indexOf('*') >= 0) {
            return new Mapping(null, "'*' and NUL are not allowed in topic filters here");
        }
        String[] levels = filter.split("/", -1);
        int firstWildcard = -1;
        for (int i = 0; i < levels.length; i++) {
            String level = levels[i];
            boolean hash = level.indexOf('#') >= 0;
            boolean plus = level.indexOf('+') >= 0;
            if (hash && (!level.equals("#") || i != levels.length - 1)) {
                return new Mapping(null, "'#' must be a whole level and the last one");
            }
            if (plus && !level.equals("+")) {
                return new Mapping(null, "'+' must be a whole level");
            }
            if ((hash || plus) && firstWildcard < 0) {
                firstWildcard = i;
            }
        }
        if (firstWildcard < 0) {
            return new Mapping("/" + filter, null);
        }
        StringBuilder prefix = new StringBuilder("/");
        for (int i = 0; i < firstWildcard; i++) {
            prefix.append(levels[i]).append('/');
        }
        return new Mapping(prefix.append('*').toString(), null);
    }

    /** MQTT's matching of a topic name against a filter (MQTT 5.0, 4.7), both valid. */
    static boolean matches(String filter, String topic) {
        int f = 0;
        int t = 0;
        int fl = filter.length();
        int tl = topic.length();
        while (f < fl) {
            int fEnd = filter.indexOf('/', f);
            if (fEnd < 0) {
                fEnd = fl;
            }
            String level = filter.substring(f, fEnd);
            if (level.equals("#")) {
                return true;
            }
            if (t > tl) {
                // The topic has no more levels; "a/#" matches "a" as well.
                return false;
            }
            int tEnd = topic.indexOf('/', t);
            if (tEnd < 0) {
                tEnd = tl;
            }
            if (!level.equals("+") && !level.contentEquals(topic.subSequence(t, tEnd))) {
                return false;
            }
            f = fEnd + 1;
            t = tEnd + 1;
            if (f > fl) {
                // The filter's last level matched: the topic must end here too.
                return t > tl;
            }
            if (t > tl && filter.startsWith("#", f) && f + 1 == fl) {
                return true;
            }
        }
        return t > tl;
    }
}
