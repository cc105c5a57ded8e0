package io.sluice.bench.bridge.scenario;

import java.io.PrintStream;
import java.util.List;

import picocli.CommandLine.Command;

import io.sluice.results.scenario.Seed;

/** Lightstreamer's scenario 2: 1 KiB records on 40 keys, 100 msg/s in all, each client subscribed to one key. */
@Command(name = "lightstreamer-2", description = {"Lightstreamer Kafka Connector benchmark, scenario 2 (seed 003): 1 KiB records on 40 keys at "
        + "100 msg/s in all, each client subscribed to one key; swept over client counts, reported as the seed's latency and throughput tables."})
public final class Lightstreamer2Command extends LightstreamerSweep {

    public Lightstreamer2Command() {
        this(System.out);
    }

    Lightstreamer2Command(PrintStream out) {
        super(out);
    }

    @Override
    String name() {
        return "lightstreamer-2";
    }

    @Override
    Seed seed() {
        return new Seed(SEED_FILE, "Lightstreamer Kafka Connector benchmark, scenario 2",
                "one 2-core machine runs Kafka, the bridge and the clients over loopback (the seed: Kafka and the connector on a c7i.xlarge each,"
                        + " 4 vCPU, clients on several c7i.2xlarge over a real network); at most 18,000 clients (open-file limit 20,000 per"
                        + " process; the seed went to 90,000); latency here is the producer's scheduled send time to the frame read, on one clock");
    }

    @Override
    int endpoints() {
        return 40;
    }

    @Override
    double ratePerEndpoint() {
        return 100.0 / 40;
    }

    @Override
    List<Integer> defaultClients() {
        return List.of(4_000, 6_000, 8_000, 10_000, 14_000, 18_000);
    }

    @Override
    List<Published> published() {
        return List.of(new Published(4_000, "8 (16)", "90M"), new Published(6_000, "12 (17)", "133.5M"), new Published(8_000, "16 (8)", "179.5M"),
                new Published(10_000, "19 (13)", "223.5M"), new Published(52_000, "24 (16)", "1.16G"), new Published(64_000, "28 (26)", "1.43G"),
                new Published(70_000, "59 (56)", "1.57G"), new Published(80_000, "67 (207)", "1.75G"), new Published(90_000, "1876 (1487)", "2.01G"));
    }
}
