package io.sluice.sizing.deploy;

import java.util.ArrayList;
import java.util.List;

/**
 * A Sluice component as the shipped Kubernetes manifests run it ({@code proxy/app/kubernetes/base}): its name (the
 * Deployment, container, ConfigMap and label), the {@code bin/sluice} subcommand and config file, and its ports. The
 * ports are those the base's configs listen on; {@code sluice size} writes its Deployments with them so the output
 * can replace the base's Deployment as is.
 *
 * @param extraEnv environment entries beyond {@code SLUICE_JAVA_OPTS}, as YAML list items at the env list's indent
 */
public record DeployedComponent(String name, String subcommand, String configFile, List<Port> ports, int managementPort, String extraEnv) {

    public record Port(String name, int port) {
    }

    /** Node ids 0 to 5: Service ports must be listed one by one, so the config serves a fixed block of them. */
    public static final int PROXY_BOOTSTRAP_PORT = 9192;
    public static final int PROXY_FIRST_NODE_ID = 0;
    public static final int PROXY_LAST_NODE_ID = 5;

    public static final DeployedComponent PROXY = new DeployedComponent("sluice-proxy", "proxy", "proxy.yaml", proxyPorts(), 9190, """
            - name: POD_NAMESPACE
              valueFrom:
                fieldRef:
                  fieldPath: metadata.namespace
            # What clients are told to connect to for each broker port (advertisedBrokerAddressPattern): the
            # Service's name. Clients outside the cluster need an overlay (docs/kubernetes.md, "Clients outside").
            - name: SLUICE_ADVERTISED_HOST
              value: sluice-proxy.$(POD_NAMESPACE).svc
            """);

    public static final DeployedComponent BRIDGE = new DeployedComponent("sluice-bridge", "bridge", "bridge.yaml", List.of(new Port("websocket", 8080)), 9191, "");

    private static List<Port> proxyPorts() {
        List<Port> ports = new ArrayList<>(List.of(new Port("bootstrap", PROXY_BOOTSTRAP_PORT)));
        for (int node = PROXY_FIRST_NODE_ID; node <= PROXY_LAST_NODE_ID; node++) {
            ports.add(new Port("broker-" + node, PROXY_BOOTSTRAP_PORT + 1 + node - PROXY_FIRST_NODE_ID));
        }
        return List.copyOf(ports);
    }
}
