package io.sluice.testkit.bench;

import java.util.OptionalLong;

import io.sluice.testkit.LocalKafka;

/**
 * The Kafka a bench run uses: a running cluster the user named ({@code --kafka}, or {@code KAFKA_BOOTSTRAP}), or a
 * broker of its own, started in a child JVM for the run and stopped after it. The benches create their topics on it
 * and never delete anything, so a named cluster keeps what the runs wrote.
 */
public final class BenchKafka implements AutoCloseable {

    private final LocalKafka own;
    private final String bootstrap;

    private BenchKafka(LocalKafka own, String bootstrap) {
        this.own = own;
        this.bootstrap = bootstrap;
    }

    /** @param given the bootstrap servers of a running cluster; null or blank: start one */
    public static BenchKafka open(String given) throws Exception {
        if (given == null || given.isBlank()) {
            LocalKafka local = LocalKafka.start(LocalKafka.Options.defaults());
            return new BenchKafka(local, local.bootstrapServers());
        }
        return new BenchKafka(null, given.trim());
    }

    public String bootstrapServers() {
        return bootstrap;
    }

    /** The broker's process when the bench started it (for pinning and the run's figures); empty for a named cluster. */
    public OptionalLong ownPid() {
        return own == null ? OptionalLong.empty() : OptionalLong.of(own.pid());
    }

    /** One line for the run's output. */
    public String describe() {
        return own == null ? "Kafka at " + bootstrap + " (given)" : "Kafka pid " + own.pid() + " at " + bootstrap;
    }

    @Override
    public void close() {
        if (own != null) {
            own.close();
        }
    }
}
