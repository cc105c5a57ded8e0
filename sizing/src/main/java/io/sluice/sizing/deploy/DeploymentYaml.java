package io.sluice.sizing.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * A complete Deployment for a {@link DeployedComponent}: what the shipped base runs (image, config, probes on the management
 * port, a locked-down security context, Prometheus annotations) with the replicas, CPU, memory and JVM options a
 * sizing decided. Requests equal limits: a fixed CPU budget makes the throughput ceiling deterministic (Kroxylicious's
 * advice), and equal memory makes the pod Guaranteed, the last to be evicted.
 */
public final class DeploymentYaml {

    /** The image the manifests name; Kustomize's {@code images:} points it at a registry. */
    public static final String IMAGE = "sluice:" + version();

    private DeploymentYaml() {
    }

    /**
     * @param header comment lines (without {@code #}) saying what the sizing was for
     */
    public static String of(DeployedComponent component, List<String> header, int replicas, int millicores, long memoryBytes, JvmBudget jvm) {
        String comments = header.stream().map(line -> "# " + line + "\n").collect(Collectors.joining());
        String ports = component.ports().stream()
                .map(p -> String.format(Locale.ROOT, "            - name: %s%n              containerPort: %d%n", p.name(), p.port()))
                .collect(Collectors.joining());
        String extraEnv = component.extraEnv().lines().map(line -> "            " + line + "\n").collect(Collectors.joining());
        String memory = (memoryBytes >> 20) + "Mi";
        return comments + String.format(Locale.ROOT, """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %1$s
                  labels:
                    app.kubernetes.io/name: %1$s
                    app.kubernetes.io/part-of: sluice
                spec:
                  replicas: %2$d
                  selector:
                    matchLabels:
                      app.kubernetes.io/name: %1$s
                  template:
                    metadata:
                      labels:
                        app.kubernetes.io/name: %1$s
                        app.kubernetes.io/part-of: sluice
                      annotations:
                        prometheus.io/scrape: "true"
                        prometheus.io/port: "%3$d"
                        prometheus.io/path: /metrics
                    spec:
                      automountServiceAccountToken: false
                      # The preStop pause (10 s) and then the drain on SIGTERM (shutdownTimeout, 15 s by default) fit in it.
                      terminationGracePeriodSeconds: 30
                      # N+1 holds only if losing one node takes one replica: never two on a node, and across zones where
                      # the nodes are labelled with one (nodes without the label do not block scheduling).
                      topologySpreadConstraints:
                        - maxSkew: 1
                          topologyKey: kubernetes.io/hostname
                          whenUnsatisfiable: DoNotSchedule
                          labelSelector:
                            matchLabels:
                              app.kubernetes.io/name: %1$s
                        - maxSkew: 1
                          topologyKey: topology.kubernetes.io/zone
                          whenUnsatisfiable: ScheduleAnyway
                          labelSelector:
                            matchLabels:
                              app.kubernetes.io/name: %1$s
                      securityContext:
                        runAsNonRoot: true
                        runAsUser: 10001
                        runAsGroup: 10001
                        seccompProfile:
                          type: RuntimeDefault
                      containers:
                        - name: %1$s
                          image: %4$s
                          args: [%5$s, --config, /etc/sluice/%6$s]
                          envFrom:
                            - configMapRef:
                                name: sluice-env
                          env:
                            # The collector and processor count are those the runs were measured with, set explicitly:
                            # under 2 CPUs or 1792 MB the JVM would pick the Serial collector and fewer threads itself.
                            - name: SLUICE_JAVA_OPTS
                              value: "%7$s"
                %8$s          ports:
                %9$s            - name: management
                              containerPort: %3$d
                          startupProbe:
                            httpGet:
                              path: /healthz
                              port: management
                            periodSeconds: 2
                            failureThreshold: 60
                          livenessProbe:
                            httpGet:
                              path: /healthz
                              port: management
                            periodSeconds: 10
                            timeoutSeconds: 2
                            failureThreshold: 3
                          readinessProbe:
                            httpGet:
                              path: /readyz
                              port: management
                            periodSeconds: 5
                            timeoutSeconds: 2
                            failureThreshold: 2
                          # A stopping pod leaves the Service's endpoints at once, but kube-proxy, load balancers and
                          # ingresses learn it seconds later: new connections keep coming meanwhile. The pause lets them
                          # catch up before SIGTERM starts the drain, so no client is sent to a pod that refuses it.
                          lifecycle:
                            preStop:
                              exec:
                                command: [sleep, "10"]
                          resources:
                            requests:
                              cpu: "%10$dm"
                              memory: "%11$s"
                            limits:
                              cpu: "%10$dm"
                              memory: "%11$s"
                          securityContext:
                            allowPrivilegeEscalation: false
                            readOnlyRootFilesystem: true
                            capabilities:
                              drop: [ALL]
                          volumeMounts:
                            - name: config
                              mountPath: /etc/sluice
                              readOnly: true
                            - name: secrets
                              mountPath: /var/run/secrets/sluice
                              readOnly: true
                            # The JVM's perf data and Netty's native transport library are written here.
                            - name: tmp
                              mountPath: /tmp
                      volumes:
                        - name: config
                          configMap:
                            name: %1$s
                        # Key material and passwords, read as files (tokenFile, hmacSecretFile, passwordFile, ...).
                        - name: secrets
                          secret:
                            secretName: %1$s-secrets
                            optional: true
                        - name: tmp
                          emptyDir:
                            sizeLimit: 64Mi
                """, component.name(), replicas, component.managementPort(), IMAGE, component.subcommand(), component.configFile(),
                String.join(" ", jvm.options()), extraEnv, ports, millicores, memory);
    }

    private static String version() {
        try (InputStream in = DeploymentYaml.class.getResourceAsStream("version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "latest");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
