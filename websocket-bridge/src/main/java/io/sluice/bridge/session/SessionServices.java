package io.sluice.bridge.session;

import io.sluice.bridge.auth.Authenticator;
import io.sluice.bridge.config.AuthConfig;
import io.sluice.bridge.config.OutboundConfig;
import io.sluice.bridge.kafka.Publisher;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.recovery.KafkaRecovery;
import io.sluice.bridge.subscription.Hub;

/** What every session of a node shares. */
public record SessionServices(String nodeName, Hub hub, Authenticator authenticator, Publisher publisher,
                              KafkaRecovery kafkaRecovery, BridgeMetrics metrics, AuthConfig auth,
                              OutboundConfig outbound) {
}
