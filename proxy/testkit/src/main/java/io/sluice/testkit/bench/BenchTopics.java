package io.sluice.testkit.bench;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Creates a benchmark's topic on the broker itself: a proxy in front of it may rightly refuse CreateTopics (KeyRouting
 * does), and a benchmark must not depend on what it measures.
 */
public final class BenchTopics {

    private BenchTopics() {
    }

    /**
     * @throws ExecutionException with the broker's error as its cause, e.g. {@code TopicExistsException}
     */
    public static void create(String brokerBootstrap, String topic, int partitions)
            throws ExecutionException, InterruptedException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokerBootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }
}
