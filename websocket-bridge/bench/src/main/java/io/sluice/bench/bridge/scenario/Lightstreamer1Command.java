package io.sluice.bench.bridge.scenario;

import java.io.PrintStream;
import java.util.List;

import picocli.CommandLine.Command;

import io.sluice.results.scenario.Seed;

/** Lightstreamer's scenario 1: one 1 KiB record stream at 4 msg/s, every client receiving every record. */
@Command(name = "lightstreamer-1", description = {"Lightstreamer Kafka Connector benchmark, scenario 1 (seed 003): 1 KiB records at 4 msg/s, "
        + "every client receives every record; swept over client counts, reported as the seed's latency table."})
public final class Lightstreamer1Command extends LightstreamerSweep {

    public Lightstreamer1Command() {
        this(System.out);
    }

    Lightstreamer1Command(PrintStream out) {
        super(out);
    }

    @Override
    String name() {
        return "lightstreamer-1";
    }

    @Override
    Seed seed() {
        return new Seed(SEED_FILE, "Lightstreamer Kafka Connector benchmark, scenario 1",
                "one 2-core machine runs Kafka, the bridge and the clients over loopback (the seed: Kafka and the connector on a c7i.xlarge each,"
                        + " 4 vCPU, clients on several c7i.2xlarge over a real network); at most 18,000 clients (open-file limit 20,000 per"
                        + " process; the seed went to 50,000); the records are keyed by the one endpoint every client subscribes to (the"
                        + " seed's are unkeyed); latency here is the producer's scheduled send time to the frame read, on one clock");
    }

    @Override
    int endpoints() {
        return 1;
    }

    @Override
    double ratePerEndpoint() {
        return 4;
    }

    @Override
    List<Integer> defaultClients() {
        return List.of(1_000, 2_000, 4_000, 8_000, 14_000, 16_000, 18_000);
    }

    @Override
    List<Published> published() {
        return List.of(new Published(1_000, "10 (17)", "-"), new Published(2_000, "16 (15)", "-"), new Published(4_000, "27 (17)", "-"),
                new Published(8_000, "33 (21)", "-"), new Published(14_000, "52 (21)", "-"), new Published(16_000, "91 (37)", "-"),
                new Published(18_000, "144 (34)", "-"), new Published(20_000, "128 (147)", "-"), new Published(32_000, "158 (71)", "-"),
                new Published(40_000, "252 (87)", "-"), new Published(50_000, "787 (226)", "-"));
    }
}
