package io.sluice.bridge.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.sluice.config.TlsValidator;
import io.sluice.transport.Transport;

/** Checks a bound configuration and lists every problem, each naming its field. */
final class BridgeConfigValidator {

    // Kafka's own rule for topic names.
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final List<String> problems = new ArrayList<>();

    private BridgeConfigValidator() {
    }

    static List<String> validate(BridgeConfig config) {
        BridgeConfigValidator v = new BridgeConfigValidator();
        v.server(config.server());
        v.kafka(config.kafka());
        v.topics(config.topics());
        v.endpoints(config.endpoints());
        v.duplicates(config.mappings());
        if (config.mappings().isEmpty()) {
            v.problems.add("topics: at least one topic (or an entry in endpoints) is required");
        }
        v.auth(config.auth());
        v.outbound(config.outbound());
        v.recovery(config.recovery());
        v.connections(config.connections());
        v.requests(config.requests());
        config.delta().validate(v.problems);
        config.filters().validate(v.problems);
        config.catalogue().validate(v.problems);
        config.http().validate(v.problems);
        config.mqtt().validate(v.problems);
        if (config.schemaRegistry() != null) {
            config.schemaRegistry().validate(v.problems, "schemaRegistry");
        }
        config.masking().validate("masking", v.problems);
        for (int i = 0; i < config.formats().size(); i++) {
            config.formats().get(i).validate(i, config.schemaRegistry() != null, v.problems);
        }
        if (config.management().port() < 0 || config.management().port() > 65535) {
            v.problems.add("management.port: must be between 0 and 65535 (0 picks a free port)");
        }
        return v.problems;
    }

    private void server(ServerConfig server) {
        if (!server.path().startsWith("/")) {
            problems.add("server.path: must start with '/'");
        }
        String transportProblem = Transport.problem(server.transport());
        if (transportProblem != null) {
            problems.add("server.transport: " + transportProblem);
        }
        if (server.workerThreads() < 0) {
            problems.add("server.workerThreads: must be 0 (Netty default) or more");
        }
        if (server.maxInboundMessageBytes() < 1024) {
            problems.add("server.maxInboundMessageBytes: must be at least 1024");
        }
        if (server.socketSendBufferBytes() < 0) {
            problems.add("server.socketSendBufferBytes: must be 0 (operating system default) or more");
        }
        if (server.maxSubscriptionsPerConnection() < 1) {
            problems.add("server.maxSubscriptionsPerConnection: must be at least 1");
        }
        if (server.tls() != null) {
            // The proxy's own checks for the same section: one home for what a valid TLS configuration is.
            new TlsValidator(problems).server(server.tls(), "server.tls");
        }
    }

    private void kafka(KafkaConfig kafka) {
        if (kafka == null) {
            problems.add("kafka: is required");
            return;
        }
        if (kafka.bootstrapServers() == null || kafka.bootstrapServers().isBlank()) {
            problems.add("kafka.bootstrapServers: is required");
        }
        positive(kafka.metadataRefresh(), "kafka.metadataRefresh");
        positive(kafka.publishTimeout(), "kafka.publishTimeout");
        for (String property : kafka.properties().keySet()) {
            if (property.equals("bootstrap.servers") || property.equals("group.id") || property.equals("enable.auto.commit")) {
                problems.add("kafka.properties." + property + ": is set by the bridge itself");
            }
        }
    }

    private void topics(List<String> topics) {
        for (int i = 0; i < topics.size(); i++) {
            if (!TOPIC.matcher(topics.get(i)).matches()) {
                problems.add("topics[" + i + "]: '" + topics.get(i) + "' is not a valid Kafka topic name");
            }
        }
    }

    private void endpoints(List<EndpointMapping> endpoints) {
        for (int i = 0; i < endpoints.size(); i++) {
            EndpointMapping m = endpoints.get(i);
            String path = "endpoints[" + i + "]";
            if (m.topic() == null || !TOPIC.matcher(m.topic()).matches()) {
                problems.add(path + ".topic: " + (m.topic() == null ? "is required" : "'" + m.topic() + "' is not a valid Kafka topic name"));
            }
            if (m.endpoint() == null || !m.endpoint().startsWith("/")) {
                problems.add(path + ".endpoint: " + (m.endpoint() == null ? "is required" : "must start with '/'"));
                continue;
            }
            if (m.key() == null) {
                problems.add(path + ".key: is required");
                continue;
            }
            if (m.endpoint().indexOf('*') >= 0 && !(m.endpoint().endsWith("/*") && m.endpoint().indexOf('*') == m.endpoint().length() - 1)) {
                problems.add(path + ".endpoint: '*' may only stand at the end, after '/' (e.g. /scores/live/*)");
            }
            if (m.key().indexOf('*') >= 0 && m.key().indexOf('*') != m.key().length() - 1) {
                problems.add(path + ".key: '*' may only stand at the end");
            }
            if (m.endpoint().endsWith("*") != m.key().endsWith("*")) {
                problems.add(path + ": endpoint and key must both end in '*' or neither");
            }
        }
    }

    private void duplicates(List<EndpointMapping> mappings) {
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < mappings.size(); i++) {
            String endpoint = mappings.get(i).endpoint();
            if (endpoint != null && seen.putIfAbsent(endpoint, i) != null) {
                problems.add(describe(i, mappings) + ": endpoint '" + endpoint + "' is mapped twice");
            }
        }
    }

    private static String describe(int index, List<EndpointMapping> mappings) {
        // Mappings from 'topics' follow the explicit ones; name them by the field the user wrote.
        long explicit = mappings.stream().filter(m -> !m.equals(EndpointMapping.wholeTopic(m.topic()))).count();
        return index < explicit ? "endpoints[" + index + "]" : "topics (" + mappings.get(index).topic() + ")";
    }

    private void auth(AuthConfig auth) {
        positive(auth.connectTimeout(), "auth.connectTimeout");
        if (auth.expiryWarning().isNegative()) {
            problems.add("auth.expiryWarning: must not be negative");
        }
        if (auth.jwt() != null) {
            // The shared JWT section validates itself; its problems name fields relative to it.
            auth.jwt().problems().forEach(p -> problems.add("auth.jwt." + p));
        }
    }

    private void outbound(OutboundConfig outbound) {
        if (outbound.highWaterMarkBytes() <= 0) {
            problems.add("outbound.highWaterMarkBytes: must be greater than 0");
        }
        if (outbound.lowWaterMarkBytes() < 0 || outbound.lowWaterMarkBytes() > outbound.highWaterMarkBytes()) {
            problems.add("outbound.lowWaterMarkBytes: must be between 0 and highWaterMarkBytes (" + outbound.highWaterMarkBytes() + ")");
        }
        if (outbound.maxBytes() <= outbound.highWaterMarkBytes()) {
            problems.add("outbound.maxBytes: must be greater than highWaterMarkBytes (" + outbound.highWaterMarkBytes() + ")");
        }
        positive(outbound.maxSlowTime(), "outbound.maxSlowTime");
        positive(outbound.slowCloseGrace(), "outbound.slowCloseGrace");
    }

    private void recovery(RecoveryConfig recovery) {
        if (recovery.cacheMessagesPerEndpoint() < 1) {
            problems.add("recovery.cacheMessagesPerEndpoint: must be at least 1 (the latest message serves snapshots and deltas)");
        }
        positive(recovery.cacheMaxAge(), "recovery.cacheMaxAge");
        if (recovery.cacheMaxEndpoints() <= 0) {
            problems.add("recovery.cacheMaxEndpoints: must be greater than 0");
        }
        if (recovery.kafkaMaxRecords() < 0) {
            problems.add("recovery.kafkaMaxRecords: must be 0 (never read Kafka) or more");
        }
        if (recovery.kafkaConcurrency() <= 0) {
            problems.add("recovery.kafkaConcurrency: must be greater than 0");
        }
        positive(recovery.kafkaTimeout(), "recovery.kafkaTimeout");
        if (recovery.kafkaQueue() < 0) {
            problems.add("recovery.kafkaQueue: must be 0 (no waiting) or more");
        }
        if (recovery.kafkaReadsPerConnection() < 1) {
            problems.add("recovery.kafkaReadsPerConnection: must be at least 1");
        }
        if (recovery.startupWait().isNegative()) {
            problems.add("recovery.startupWait: must be 0 (never wait) or more");
        }
    }

    private void requests(RequestLimitsConfig requests) {
        if (requests.maxEndpointBytes() < 2) {
            problems.add("requests.maxEndpointBytes: must be at least 2");
        }
        if (requests.maxTokenBytes() < 1) {
            problems.add("requests.maxTokenBytes: must be at least 1");
        }
        if (!(requests.subscribesPerSecond() > 0) || Double.isInfinite(requests.subscribesPerSecond())) {
            problems.add("requests.subscribesPerSecond: must be a number greater than 0");
        }
        if (requests.subscribeBurst() < 1) {
            problems.add("requests.subscribeBurst: must be at least 1");
        }
        if (requests.publishesInFlight() < 1) {
            problems.add("requests.publishesInFlight: must be at least 1");
        }
        if (requests.publishBytesInFlight() < 1) {
            problems.add("requests.publishBytesInFlight: must be at least 1");
        }
    }

    private void connections(ConnectionsConfig c) {
        positive(c.handshakeTimeout(), "connections.handshakeTimeout");
        atLeast(c.maxRequestLineBytes(), 256, "connections.maxRequestLineBytes");
        atLeast(c.maxHeaderBytes(), 1024, "connections.maxHeaderBytes");
        atLeast(c.maxConnections(), 1, "connections.maxConnections");
        atLeast(c.maxConnectionsPerIp(), 1, "connections.maxConnectionsPerIp");
        atLeast(c.maxHandshakes(), 1, "connections.maxHandshakes");
        atLeast(c.maxHandshakesPerIp(), 1, "connections.maxHandshakesPerIp");
        if (!(c.connectionsPerSecondPerIp() > 0)) {
            problems.add("connections.connectionsPerSecondPerIp: must be greater than 0");
        }
        atLeast(c.connectionBurstPerIp(), 1, "connections.connectionBurstPerIp");
        atLeast(c.maxConnectionsPerSubject(), 0, "connections.maxConnectionsPerSubject");
        for (int i = 0; i < c.trustedProxies().size(); i++) {
            try {
                AddressBlock.parse(String.valueOf(c.trustedProxies().get(i)));
            }
            catch (IllegalArgumentException e) {
                problems.add("connections.trustedProxies[" + i + "]: " + e.getMessage());
            }
        }
        for (int i = 0; i < c.allowedOrigins().size(); i++) {
            String origin = c.allowedOrigins().get(i);
            if (origin == null || !origin.matches("https?://[^/\\s]+")) {
                problems.add("connections.allowedOrigins[" + i + "]: '" + origin + "' is not an origin (scheme://host[:port], no path)");
            }
        }
    }

    private void atLeast(int value, int min, String path) {
        if (value < min) {
            problems.add(path + ": must be at least " + min);
        }
    }

    private void positive(Duration duration, String path) {
        if (duration.isZero() || duration.isNegative()) {
            problems.add(path + ": must be longer than 0");
        }
    }
}
