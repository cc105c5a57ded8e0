package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.bridge.auth.JwtAuthenticator;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.bridge.server.BridgeServer;
import io.sluice.bridge.web.StaticContent;
import io.sluice.cli.ExitCodes;
import io.sluice.cli.UntilStopped;
import io.sluice.tls.SslContexts;

/** {@code sluice bridge --config FILE}: runs a bridge node until stopped; with {@code --validate}, only checks the file. */
@Command(name = "bridge", description = "Run a WebSocket bridge node until SIGTERM or Ctrl-C.")
public final class BridgeCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", required = true,
            description = "The bridge configuration (YAML with $${VAR} environment references; see docs/bridge.md).")
    Path config;

    @Option(names = "--validate", description = "Check the configuration as start-up would (environment references, every field,"
            + " the JWT keys, the TLS material), print 'valid' or each problem naming its field, and exit: 0 valid, 2 invalid."
            + " Binds no port, connects to no broker or JWKS endpoint.")
    boolean validate;

    @Override
    public Integer call() throws Exception {
        BridgeConfig loaded = BridgeConfigLoader.load(config);
        JwtAuthenticator authenticator = JwtAuthenticator.forBridge(loaded);
        if (validate) {
            authenticator.close();
            validateTls(loaded);
            BridgeServer.checkFormats(loaded);
            System.out.println("valid");
            return ExitCodes.OK;
        }
        BridgeServer server;
        try {
            server = BridgeServer.start(loaded, authenticator, StaticContent.fromClasspath(StaticContent.CLIENT_JS));
        } catch (RuntimeException e) {
            authenticator.close();
            throw e;
        }
        UntilStopped.serve(() -> {
            server.close();
            authenticator.close();
        }, "sluice-bridge");
        return ExitCodes.OK;
    }

    /** The listener's TLS material, loaded as {@link BridgeServer} loads it before it binds. */
    private static void validateTls(BridgeConfig config) {
        if (config.server().tls() != null) {
            SslContexts.forServer(config.server().tls(), "server.tls");
        }
    }
}
