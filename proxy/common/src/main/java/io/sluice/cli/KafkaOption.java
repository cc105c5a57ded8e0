package io.sluice.cli;

import picocli.CommandLine.Option;

/**
 * {@code --kafka BOOTSTRAP} of the benches that start their own broker unless told to use a running one; the bench
 * opens it with {@code io.sluice.testkit.bench.BenchKafka.open(given())}. Here, not in the test kit, because picocli
 * reads every command's options when the launcher starts, also where lib-extra/ (the test kit, the broker) is absent.
 */
public final class KafkaOption {

    @Option(names = "--kafka", paramLabel = "BOOTSTRAP", defaultValue = "${env:KAFKA_BOOTSTRAP}",
            description = "A running Kafka to use, whose topics the run creates and leaves (default: $KAFKA_BOOTSTRAP when set, "
                    + "else a broker of the run's own in a child JVM, stopped after it).")
    String bootstrap;

    /** The named cluster's bootstrap servers, or null when the run starts its own. */
    public String given() {
        return bootstrap == null || bootstrap.isBlank() ? null : bootstrap.trim();
    }
}
