package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.List;

import io.sluice.proxy.config.ConfigLoader;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.server.ProxyServer;

/** {@code sluice proxy --config FILE}: runs the proxy until interrupted. */
public final class ProxyCommand implements Command {

    @Override
    public String name() {
        return "proxy";
    }

    @Override
    public String summary() {
        return "run the proxy: --config FILE (YAML, see docs/configuration.md)";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options options = Options.parse(args, "config");
        ProxyConfig config = ConfigLoader.load(Path.of(options.require("config")));
        UntilStopped.serve(ProxyServer.start(config), "sluice-proxy");
        return 0;
    }
}
