package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.List;

import io.sluice.bridge.auth.JwtAuthenticator;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.bridge.server.BridgeServer;
import io.sluice.bridge.web.StaticContent;

/** {@code sluice bridge --config FILE}: runs a bridge node until interrupted. */
public final class BridgeCommand implements Command {

    @Override
    public String name() {
        return "bridge";
    }

    @Override
    public String summary() {
        return "run the WebSocket bridge: --config FILE (YAML, see docs/bridge.md)";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options options = Options.parse(args, "config");
        BridgeConfig config = BridgeConfigLoader.load(Path.of(options.require("config")));
        JwtAuthenticator authenticator = JwtAuthenticator.forBridge(config);
        BridgeServer server;
        try {
            server = BridgeServer.start(config, authenticator, StaticContent.fromClasspath(StaticContent.CLIENT_JS));
        } catch (RuntimeException e) {
            authenticator.close();
            throw e;
        }
        UntilStopped.serve(() -> {
            server.close();
            authenticator.close();
        }, "sluice-bridge");
        return 0;
    }
}
