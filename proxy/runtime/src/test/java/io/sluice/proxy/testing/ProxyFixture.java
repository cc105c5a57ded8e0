package io.sluice.proxy.testing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;

import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.server.ProxyServer;

/**
 * A proxy in front of a test cluster, configured from YAML the way users configure it. The bootstrap
 * port and the node ports after it are picked from a block that is free right now.
 */
public final class ProxyFixture implements AutoCloseable {

    public static final String VIRTUAL_CLUSTER = "demo";
    public static final String GATEWAY = "default";

    private final ProxyServer server;
    private final int bootstrapPort;

    private ProxyFixture(ProxyServer server, int bootstrapPort) {
        this.server = server;
        this.bootstrapPort = bootstrapPort;
    }

    /** A passthrough proxy (no user filters). */
    public static ProxyFixture start(String targetBootstrap) {
        return start(targetBootstrap, "", "");
    }

    /**
     * @param targetSection extra YAML inside {@code targetCluster} (any indentation)
     * @param topLevel      extra top-level YAML (filterDefinitions, defaultFilters, network)
     */
    public static ProxyFixture start(String targetBootstrap, String targetSection, String topLevel) {
        return start(targetBootstrap, "", targetSection, "", topLevel);
    }

    /** @param gatewayTls YAML for the gateway's {@code tls} section, starting with {@code tls:} (any indentation) */
    public static ProxyFixture startWithGatewayTls(String targetBootstrap, String gatewayTls) {
        return start(targetBootstrap, "", "", gatewayTls, "");
    }

    /**
     * @param clusterSection extra YAML of the virtual cluster itself, e.g. {@code connectionLimits} (any indentation)
     * @param topLevel       extra top-level YAML
     */
    public static ProxyFixture startWithClusterSection(String targetBootstrap, String clusterSection, String topLevel) {
        return start(targetBootstrap, clusterSection, "", "", topLevel);
    }

    private static ProxyFixture start(String targetBootstrap, String clusterSection, String targetSection, String gatewaySection, String topLevel) {
        int port = io.sluice.testkit.FreePorts.block(8);
        String yaml = """
                management:
                  port: 0
                virtualClusters:
                  - name: %s
                %s    targetCluster:
                      bootstrapServers: "%s"
                %s    gateways:
                      - name: %s
                        portIdentifiesNode:
                          bootstrapAddress: "127.0.0.1:%d"
                %s%s""".formatted(VIRTUAL_CLUSTER, reindent(clusterSection, 4), targetBootstrap, reindent(targetSection, 6), GATEWAY, port,
                reindent(gatewaySection, 8), reindent(topLevel, 0));
        return start(ProxyConfigLoader.parse(yaml, Map.of()), port);
    }

    /** Moves a YAML fragment written at any indentation to {@code spaces}. */
    private static String reindent(String yaml, int spaces) {
        List<String> lines = yaml.lines().filter(l -> !l.isBlank()).toList();
        int common = lines.stream().mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder out = new StringBuilder();
        lines.forEach(l -> out.append(" ".repeat(spaces)).append(l.substring(common)).append('\n'));
        return out.toString();
    }

    public static ProxyFixture start(ProxyConfig config, int bootstrapPort) {
        return new ProxyFixture(ProxyServer.start(config), bootstrapPort);
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + bootstrapPort;
    }

    public int bootstrapPort() {
        return bootstrapPort;
    }

    public ProxyServer server() {
        return server;
    }

    /** kafka-clients settings pointing at the proxy. */
    public Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return config;
    }

    /** The value of a Prometheus sample line from /metrics, summed over label sets matching the filter. */
    public double metric(String name, String labelFragment) {
        String scrape = server.meterRegistry().scrape();
        double sum = 0;
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name) && (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ') && line.contains(labelFragment)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    @Override
    public void close() {
        server.close();
    }
}
