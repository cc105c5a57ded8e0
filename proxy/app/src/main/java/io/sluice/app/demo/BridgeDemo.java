package io.sluice.app.demo;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import io.sluice.bridge.auth.JwtAuthenticator;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.bridge.server.BridgeServer;
import io.sluice.bridge.web.StaticContent;

/**
 * The demo's bridge part: live scores produced into the topic {@code scores} through the demo proxy, a bridge node on
 * 127.0.0.1:8080 reading them through the proxy, and two pages it serves: {@code /} (every endpoint updating) and
 * {@code /recovery.html} (disconnect, reconnect, see what was recovered). The pages get their token from
 * {@code /demo-token.json}, minted in-process by {@link DemoTokens}: demo only.
 */
public final class BridgeDemo implements DemoPart {

    static final String PAGES = "io/sluice/app/demo";
    private static final Duration TOKEN_LIFETIME = Duration.ofMinutes(2);

    private final String listen;
    private LiveScores scores;
    private JwtAuthenticator authenticator;
    private BridgeServer bridge;

    /** For ServiceLoader: the bridge on 127.0.0.1:8080. */
    public BridgeDemo() {
        this("127.0.0.1:8080");
    }

    /** @param listen host:port for the bridge; port 0 picks a free one (tests) */
    public BridgeDemo(String listen) {
        this.listen = listen;
    }

    @Override
    public void show(Demo demo, PrintStream out) throws Exception {
        createTopic(demo.proxyBootstrap());
        scores = new LiveScores(demo.proxyBootstrap());
        scores.start(700);
        DemoTokens tokens = new DemoTokens(TOKEN_LIFETIME);
        authenticator = JwtAuthenticator.create(tokens.config());
        BridgeConfig config = BridgeConfigLoader.parse("""
                server:
                  listen: "%s"
                  nodeName: demo-bridge
                kafka:
                  bootstrapServers: "%s"
                topics: %s
                auth:
                  expiryWarning: 30s
                management:
                  enabled: false
                """.formatted(listen, demo.proxyBootstrap(), LiveScores.TOPIC), Map.of());
        StaticContent pages = StaticContent.fromClasspath(PAGES, StaticContent.CLIENT_JS)
                .withGenerated("/demo-token.json", "application/json",
                        () -> ("{\"token\":\"" + tokens.mint() + "\"}").getBytes(StandardCharsets.UTF_8));
        bridge = BridgeServer.start(config, authenticator, pages);
        // Pages opened right away should find the scores: wait until the reader knows where it starts.
        if (!bridge.awaitReading(Duration.ofSeconds(60))) {
            throw new IllegalStateException("the demo bridge could not start reading '" + LiveScores.TOPIC + "' through the proxy");
        }
        String base = "http://" + config.server().listen().host() + ":" + bridge.port();
        out.println("WebSocket bridge: live scores (topic '" + LiveScores.TOPIC + "', produced and read through the proxy)");
        out.println("  Live page:      " + base + "/              endpoints /scores/live/<sport>, /scores/<match-id>, /scores/results");
        out.println("  Recovery page:  " + base + "/recovery.html  disconnect, reconnect, see the missed messages arrive");
        out.println("  WebSocket:      ws://" + config.server().listen().host() + ":" + bridge.port() + "/ws");
        out.println("  Tokens (demo only): " + base + "/demo-token.json, HS256 with a secret made at start; use your identity provider in production");
    }

    /** The bound port, once {@link #show} ran. */
    public int port() {
        return bridge.port();
    }

    private static void createTopic(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(LiveScores.TOPIC, 3, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        if (bridge != null) {
            bridge.close();
        }
        if (authenticator != null) {
            authenticator.close();
        }
        if (scores != null) {
            scores.close();
        }
    }
}
