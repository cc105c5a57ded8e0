package io.sluice.filter.records;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.MemoryRecords;

/**
 * The partitions of a response that carries records to a client, seen one way whichever it is: Fetch, or ShareFetch
 * (KIP-932 share groups, on by default from Kafka 4.2). Every API that delivers records must be decrypted (and masked), or a client
 * using the other one would get ciphertext as if it were the value.
 */
public final class FetchedRecords {

    private FetchedRecords() {
    }

    /** One partition's records and error, to read and replace. */
    public interface Partition {
        int index();

        BaseRecords records();

        void records(MemoryRecords records);

        /** Answers the partition with {@code error} and no records. */
        void fail(Errors error);
    }

    /** A topic as the response names it: by name (older Fetch versions) or only by id. */
    public record Topic(String name, Uuid id, List<Partition> partitions) {
    }

    /** The ids of the topics named only by id (newer Fetch versions, ShareFetch), for the connection's name cache. */
    public static List<Uuid> unnamedIds(List<Topic> topics) {
        List<Uuid> ids = new ArrayList<>();
        for (Topic topic : topics) {
            if (topic.name() == null || topic.name().isEmpty()) {
                ids.add(topic.id());
            }
        }
        return ids;
    }

    /** The topics of a Fetch response; the partitions write through to the response. */
    public static List<Topic> of(FetchResponseData fetch) {
        List<Topic> topics = new ArrayList<>(fetch.responses().size());
        for (FetchResponseData.FetchableTopicResponse topic : fetch.responses()) {
            List<Partition> partitions = new ArrayList<>(topic.partitions().size());
            topic.partitions().forEach(p -> partitions.add(new View(p.partitionIndex(), p::records, p::setRecords, e -> p.setErrorCode((short) e))));
            topics.add(new Topic(topic.topic(), topic.topicId(), partitions));
        }
        return topics;
    }

    /** The topics of a ShareFetch response (by id only); the partitions write through to the response. */
    public static List<Topic> of(ShareFetchResponseData share) {
        List<Topic> topics = new ArrayList<>(share.responses().size());
        for (ShareFetchResponseData.ShareFetchableTopicResponse topic : share.responses()) {
            List<Partition> partitions = new ArrayList<>(topic.partitions().size());
            topic.partitions().forEach(p -> partitions.add(new View(p.partitionIndex(), p::records, p::setRecords, e -> p.setErrorCode((short) e))));
            topics.add(new Topic(null, topic.topicId(), partitions));
        }
        return topics;
    }

    /**
     * A partition of either response, through its own accessors (the generated classes share no interface). Records
     * withheld from a share group's partition stay acquired by its consumer until their lock times out; the broker
     * then offers them again and, after the group's delivery limit, archives them.
     */
    private record View(int index, Supplier<BaseRecords> read, Consumer<MemoryRecords> write, IntConsumer error) implements Partition {
        @Override
        public BaseRecords records() {
            return read.get();
        }

        @Override
        public void records(MemoryRecords records) {
            write.accept(records);
        }

        @Override
        public void fail(Errors code) {
            error.accept(code.code());
            write.accept(MemoryRecords.EMPTY);
        }
    }
}
