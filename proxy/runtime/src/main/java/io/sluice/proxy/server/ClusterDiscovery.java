package io.sluice.proxy.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.config.HostPort;
import io.sluice.config.KeyConfig;
import io.sluice.proxy.config.TargetClusterConfig;
import io.sluice.config.TlsClientConfig;
import io.sluice.config.TrustConfig;

/**
 * Asks the target cluster which brokers it has, so node ports are bound before any client needs one
 * (clients with cached metadata, other proxy replicas behind one load balancer). Runs on its own thread
 * with kafka-clients' Admin, at start-up, every {@link UpstreamCheck#INTERVAL}, and on demand when a client reaches
 * a node port the registry does not know. Each round is also the readiness check of the target cluster: its outcome
 * goes to the cluster's {@link UpstreamCheck}. Clusters that require SASL cannot be asked (the proxy holds no client
 * credentials in passthrough); then the registry learns from the responses clients receive.
 */
final class ClusterDiscovery implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterDiscovery.class);

    private final VirtualClusterRuntime cluster;
    private final ScheduledExecutorService executor;
    private final Map<String, Object> adminConfig;
    private final AtomicReference<CompletableFuture<Void>> inFlight = new AtomicReference<>();
    private volatile Admin admin;
    private volatile boolean succeededOnce;
    private volatile String lastError = "not run yet";
    private volatile boolean closing;

    ClusterDiscovery(VirtualClusterRuntime cluster, ScheduledExecutorService executor) {
        this.cluster = cluster;
        this.executor = executor;
        this.adminConfig = adminConfig(cluster.config().targetCluster());
    }

    void start() {
        // Every few seconds rather than every minute because readiness follows it; a DescribeCluster is one small request.
        executor.scheduleWithFixedDelay(() -> refreshNow(UpstreamCheck.TIMEOUT), 0, UpstreamCheck.INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Runs a discovery round unless one is running; completes when it ends, successful or not. */
    CompletableFuture<Void> refreshNow(Duration timeout) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running = inFlight.compareAndExchange(null, mine);
        if (running != null) {
            return running;
        }
        executor.execute(() -> {
            try {
                discover(timeout);
            } finally {
                inFlight.set(null);
                mine.complete(null);
            }
        });
        return mine;
    }

    private void discover(Duration timeout) {
        try {
            if (admin == null) {
                admin = Admin.create(adminConfig);
            }
            Collection<Node> nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                    .nodes().get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
            for (Node node : nodes) {
                cluster.registry().learn(node.id(), new HostPort(node.host(), node.port()));
                for (Gateway gateway : cluster.gateways()) {
                    gateway.nodeDiscovered(node.id());
                }
            }
            if (!succeededOnce) {
                LOG.info("virtual cluster {}: target cluster has brokers {}", cluster.name(),
                        nodes.stream().map(n -> n.id() + "@" + n.host() + ":" + n.port()).collect(Collectors.joining(", ")));
            }
            succeededOnce = true;
            lastError = null;
            cluster.upstream().reached("brokers " + nodes.stream().map(n -> Integer.toString(n.id())).sorted().collect(Collectors.joining(", ", "[", "]"))
                    + " answered DescribeCluster");
        } catch (InterruptedException e) {
            // The proxy is stopping while a round waits for an absent cluster: not a discovery failure to report.
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (closing) {
                return; // the same, seen as the Admin client's calls failing once it is closed
            }
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String message = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            if (!message.equals(lastError)) {
                LOG.warn("virtual cluster {}: cannot discover the target cluster's brokers ({}); node ports will be bound as client metadata names them",
                        cluster.name(), message);
            }
            lastError = message;
            cluster.upstream().failed("discovery failed: " + message);
        }
    }

    @Override
    public void close() {
        closing = true;
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
    }

    /** The Admin client's settings: the target's TLS mapped onto kafka-clients' SSL properties, then the user's extras. */
    static Map<String, Object> adminConfig(TargetClusterConfig target) {
        Map<String, Object> props = new HashMap<>();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServersString());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "sluice-discovery");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 5_000);
        TlsClientConfig tls = target.tls();
        if (tls != null) {
            props.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SSL");
            if (!tls.verifyHostname() || tls.insecure()) {
                props.put("ssl.endpoint.identification.algorithm", "");
            }
            TrustConfig trust = tls.trust();
            if (trust != null) {
                String type = trust.storeType() == null ? "PKCS12" : trust.storeType();
                props.put("ssl.truststore.type", type);
                props.put("ssl.truststore.location", trust.storeFile());
                if (trust.storePassword() != null) {
                    props.put("ssl.truststore.password", trust.storePassword().resolve());
                }
            }
            KeyConfig key = tls.key();
            if (key != null) {
                if (key.storeFile() != null) {
                    props.put("ssl.keystore.type", key.storeType() == null ? "PKCS12" : key.storeType());
                    props.put("ssl.keystore.location", key.storeFile());
                    if (key.storePassword() != null) {
                        props.put("ssl.keystore.password", key.storePassword().resolve());
                    }
                } else {
                    props.put("ssl.keystore.type", "PEM");
                    props.put("ssl.keystore.certificate.chain", read(key.certificateFile()));
                    props.put("ssl.keystore.key", read(key.privateKeyFile()));
                    if (key.keyPassword() != null) {
                        props.put("ssl.key.password", key.keyPassword().resolve());
                    }
                }
            }
        }
        if (target.sasl() != null) {
            props.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, tls != null ? "SASL_SSL" : "SASL_PLAINTEXT");
            props.put("sasl.mechanism", target.sasl().mechanism());
            String module = target.sasl().mechanism().equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
            props.put("sasl.jaas.config", module + " required username=\"" + jaasEscape(target.sasl().username())
                    + "\" password=\"" + jaasEscape(target.sasl().password().resolve()) + "\";");
        }
        props.putAll(target.discoveryProperties());
        return props;
    }

    private static String jaasEscape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
