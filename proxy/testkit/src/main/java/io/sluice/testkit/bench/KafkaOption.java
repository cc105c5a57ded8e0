package io.sluice.app.bench;

import picocli.CommandLine.Option;

/** {@code --kafka BOOTSTRAP} of the benches that start their own broker unless told to use a running one. */
public final class KafkaOption {

    @Option(names = "--kafka", paramLabel = "BOOTSTRAP", defaultValue = "${env:KAFKA_BOOTSTRAP}",
            description = "A running Kafka to use, whose topics the run creates and leaves (default: $KAFKA_BOOTSTRAP when set, "
                    + "else a broker of the run's own in a child JVM, stopped after it).")
    String bootstrap;

    /** The named cluster's bootstrap servers, or null when the run starts its own. */
    public String given() {
        return bootstrap == null || bootstrap.isBlank() ? null : bootstrap.trim();
    }

    public BenchKafka open() throws Exception {
        return BenchKafka.open(given());
    }
}
