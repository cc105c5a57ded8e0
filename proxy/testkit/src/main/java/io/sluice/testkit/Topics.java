package io.sluice.testkit;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The one way tests create topics (docs/testing.md, "Creating topics"). CreateTopics returns once the controller has
 * committed the topics; each broker applies that to its own metadata a moment later, so a describe, a produce or a
 * fetch sent right after it can still be answered UNKNOWN_TOPIC_OR_PARTITION or find no leader. These return only
 * once the topics are usable: described with every partition's leader known, and every partition's leader answering
 * a ListOffsets for it (that broker has the partition in its metadata and serves it). On the one-broker clusters most
 * tests run, that is every broker.
 */
public final class Topics {

    /** Generous for a busy machine: the wait normally ends within milliseconds. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    private Topics() {
    }

    /** Creates {@code name} with {@code partitions} partitions and replication factor 1; returns the name. */
    public static String createTopic(Admin admin, String name, int partitions) throws Exception {
        createTopics(admin, List.of(new NewTopic(name, partitions, (short) 1)));
        return name;
    }

    /** Creates each topic with one partition and replication factor 1. */
    public static void createTopics(Admin admin, String... names) throws Exception {
        createTopics(admin, Arrays.stream(names).map(name -> new NewTopic(name, 1, (short) 1)).toList());
    }

    /** Creates the topics as given and waits until every broker serves them; their descriptions. */
    public static Map<String, TopicDescription> createTopics(Admin admin, Collection<NewTopic> topics) throws Exception {
        admin.createTopics(topics).all().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        return awaitUsable(admin, topics.stream().map(NewTopic::name).collect(Collectors.toSet()));
    }

    /** As {@link #createTopics(Admin, Collection)} through an admin client of its own with this configuration. */
    public static Map<String, TopicDescription> createTopics(Map<String, Object> adminConfig, Collection<NewTopic> topics) throws Exception {
        try (Admin admin = Admin.create(adminConfig)) {
            return createTopics(admin, topics);
        }
    }

    /** Waits until the existing topics {@code names} are usable (see the class comment); their descriptions. */
    public static Map<String, TopicDescription> awaitUsable(Admin admin, Set<String> names) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Exception last = null;
        while (System.nanoTime() - deadline < 0) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                if (described.values().stream().allMatch(Topics::everyPartitionLed)) {
                    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                    described.values().forEach(d -> d.partitions().forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest())));
                    admin.listOffsets(latest).all().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    return described;
                }
                last = null;
            }
            catch (ExecutionException e) {
                // UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER: not there yet.
                last = e;
            }
            Thread.sleep(20);
        }
        throw new TimeoutException("topics " + names + " not usable within " + WAIT.toSeconds() + " s"
                + (last == null ? " (a partition had no leader)" : ": " + last.getCause()));
    }

    private static boolean everyPartitionLed(TopicDescription description) {
        for (TopicPartitionInfo partition : description.partitions()) {
            if (partition.leader() == null || partition.leader().isEmpty()) {
                return false;
            }
        }
        return !description.partitions().isEmpty();
    }
}
