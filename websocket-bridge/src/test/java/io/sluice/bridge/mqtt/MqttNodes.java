package io.sluice.bridge.mqtt;

import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.testkit.fixtures.SharedKafka;

/** What the MQTT tests share: the test kit's one broker for this JVM, and a node serving one topic over MQTT. */
final class MqttNodes {

    private MqttNodes() {
    }

    /** The shared broker's bootstrap servers (a broker per MQTT test class would be most of their time). */
    static String sharedKafka() {
        try {
            return SharedKafka.bootstrap();
        }
        catch (Exception e) {
            throw new IllegalStateException("the shared broker did not start", e);
        }
    }

    /** A node reading {@code topic}, MQTT on a free port, with {@code mqttExtra} more lines of the {@code mqtt} section. */
    static BridgeFixture start(KafkaHelper kafka, String node, String topic, String mqttExtra) {
        return BridgeFixture.start(kafka.bootstrap(), node, """
                topics: %s
                mqtt:
                  enabled: true
                  listen: "127.0.0.1:0"
                %s""".formatted(topic, mqttExtra.stripIndent().indent(2)));
    }
}
