package io.sluice.app.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.sluice.bench.targets.DemoProxyConfig;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.server.ProxyServer;
import io.sluice.testkit.LocalKafka;

/**
 * What {@link DemoCommand} runs, apart from it because the broker it starts is in {@code lib-extra/}: picocli reflects
 * on every command's methods at start-up (lambdas included), so the command class names none of the broker's types
 * and {@code sluice proxy} starts without them.
 */
final class LocalDemo {

    private LocalDemo() {
    }

    static int run(DemoCommand command) throws Exception {
        System.out.println("Starting a single-node Kafka broker (KRaft) from the Maven Central jars...");
        LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults());
        List<DemoPart> parts = new ArrayList<>();
        ServiceLoader.load(DemoPart.class).forEach(parts::add);
        ProxyServer proxy;
        try {
            proxy = ProxyServer.start(ProxyConfigLoader.parse(DemoProxyConfig.yaml(kafka.bootstrapServers(), command.bootstrap, command.managementPort) + DemoCommand.filtersYaml(parts), Map.of()));
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
        // Parts first (they use the proxy), then the proxy, then Kafka.
        Runnable stop = () -> {
            for (int i = parts.size() - 1; i >= 0; i--) {
                try {
                    parts.get(i).close();
                } catch (RuntimeException e) {
                    System.err.println("sluice demo: stopping " + parts.get(i).getClass().getSimpleName() + ": " + e);
                }
            }
            proxy.close();
            kafka.close();
        };
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            List<String> roundTrip = DemoCommand.selfCheck(command.bootstrap);
            System.out.println();
            System.out.println("Sluice demo is running.");
            System.out.println("  Kafka broker (real, hidden behind the proxy): " + kafka.bootstrapServers() + "  log: " + kafka.logFile());
            System.out.println("  Sluice proxy bootstrap:                       " + command.bootstrap + "  (broker node N on the port after it + N)");
            System.out.println("  Metrics, health, readiness:                   http://127.0.0.1:" + proxy.managementPort() + "/metrics  /healthz  /readyz");
            System.out.println("  Self-check through the proxy:                 produced and read back " + roundTrip + " on topic '" + DemoCommand.TOPIC + "'");
            System.out.println();
            System.out.println("Point any Kafka client at the proxy by changing only bootstrap.servers, e.g.:");
            System.out.println("  kafka-console-producer.sh --bootstrap-server " + command.bootstrap + " --topic " + DemoCommand.TOPIC);
            System.out.println("  kafka-console-consumer.sh --bootstrap-server " + command.bootstrap + " --topic " + DemoCommand.TOPIC + " --from-beginning");
            System.out.println("  kcat -b " + command.bootstrap + " -L      # every broker listed is a proxy address");
            for (DemoPart part : parts) {
                System.out.println();
                part.show(new DemoPart.Demo(kafka.bootstrapServers(), command.bootstrap), System.out);
            }
            if (command.check) {
                return 0;
            }
            System.out.println();
            System.out.println("Press Ctrl-C to stop.");
            CountDownLatch done = new CountDownLatch(1);
            // Ctrl-C: the JVM exits once its shutdown hooks return, so the hook waits for the cleanup below.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                done.countDown();
                try {
                    stopped.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "sluice-demo-stop"));
            done.await();
            return 0;
        } finally {
            stop.run();
            stopped.countDown();
        }
    }
}
