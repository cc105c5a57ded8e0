package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.cli.ExitCodes;
import io.sluice.cli.UntilStopped;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.server.ProxyServer;

/** {@code sluice proxy --config FILE}: runs the proxy until stopped; with {@code --validate}, only checks the file. */
@Command(name = "proxy", description = "Run the Kafka proxy until SIGTERM or Ctrl-C.")
public final class ProxyCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyCommand.class);

    @Option(names = "--config", paramLabel = "FILE", required = true,
            description = "The proxy configuration (YAML with $${VAR} environment references; see docs/configuration.md).")
    Path config;

    @Option(names = "--validate", description = "Check the configuration as start-up would (environment references, every field,"
            + " each filter's and KMS's own checks), print 'valid' or each problem naming its field, and exit: 0 valid, 2 invalid."
            + " Binds no port, connects to no broker or KMS. Warns (exit code still 0) when a filter that authenticates clients, e.g."
            + " JwtAuth, is served without TLS on an address other hosts can reach.")
    boolean validate;

    @Override
    public Integer call() throws Exception {
        ProxyConfig loaded = ProxyConfigLoader.load(config);
        if (validate) {
            ProxyServer.validate(loaded);
            // Warnings do not make the file invalid: they go to standard error, and the verdict stays "valid".
            PlaintextAuthentication.warnings(loaded).forEach(w -> System.err.println("sluice proxy: WARNING: " + w));
            System.out.println("valid");
            return ExitCodes.OK;
        }
        PlaintextAuthentication.warnings(loaded).forEach(LOG::warn);
        UntilStopped.serve(ProxyServer.start(loaded), "sluice-proxy");
        return ExitCodes.OK;
    }
}
