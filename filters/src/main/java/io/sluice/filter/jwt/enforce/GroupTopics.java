package io.sluice.filter.jwt.enforce;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;

/**
 * The topic names a described group holds: its members' subscriptions and assignments, a streams group's
 * topology. A group may have members of other principals, so a principal allowed to use the group may still
 * not be allowed to see every topic its members use; such a group is answered TOPIC_AUTHORIZATION_FAILED as
 * a whole, as Kafka's own authorizer does for ConsumerGroupDescribe, rather than with the names redacted (a
 * partial assignment would mislead tools that sum up lag or partitions).
 */
final class GroupTopics {

    private GroupTopics() {
    }

    /** The first topic of the group the principal may not describe, or null. */
    static String hidden(ConsumerGroupDescribeResponseData.DescribedGroup group, Access access) {
        List<String> names = new ArrayList<>();
        for (ConsumerGroupDescribeResponseData.Member m : group.members()) {
            names.addAll(m.subscribedTopicNames());
            for (ConsumerGroupDescribeResponseData.Assignment a : List.of(m.assignment(), m.targetAssignment())) {
                a.topicPartitions().forEach(tp -> names.add(tp.topicName()));
            }
        }
        return firstHidden(names, access);
    }

    static String hidden(ShareGroupDescribeResponseData.DescribedGroup group, Access access) {
        List<String> names = new ArrayList<>();
        for (ShareGroupDescribeResponseData.Member m : group.members()) {
            names.addAll(m.subscribedTopicNames());
            m.assignment().topicPartitions().forEach(tp -> names.add(tp.topicName()));
        }
        return firstHidden(names, access);
    }

    static String hidden(StreamsGroupDescribeResponseData.DescribedGroup group, Access access) {
        if (group.topology() == null || group.topology().subtopologies() == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (StreamsGroupDescribeResponseData.Subtopology s : group.topology().subtopologies()) {
            names.addAll(s.sourceTopics());
            names.addAll(s.repartitionSinkTopics());
            s.stateChangelogTopics().forEach(t -> names.add(t.name()));
            s.repartitionSourceTopics().forEach(t -> names.add(t.name()));
        }
        return firstHidden(names, access);
    }

    /**
     * A classic group of protocol type {@code consumer} carries its members' subscriptions and assignments in
     * the consumer protocol's own format; other protocol types (Connect, ...) carry no topic names there. Bytes
     * of a {@code consumer} group that do not parse are treated as naming a hidden topic: they cannot be checked.
     */
    static String hidden(DescribeGroupsResponseData.DescribedGroup group, Access access) {
        if (!ConsumerProtocol.PROTOCOL_TYPE.equals(group.protocolType())) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (DescribeGroupsResponseData.DescribedGroupMember m : group.members()) {
            try {
                if (m.memberMetadata() != null && m.memberMetadata().length > 0) {
                    ConsumerProtocolSubscription subscription = ConsumerProtocol.deserializeConsumerProtocolSubscription(ByteBuffer.wrap(m.memberMetadata()));
                    names.addAll(subscription.topics());
                    subscription.ownedPartitions().forEach(tp -> names.add(tp.topic()));
                }
                if (m.memberAssignment() != null && m.memberAssignment().length > 0) {
                    ConsumerProtocolAssignment assignment = ConsumerProtocol.deserializeConsumerProtocolAssignment(ByteBuffer.wrap(m.memberAssignment()));
                    assignment.assignedPartitions().forEach(tp -> names.add(tp.topic()));
                }
            } catch (RuntimeException e) {
                return "(member " + m.memberId() + "'s unreadable subscription or assignment)";
            }
        }
        return firstHidden(names, access);
    }

    private static String firstHidden(List<String> names, Access access) {
        for (String name : names) {
            // An assignment entry whose topic the broker could not name (deleted) names nothing.
            if (name != null && !name.isEmpty() && !access.describe(name)) {
                return name;
            }
        }
        return null;
    }
}
