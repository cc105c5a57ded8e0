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
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The one way tests create topics (docs/testing.md, "Creating topics"). CreateTopics returns once the controller has
 * committed the topics; each broker applies that to its own metadata a moment later, so a describe, a produce or a
 * fetch sent right after it can still be answered UNKNOWN_TOPIC_OR_PARTITION or find no leader. These return only
 * once the topics are usable: described with every partition's leader known, every partition's leader answering a
 * ListOffsets for it (that broker serves it), and every broker of the cluster knowing every partition. A broker is
 * asked directly with a DescribeProducers addressed to it (the one request a client can address to a broker of its
 * choice that names partitions): a failure means its metadata lacks the partition yet (UNKNOWN_TOPIC_OR_PARTITION,
 * or, as kafka-clients 4.2 reports a partition the broker does not know, a timeout "waiting for a node assignment");
 * an answer, or NOT_LEADER_OR_FOLLOWER from a broker that holds no replica, means it has it. A client whose next request goes to
 * any broker (a consumer's coordinator lookup, a metadata refresh through the proxy) then finds the topic there too.
 */
public final class Topics {

    /** Generous for a busy machine: the wait normally ends within milliseconds. */
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** How long one broker is asked (the admin client retries within it) before the next round. */
    private static final int PROBE_MS = 1000;

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
    public static Map<String, TopicDescription> createTopics(Map<String, ?> adminConfig, Collection<NewTopic> topics) throws Exception {
        try (Admin admin = Admin.create(new HashMap<String, Object>(adminConfig))) {
            return createTopics(admin, topics);
        }
    }

    /** As {@link #createTopic(Admin, String, int)} through an admin client of its own with this configuration. */
    public static String createTopic(Map<String, ?> adminConfig, String name, int partitions) throws Exception {
        createTopics(adminConfig, List.of(new NewTopic(name, partitions, (short) 1)));
        return name;
    }

    /** Creates {@code topic} as given (partitions, replication factor, configs) through an admin client of its own; its name. */
    public static String createTopic(Map<String, ?> adminConfig, NewTopic topic) throws Exception {
        createTopics(adminConfig, List.of(topic));
        return topic.name();
    }

    /** As {@link #createTopics(Admin, String...)} through an admin client of its own with this configuration. */
    public static void createTopics(Map<String, ?> adminConfig, String... names) throws Exception {
        createTopics(adminConfig, Arrays.stream(names).map(name -> new NewTopic(name, 1, (short) 1)).toList());
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
                    if (everyBrokerKnows(admin, latest.keySet())) {
                        return described;
                    }
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
                + (last == null ? " (a partition had no leader, or a broker did not know it)" : ": " + last.getCause()));
    }

    /** Whether every broker's metadata has every one of {@code partitions} (see the class comment). */
    private static boolean everyBrokerKnows(Admin admin, Set<TopicPartition> partitions) throws Exception {
        for (Node node : admin.describeCluster().nodes().get(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            DescribeProducersResult result = admin.describeProducers(partitions,
                    new DescribeProducersOptions().brokerId(node.id()).timeoutMs(PROBE_MS));
            for (TopicPartition partition : partitions) {
                if (!known(result.partitionResult(partition))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean known(KafkaFuture<?> answer) throws InterruptedException {
        try {
            answer.get();
            return true;
        } catch (ExecutionException e) {
            // A follower or a broker without a replica knows the partition; one that may not say (no Read on the topic,
            // an old broker) cannot be told apart, and the leader's ListOffsets already answered for it.
            return e.getCause() instanceof NotLeaderOrFollowerException || e.getCause() instanceof TopicAuthorizationException
                    || e.getCause() instanceof UnsupportedVersionException;
        }
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
