package io.sluice.proxy.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import io.sluice.config.HostPort;
import io.sluice.config.ManagementConfig;
import io.sluice.config.TlsValidator;
import io.sluice.transport.Transport;

/** Checks a bound configuration and lists every problem, each naming its field. */
final class ConfigValidator {

    // Below a batch or two a fetch limit only multiplies requests; the broker returns one batch past it anyway.
    private static final int MIN_FETCH_BYTES = 64 * 1024;
    private static final Pattern CLUSTER_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    private final List<String> problems = new ArrayList<>();
    private final TlsValidator tls = new TlsValidator(problems);

    private ConfigValidator() {
    }

    static List<String> validate(ProxyConfig config) {
        ConfigValidator validator = new ConfigValidator();
        validator.network(config.network());
        validator.management(config.management());
        Set<String> filterNames = validator.filterDefinitions(config.filterDefinitions());
        validator.filterReferences(config.defaultFilters(), "defaultFilters", filterNames);
        validator.virtualClusters(config.virtualClusters(), filterNames);
        validator.problems.addAll(GatewayPorts.conflicts(config.virtualClusters()));
        validator.problems.addAll(SniNameConflicts.conflicts(config.virtualClusters()));
        return validator.problems;
    }

    private void network(NetworkConfig network) {
        String transportProblem = Transport.problem(network.transport());
        if (transportProblem != null) {
            problems.add("network.transport: " + transportProblem);
        }
        if (network.workerThreads() < 0) {
            problems.add("network.workerThreads: must be 0 (Netty default) or more");
        }
        if (network.maxFrameBytes() <= 0) {
            problems.add("network.maxFrameBytes: must be greater than 0");
        }
        positive(network.filterTimeout(), "network.filterTimeout");
        positive(network.connectTimeout(), "network.connectTimeout");
        if (network.writeBufferHighWaterMark() <= 0) {
            problems.add("network.writeBufferHighWaterMark: must be greater than 0");
        }
        if (network.writeBufferLowWaterMark() < 0) {
            problems.add("network.writeBufferLowWaterMark: must not be negative");
        }
        else if (network.writeBufferLowWaterMark() > network.writeBufferHighWaterMark()) {
            problems.add("network.writeBufferLowWaterMark: must not exceed writeBufferHighWaterMark ("
                    + network.writeBufferHighWaterMark() + ")");
        }
        if (network.maxUnwritableTime().isNegative()) {
            problems.add("network.maxUnwritableTime: must not be negative (0 never closes a client that does not read)");
        }
        if (network.connectionsMaxIdle().isNegative()) {
            problems.add("network.connectionsMaxIdle: must not be negative (0 never closes an idle client connection)");
        }
        if (network.maxFetchBytes() < MIN_FETCH_BYTES) {
            problems.add("network.maxFetchBytes: must be at least " + MIN_FETCH_BYTES);
        }
        if (network.clientOutboundBudgetBytes() < 0) {
            problems.add("network.clientOutboundBudgetBytes: must not be negative (0 picks a quarter of the heap)");
        }
        PreAuthenticationConfig preAuth = network.preAuthentication();
        if (preAuth.maxFrameBytes() <= 0) {
            problems.add("network.preAuthentication.maxFrameBytes: must be greater than 0");
        }
        positive(preAuth.timeout(), "network.preAuthentication.timeout");
        if (preAuth.maxQueuedRequests() < 0) {
            problems.add("network.preAuthentication.maxQueuedRequests: must not be negative");
        }
    }

    private void positive(Duration duration, String path) {
        if (duration.isZero() || duration.isNegative()) {
            problems.add(path + ": must be longer than 0");
        }
    }

    private void management(ManagementConfig management) {
        if (management.bindAddress().isBlank()) {
            problems.add("management.bindAddress: must not be empty");
        }
        if (management.port() < 0 || management.port() > 65535) {
            problems.add("management.port: must be between 0 and 65535 (0 picks a free port)");
        }
    }

    private Set<String> filterDefinitions(List<FilterDefinition> definitions) {
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < definitions.size(); i++) {
            FilterDefinition definition = definitions.get(i);
            String path = "filterDefinitions[" + i + "]";
            if (blank(definition.name())) {
                problems.add(path + ".name: is required");
            }
            else if (seen.putIfAbsent(definition.name(), i) != null) {
                problems.add(path + ".name: duplicate filter name '" + definition.name()
                        + "' (also filterDefinitions[" + seen.get(definition.name()) + "])");
            }
            if (blank(definition.type())) {
                problems.add(path + ".type: is required");
            }
        }
        return seen.keySet();
    }

    private void filterReferences(List<String> names, String path, Set<String> defined) {
        for (int i = 0; i < names.size(); i++) {
            if (!defined.contains(names.get(i))) {
                problems.add(path + "[" + i + "]: unknown filter '" + names.get(i) + "' (not in filterDefinitions"
                        + (defined.isEmpty() ? "" : ": " + defined.stream().sorted().collect(Collectors.joining(", ")))
                        + ")");
            }
        }
    }

    private void virtualClusters(List<VirtualClusterConfig> clusters, Set<String> filterNames) {
        if (clusters.isEmpty()) {
            problems.add("virtualClusters: at least one virtual cluster is required");
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < clusters.size(); i++) {
            VirtualClusterConfig cluster = clusters.get(i);
            String path = "virtualClusters[" + i + "]";
            if (blank(cluster.name())) {
                problems.add(path + ".name: is required");
            }
            else if (!CLUSTER_NAME.matcher(cluster.name()).matches()) {
                problems.add(path + ".name: '" + cluster.name() + "' must be lower-case letters, digits and '-', "
                        + "starting and ending with a letter or digit");
            }
            else if (seen.putIfAbsent(cluster.name(), i) != null) {
                problems.add(path + ".name: duplicate virtual cluster name '" + cluster.name()
                        + "' (also virtualClusters[" + seen.get(cluster.name()) + "])");
            }
            targetCluster(cluster.targetCluster(), path + ".targetCluster");
            if (cluster.connectionLimits().maxConnections() <= 0) {
                problems.add(path + ".connectionLimits.maxConnections: must be greater than 0");
            }
            if (cluster.connectionLimits().maxConnectionsPerClientIp() <= 0) {
                problems.add(path + ".connectionLimits.maxConnectionsPerClientIp: must be greater than 0");
            }
            gateways(cluster.gateways(), path + ".gateways");
            if (cluster.filters() != null) {
                filterReferences(cluster.filters(), path + ".filters", filterNames);
            }
        }
    }

    private void targetCluster(TargetClusterConfig target, String path) {
        if (target == null) {
            problems.add(path + ": is required");
            return;
        }
        if (target.bootstrapServers().isEmpty()) {
            problems.add(path + ".bootstrapServers: is required (one or more host:port)");
        }
        for (int i = 0; i < target.bootstrapServers().size(); i++) {
            HostPort server = target.bootstrapServers().get(i);
            if (server.port() == 0 || server.host().isEmpty()) {
                problems.add(path + ".bootstrapServers[" + i + "]: '" + server + "' needs a host and a port above 0");
            }
        }
        if (target.tls() != null) {
            tls.client(target.tls(), path + ".tls");
        }
        if (target.sasl() != null) {
            SaslClientConfig sasl = target.sasl();
            if (blank(sasl.mechanism()) || !SaslClientConfig.MECHANISMS.contains(sasl.mechanism())) {
                problems.add(path + ".sasl.mechanism: must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512");
            }
            if (blank(sasl.username())) {
                problems.add(path + ".sasl.username: is required");
            }
            if (sasl.password() == null) {
                problems.add(path + ".sasl.password: is required");
            }
        }
    }

    private void gateways(List<GatewayConfig> gateways, String path) {
        if (gateways.isEmpty()) {
            problems.add(path + ": at least one gateway is required");
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < gateways.size(); i++) {
            GatewayConfig gateway = gateways.get(i);
            String gatewayPath = path + "[" + i + "]";
            if (blank(gateway.name())) {
                problems.add(gatewayPath + ".name: is required");
            }
            else if (seen.putIfAbsent(gateway.name(), i) != null) {
                problems.add(gatewayPath + ".name: duplicate gateway name '" + gateway.name() + "' in this cluster");
            }
            PortIdentifiesNodeConfig ports = gateway.portIdentifiesNode();
            SniHostIdentifiesNodeConfig sni = gateway.sniHostIdentifiesNode();
            if (ports == null && sni == null) {
                problems.add(gatewayPath + ": one of portIdentifiesNode or sniHostIdentifiesNode is required");
            }
            else if (ports != null && sni != null) {
                problems.add(gatewayPath + ".sniHostIdentifiesNode: not allowed together with portIdentifiesNode (one scheme per gateway; "
                        + "add another gateway for the other)");
            }
            if (ports != null) {
                new NodePortsValidator(problems).validate(ports, gatewayPath + ".portIdentifiesNode");
            }
            if (sni != null) {
                new SniHostsValidator(problems).validate(sni, gatewayPath + ".sniHostIdentifiesNode");
                if (gateway.tls() == null) {
                    problems.add(gatewayPath + ".tls: is required with sniHostIdentifiesNode: the server name that picks the broker "
                            + "is part of the TLS handshake");
                }
            }
            if (gateway.tls() != null) {
                tls.server(gateway.tls(), gatewayPath + ".tls");
            }
        }
    }

    static boolean blank(String text) {
        return text == null || text.isBlank();
    }
}
