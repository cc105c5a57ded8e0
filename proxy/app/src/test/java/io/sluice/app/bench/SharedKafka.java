package io.sluice.app.bench;

import java.util.concurrent.atomic.AtomicInteger;

import io.sluice.testkit.LocalKafka;

/**
 * One broker (a child JVM, as the benches start theirs) for the bench tests of this test JVM, passed to the commands
 * with {@code --kafka}: starting and stopping a broker per run was most of a tiny run's time. Each run gets a topic of
 * its own ({@link #topic}); the broker stops when the JVM exits. What a bench does with a broker of its own is still
 * tested by the runs that leave out {@code --kafka}.
 */
public final class SharedKafka {

    private static final AtomicInteger TOPICS = new AtomicInteger();
    private static LocalKafka kafka;

    private SharedKafka() {
    }

    public static synchronized String bootstrap() throws Exception {
        if (kafka == null) {
            kafka = LocalKafka.start(LocalKafka.Options.defaults());
            LocalKafka started = kafka;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "shared-kafka-stop"));
        }
        return kafka.bootstrapServers();
    }

    /** A topic name no other run in this JVM uses. */
    public static String topic(String prefix) {
        return prefix + "-" + TOPICS.incrementAndGet();
    }
}
