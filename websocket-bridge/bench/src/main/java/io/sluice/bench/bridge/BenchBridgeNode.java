package io.sluice.bench.bridge;

import java.nio.file.Path;
import java.time.Duration;

import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.bridge.server.BridgeServer;
import io.sluice.cli.UntilStopped;

/**
 * The main class of the bridge child process that {@code sluice bench bridge} starts ({@link LocalBridge}): a normal
 * {@link BridgeServer} from a normal configuration file, authenticating with {@link BenchOnlyAuthenticator}. Not a
 * command of {@link io.sluice.app.cli.SluiceCommand}, so the launcher cannot start it; the token comes in the environment, never on
 * the command line where {@code ps} would show it.
 */
public final class BenchBridgeNode {

    static final String TOKEN_ENV = "SLUICE_BENCH_TOKEN";

    private BenchBridgeNode() {
    }

    /** @param args the configuration file and the one topic the bench token may read */
    public static void main(String[] args) throws Exception {
        BridgeConfig config = BridgeConfigLoader.load(Path.of(args[0]));
        BridgeServer server = BridgeServer.start(config, new BenchOnlyAuthenticator(System.getenv(TOKEN_ENV), args[1]));
        if (!server.awaitReading(Duration.ofSeconds(60))) {
            server.close();
            throw new IllegalStateException("the bridge's Kafka reader did not start within 60 s");
        }
        UntilStopped.serve(server, "sluice-bench-bridge");
    }
}
