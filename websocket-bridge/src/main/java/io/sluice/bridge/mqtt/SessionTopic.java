package io.sluice.bridge.mqtt;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.bridge.config.KafkaConfig;
import io.sluice.bridge.config.MqttSessionsConfig;
import io.sluice.bridge.kafka.KafkaClients;
import io.sluice.config.ConfigException;

/**
 * Makes sure the sessions topic is one the bridge can keep sessions in, at start-up: created compacted when it is
 * missing, refused when it exists and compaction would not keep each session's latest record (any
 * {@code cleanup.policy} without {@code compact}: deleting by age would silently end sessions). A problem stops the
 * node with a message naming {@code mqtt.sessions.topic}.
 */
final class SessionTopic {

    private static final Logger LOG = LoggerFactory.getLogger(SessionTopic.class);

    private SessionTopic() {
    }

    static void ensure(KafkaConfig kafka, MqttSessionsConfig config, String node) {
        String topic = config.topic();
        long timeout = Math.max(kafka.publishTimeout().toMillis(), 5_000);
        try (Admin admin = Admin.create(KafkaClients.common(kafka, "sluice-bridge-" + node + "-mqtt-sessions-admin"))) {
            Set<String> names = admin.listTopics().names().get(timeout, TimeUnit.MILLISECONDS);
            if (!names.contains(topic)) {
                NewTopic create = new NewTopic(topic, Optional.of(config.partitions()),
                        config.replicationFactor() < 0 ? Optional.empty() : Optional.of(config.replicationFactor()))
                        .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
                try {
                    admin.createTopics(List.of(create)).all().get(timeout, TimeUnit.MILLISECONDS);
                    LOG.info("Created the MQTT sessions topic {} (compacted, {} partitions)", topic, config.partitions());
                    return;
                }
                catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                    // Another node created it meanwhile: check it like any existing one.
                }
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config described = admin.describeConfigs(List.of(resource)).all().get(timeout, TimeUnit.MILLISECONDS).get(resource);
            ConfigEntry policy = described == null ? null : described.get(TopicConfig.CLEANUP_POLICY_CONFIG);
            String value = policy == null ? "delete" : policy.value();
            if (value == null || !value.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
                throw new ConfigException(List.of("mqtt.sessions.topic: topic " + topic + " exists with cleanup.policy=" + value
                        + "; it must be compacted (cleanup.policy=compact), or name another topic"));
            }
        }
        catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new ConfigException(List.of("mqtt.sessions.topic: could not check or create topic " + topic + " in Kafka: " + cause));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException(List.of("mqtt.sessions.topic: interrupted while checking topic " + topic));
        }
    }
}
