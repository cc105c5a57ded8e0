package io.sluice.bridge.mqtt;

import java.util.HashMap;
import java.util.Map;

/**
 * The topic aliases an MQTT 5 client sets on its PUBLISHes (3.3.2.3.4): alias numbers 1 to {@code mqtt.maxTopicAliases},
 * which CONNACK tells the client, each standing for the topic last sent with it. At most that many topics are held,
 * each no longer than a packet. Event loop only.
 */
final class TopicAliases {

    private final int max;
    private final Map<Integer, String> topics = new HashMap<>();

    TopicAliases(int max) {
        this.max = max;
    }

    /** Why the alias is not one the client may use (MQTT 5: DISCONNECT 0x94), or null. */
    String problem(int alias) {
        if (alias < 1 || alias > max) {
            return max == 0 ? "topic aliases are not accepted (Topic Alias Maximum 0)"
                    : "topic alias " + alias + " is not between 1 and the Topic Alias Maximum " + max;
        }
        return null;
    }

    String get(int alias) {
        return topics.get(alias);
    }

    void set(int alias, String topic) {
        topics.put(alias, topic);
    }
}
