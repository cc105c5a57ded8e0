package io.sluice.bench.scenario;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalProxy;

/**
 * The proxy a scenario measures, in a child JVM as {@code bench proxy} runs it, on addresses chosen once so that it can
 * be restarted where its clients expect it (KafScale's offset recovery) and its {@code /metrics} read between runs
 * (Kroxylicious's KMS calls).
 */
public final class ScenarioProxy implements AutoCloseable {

    public static final List<String> JVM_OPTIONS = List.of("-Xmx512m", "-XX:+UseParallelGC");

    private final String launcher;
    private final String config;
    private final Map<String, String> env;
    private final int managementPort;
    private final String bootstrap;
    private LocalProxy process;

    private ScenarioProxy(String launcher, String config, Map<String, String> env, int managementPort, String bootstrap) {
        this.launcher = launcher;
        this.config = config;
        this.env = env;
        this.managementPort = managementPort;
        this.bootstrap = bootstrap;
    }

    /**
     * @param launcher the launcher class the child proxy runs ({@link LocalProxy})
     * @param filters the configuration's filter part ({@code filterDefinitions} and {@code defaultFilters}), empty for passthrough
     * @param env     variables the filters' configuration reads
     */
    public static ScenarioProxy start(String launcher, String kafkaBootstrap, String filters, Map<String, String> env) throws IOException, InterruptedException {
        int management = FreePorts.block(1);
        String bootstrap = "127.0.0.1:" + FreePorts.block(8);
        String yaml = """
                management:
                  port: %d
                virtualClusters:
                  - name: bench
                    targetCluster:
                      bootstrapServers: "%s"
                    gateways:
                      - name: default
                        portIdentifiesNode:
                          bootstrapAddress: "%s"
                %s""".formatted(management, kafkaBootstrap, bootstrap, filters);
        ScenarioProxy proxy = new ScenarioProxy(launcher, yaml, env, management, bootstrap);
        proxy.process = LocalProxy.start(launcher, yaml, management, JVM_OPTIONS, env);
        return proxy;
    }

    public String bootstrap() {
        return bootstrap;
    }

    public long pid() {
        return process.pid();
    }

    public String config() {
        return config;
    }

    public KmsCalls kmsCalls() throws IOException, InterruptedException {
        return KmsCalls.scrape(managementPort);
    }

    /** Stops the process (SIGTERM, as a rolling restart does), with SIGKILL after 10 s. Clients see their connections close. */
    public void stop() {
        if (process != null) {
            process.close();
            process = null;
        }
    }

    /** Starts it again on the same addresses and waits until it is ready. */
    public void startAgain() throws IOException, InterruptedException {
        process = LocalProxy.start(launcher, config, managementPort, JVM_OPTIONS, env);
    }

    @Override
    public void close() {
        stop();
    }
}
