package io.sluice.bridge.session;

import io.sluice.bridge.auth.Authenticator;
import io.sluice.bridge.config.AuthConfig;
import io.sluice.bridge.config.OutboundConfig;
import io.sluice.bridge.config.RecoveryConfig;
import io.sluice.bridge.selection.FilterLimits;
import io.sluice.format.Formats;
import io.sluice.format.mask.Masks;
import io.sluice.bridge.config.RequestLimitsConfig;
import io.sluice.bridge.kafka.Publisher;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.recovery.KafkaRecovery;
import io.sluice.bridge.subscription.Hub;

/**
 * What every session of a node shares.
 *
 * @param maxSubscriptions a connection's subscriptions beyond this many are refused ({@code too_many_subscriptions})
 * @param requests         bounds on request fields and the subscribe rate
 * @param recovery         for the per-connection bound on Kafka log reads
 * @param readerStartup    when subscribes can be answered
 * @param filters          bounds on subscription filters and field lists
 * @param formats          the topics' record formats, for publish
 * @param subjects         sessions held per token subject ({@code connections.maxConnectionsPerSubject})
 * @param masks            the fields masked per reader ({@code masking})
 */
public record SessionServices(String nodeName, Hub hub, Authenticator authenticator, Publisher publisher,
                              KafkaRecovery kafkaRecovery, BridgeMetrics metrics, AuthConfig auth,
                              OutboundConfig outbound, int maxSubscriptions, RequestLimitsConfig requests,
                              RecoveryConfig recovery, ReaderStartup readerStartup, FilterLimits filters,
                              Formats formats, SubjectConnections subjects, Masks masks) {
}
