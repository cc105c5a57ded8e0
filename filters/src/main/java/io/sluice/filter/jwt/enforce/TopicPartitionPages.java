package io.sluice.filter.jwt.enforce;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.FilterContext;

/**
 * DescribeTopicPartitions for a principal that may not describe every topic. The broker pages its answer by
 * partitions and names where the next page starts ({@code nextCursor}); left as it is, that cursor names a topic
 * the principal may not see whenever a page ends inside one, and a page holding fewer partitions than asked for
 * tells how many partitions hidden topics have. So the proxy builds each page itself from the broker's: topics
 * the principal may not describe are left out (or answered TOPIC_AUTHORIZATION_FAILED when asked for by name),
 * and while the page has room or the cursor names such a topic, the proxy reads on from that cursor. The page
 * it returns holds as many describable partitions as the client asked for, and its cursor, if any, names a
 * describable topic.
 */
final class TopicPartitionPages {

    /** Partitions per page the proxy asks for when it reads on: Kafka's default max.request.partition.size.limit. */
    static final int READ_ON_LIMIT = 2000;
    /**
     * Pages the proxy reads on for one client page before it gives up (and the connection is closed): at
     * {@link #READ_ON_LIMIT} partitions each, only a cluster with this many thousands of hidden partitions in a
     * row reaches it.
     */
    static final int MAX_READ_ON = 50;

    private static final short TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED.code();

    private final Access access;
    private final Set<String> asked;
    private final int budget;
    private final DescribeTopicPartitionsRequestData request;
    private final short version;
    private final FilterContext context;
    private final Map<String, DescribeTopicPartitionsResponseTopic> page = new LinkedHashMap<>();
    private final Set<String> denied = new HashSet<>();
    private int partitions;
    private int readOn;

    private TopicPartitionPages(DescribeTopicPartitionsRequestData request, short version, Access access, FilterContext context) {
        this.access = access;
        this.asked = new HashSet<>();
        request.topics().forEach(t -> asked.add(t.name()));
        // The broker caps a page at max.request.partition.size.limit (default 2000); so does the proxy, so that a
        // client asking for more cannot make it read the whole cluster for one request.
        this.budget = Math.min(Math.max(1, request.responsePartitionLimit()), READ_ON_LIMIT);
        this.request = request.duplicate();
        this.version = version;
        this.context = context;
    }

    static Decision describe(short version, DescribeTopicPartitionsRequestData request, Access access, FilterContext context) {
        if (access.admin()) {
            return Decision.FORWARD;
        }
        TopicPartitionPages pages = new TopicPartitionPages(request, version, access, context);
        return Decision.forward(response -> pages.build((DescribeTopicPartitionsResponseData) response));
    }

    private CompletionStage<Void> build(DescribeTopicPartitionsResponseData response) {
        return absorb(response).thenAccept(cursor -> {
            response.topics().clear();
            page.values().forEach(response.topics()::add);
            response.setNextCursor(cursor);
        });
    }

    /** Takes in one broker page; completes with the cursor of the client's page, reading on as needed. */
    private CompletionStage<Cursor> absorb(DescribeTopicPartitionsResponseData brokerPage) {
        for (DescribeTopicPartitionsResponseTopic topic : brokerPage.topics()) {
            if (topic.name() != null && !access.describe(topic.name())) {
                deny(topic);
                continue;
            }
            DescribeTopicPartitionsResponseTopic kept = page.get(topic.name());
            if (kept == null) {
                if (partitions >= budget && !topic.partitions().isEmpty()) {
                    return done(topic.name(), topic.partitions().get(0).partitionIndex());
                }
                kept = topic.duplicate();
                kept.partitions().clear();
                page.put(topic.name(), kept);
            }
            for (DescribeTopicPartitionsResponsePartition partition : topic.partitions()) {
                if (partitions >= budget) {
                    return done(topic.name(), partition.partitionIndex());
                }
                kept.partitions().add(partition.duplicate());
                partitions++;
            }
        }
        Cursor next = brokerPage.nextCursor();
        if (next == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (partitions >= budget && access.describe(next.topicName())) {
            return CompletableFuture.completedFuture(next.duplicate());
        }
        if (++readOn > MAX_READ_ON) {
            return CompletableFuture.failedFuture(new IllegalStateException("DescribeTopicPartitions: more than " + MAX_READ_ON
                    + " pages of topics the principal may not describe in a row"));
        }
        DescribeTopicPartitionsRequestData more = request.duplicate()
                .setResponsePartitionLimit(READ_ON_LIMIT)
                .setCursor(new DescribeTopicPartitionsRequestData.Cursor().setTopicName(next.topicName()).setPartitionIndex(next.partitionIndex()));
        return context.<DescribeTopicPartitionsResponseData> sendRequest(new RequestHeaderData().setRequestApiVersion(version), more)
                .thenCompose(this::absorb);
    }

    /** A topic asked for by name is answered as refused, once; one the principal did not name is left out. */
    private void deny(DescribeTopicPartitionsResponseTopic topic) {
        if (asked.contains(topic.name()) && denied.add(topic.name())) {
            page.put(topic.name(), new DescribeTopicPartitionsResponseTopic()
                    .setName(topic.name())
                    .setErrorCode(TOPIC_DENIED)
                    .setTopicId(Uuid.ZERO_UUID)
                    .setIsInternal(false)
                    .setTopicAuthorizedOperations(Integer.MIN_VALUE));
        }
    }

    private static CompletionStage<Cursor> done(String topic, int partition) {
        return CompletableFuture.completedFuture(new Cursor().setTopicName(topic).setPartitionIndex(partition));
    }
}
