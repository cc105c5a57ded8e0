package io.sluice.bench.bridge.scenario;

import java.util.List;
import java.util.Map;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.bridge.OwnBridge;
import io.sluice.cli.KafkaOption;

/**
 * How the bridge scenarios that start one bridge open their clients and start that bridge: the same knobs, with the
 * same defaults, as {@code bench bridge}. (The failover scenario has its own: its nodes are several and smaller.)
 */
public final class BridgeLoadOptions {

    @Option(names = "--connect-rate", paramLabel = "N", defaultValue = "2000", description = "New connections per second (default: ${DEFAULT-VALUE}).")
    int connectRate;

    @Option(names = "--per-address", paramLabel = "N", defaultValue = "10000",
            description = "Connections per loopback source address (default: ${DEFAULT-VALUE}).")
    int perAddress;

    @Option(names = "--client-threads", paramLabel = "N", defaultValue = "2", description = "Client event-loop threads of each load (default: ${DEFAULT-VALUE}).")
    int clientThreads;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "4", description = "Partitions of the topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--bridge-jvm", paramLabel = "OPTIONS", defaultValue = "-Xmx2g -XX:+UseParallelGC",
            description = "The bridge JVM's options (default: ${DEFAULT-VALUE}).")
    String bridgeJvm;

    @Option(names = "--topic", paramLabel = "NAME", defaultValue = "bench",
            description = "The topic the load goes through, created if missing (default: ${DEFAULT-VALUE}).")
    String topic;

    @Mixin
    KafkaOption kafka;

    /** The bench's own bridge, on its own Kafka or the given one, as these options say. */
    OwnBridge ownBridge() {
        return new OwnBridge(topic, partitions, 0, "auto", Map.of(), List.of(bridgeJvm.trim().split("\\s+")), false, kafka.given());
    }
}
