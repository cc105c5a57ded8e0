package io.sluice.bridge.config;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;
import io.sluice.config.HostPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MqttConfigTest {

    private static final String BASE = "kafka:\n  bootstrapServers: b:9092\ntopics: a\n";

    @Test
    void offByDefault() {
        MqttConfig mqtt = BridgeConfigLoader.parse(BASE, Map.of()).mqtt();
        assertThat(mqtt).isEqualTo(MqttConfig.defaults());
        assertThat(mqtt.enabled()).isFalse();
        assertThat(mqtt.listen()).isEqualTo(new HostPort("127.0.0.1", 1883));
        assertThat(mqtt.websocketListen()).isNull();
    }

    @Test
    void everyFieldCanBeSet() {
        MqttConfig mqtt = BridgeConfigLoader.parse(BASE + """
                mqtt:
                  enabled: true
                  listen: 0.0.0.0:1884
                  maxPacketBytes: 4096
                  maxInflight: 8
                  maxTopicAliases: 0
                  maxKeepAlive: 5m
                  maxClientIdBytes: 64
                  websocketListen: 0.0.0.0:8083
                  websocketPath: /devices
                """, Map.of()).mqtt();
        assertThat(mqtt).isEqualTo(new MqttConfig(true, new HostPort("0.0.0.0", 1884), null, 4096, 8, 0, Duration.ofMinutes(5), 64,
                new HostPort("0.0.0.0", 8083), "/devices", MqttSessionsConfig.defaults()));
        assertThat(mqtt.sessions().enabled()).isFalse();
    }

    @Test
    void sessionsAreSetAndCheckedFieldByField() {
        MqttSessionsConfig sessions = BridgeConfigLoader.parse(BASE + """
                mqtt:
                  sessions:
                    maxExpiry: 2h
                    topic: devices-sessions
                    partitions: 3
                    replicationFactor: 3
                    maxPerSubject: 4
                    maxSessions: 1000
                    maxStateBytes: 8192
                    checkpointInterval: 1s
                    loadTimeout: 3s
                    maxLoads: 16
                """, Map.of()).mqtt().sessions();
        assertThat(sessions).isEqualTo(new MqttSessionsConfig(Duration.ofHours(2), "devices-sessions", 3, (short) 3, 4, 1000, 8192,
                Duration.ofSeconds(1), Duration.ofSeconds(3), 16));
        assertThat(sessions.enabled()).isTrue();
        assertThatThrownBy(() -> BridgeConfigLoader.parse(BASE + """
                mqtt:
                  sessions:
                    maxExpiry: 500ms
                    topic: "bad topic"
                    partitions: 0
                    replicationFactor: 0
                    maxPerSubject: 0
                    maxSessions: 0
                    maxStateBytes: 10
                    checkpointInterval: 1ms
                    loadTimeout: 1h
                    maxLoads: 0
                """, Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "mqtt.sessions.maxExpiry: 0 (off) or at least 1s (MQTT counts it in seconds)",
                        "mqtt.sessions.topic: must be a Kafka topic name (letters, digits, '.', '_', '-'; at most 249)",
                        "mqtt.sessions.partitions: must be 1..1000",
                        "mqtt.sessions.replicationFactor: must be -1 (the broker's default) or at least 1",
                        "mqtt.sessions.maxPerSubject: must be at least 1",
                        "mqtt.sessions.maxSessions: must be 1..10000000 (every node indexes every session)",
                        "mqtt.sessions.maxStateBytes: must be 1024..1048576",
                        "mqtt.sessions.checkpointInterval: must be 10ms..10m",
                        "mqtt.sessions.loadTimeout: must be 100ms..5m",
                        "mqtt.sessions.maxLoads: must be 1..100000"));
    }

    @Test
    void badValuesAreReportedWithTheirField() {
        assertThatThrownBy(() -> BridgeConfigLoader.parse(BASE + """
                mqtt:
                  maxPacketBytes: 10
                  maxInflight: 0
                  maxTopicAliases: 5000
                  maxKeepAlive: 30h
                  maxClientIdBytes: 5
                  websocketPath: mqtt
                """, Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "mqtt.maxPacketBytes: must be 1024..268435455",
                        "mqtt.maxInflight: must be 1..65535",
                        "mqtt.maxTopicAliases: must be 0..1024",
                        "mqtt.maxKeepAlive: must be 1s..65535s (MQTT counts it in seconds, in two bytes)",
                        "mqtt.maxClientIdBytes: must be 23..65535",
                        "mqtt.websocketPath: must start with '/'"));
        assertThatThrownBy(() -> BridgeConfigLoader.parse(BASE + "mqtt:\n  maxInflights: 3\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("mqtt.maxInflights");
    }
}
