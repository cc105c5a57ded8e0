package io.sluice.filter.records;

import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One Produce partition a filter answers itself, as a broker answers a partition whose records it refuses, while the
 * request's other partitions may still go to the broker. The answers are added to the broker's response (or make the
 * whole response when nothing is left to forward): the one home of that step for every filter that refuses partitions.
 *
 * @param topic   the name the client used (empty when it named the topic by id only)
 * @param topicId the id the client used, or {@link Uuid#ZERO_UUID}
 * @param message for the client (Produce v8+ carries it), or null; never record contents
 * @param record  the record that made the partition refused, for Produce v8+'s {@code record_errors}; null for none
 */
public record ProduceRefusal(String topic, Uuid topicId, int partition, Errors error, String message, RecordError record) {

    /**
     * A record a broker would name in {@code record_errors}: kafka-clients fails that record with the partition's
     * error and {@code message}, and the batch's other records with a note that their batch held an invalid one.
     *
     * @param index   the record's position among the partition's records, from 0
     * @param message for the client; never record contents
     */
    public record RecordError(int index, String message) {
    }

    public ProduceRefusal {
        topicId = topicId == null ? Uuid.ZERO_UUID : topicId;
    }

    public ProduceRefusal(String topic, Uuid topicId, int partition, Errors error, String message) {
        this(topic, topicId, partition, error, message, null);
    }

    /** Adds each refusal to {@code response}, under the topic entry of the same name and id, made where missing. */
    public static void addAll(ProduceResponseData response, List<ProduceRefusal> refusals) {
        for (ProduceRefusal r : refusals) {
            ProduceResponseData.TopicProduceResponse topic = null;
            for (ProduceResponseData.TopicProduceResponse t : response.responses()) {
                if (t.name().equals(r.topic()) && t.topicId().equals(r.topicId())) {
                    topic = t;
                    break;
                }
            }
            if (topic == null) {
                topic = new ProduceResponseData.TopicProduceResponse().setName(r.topic()).setTopicId(r.topicId());
                response.responses().add(topic);
            }
            ProduceResponseData.PartitionProduceResponse partition = new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(r.partition())
                    .setErrorCode(r.error().code())
                    .setErrorMessage(r.message())
                    .setBaseOffset(-1)
                    .setLogAppendTimeMs(-1)
                    .setLogStartOffset(-1);
            if (r.record() != null) {
                partition.recordErrors().add(new ProduceResponseData.BatchIndexAndErrorMessage()
                        .setBatchIndex(r.record().index()).setBatchIndexErrorMessage(r.record().message()));
            }
            topic.partitionResponses().add(partition);
        }
    }
}
