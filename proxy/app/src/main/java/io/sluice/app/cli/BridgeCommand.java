package io.sluice.bridge.server;

import java.nio.file.Path;
import java.util.List;

import io.sluice.bridge.auth.JwtAuthenticator;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.bridge.web.StaticContent;
import io.sluice.proxy.cli.Command;
import io.sluice.proxy.cli.Options;
import io.sluice.proxy.cli.UntilStopped;
import io.sluice.proxy.config.ConfigException;

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
        JwtAuthenticator authenticator = authenticator(config);
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

    /** Every client authenticates with a JWT; a node without {@code auth.jwt} would serve anyone, so it does not start. */
    static JwtAuthenticator authenticator(BridgeConfig config) {
        if (config.auth().jwt() == null) {
            throw new ConfigException("auth.jwt: is required (the bridge authenticates every client with a JWT)");
        }
        try {
            return JwtAuthenticator.create(config.auth().jwt());
        } catch (IllegalArgumentException e) {
            // Key files are read here, after the config was validated; say which section they belong to.
            throw new ConfigException("auth.jwt." + e.getMessage());
        }
    }
}
