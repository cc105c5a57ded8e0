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
 * @param topic        the name the client used (empty when it named the topic by id only)
 * @param topicId      the id the client used, or {@link Uuid#ZERO_UUID}
 * @param message      for the client (Produce v8+ carries it), or null; never record contents
 * @param recordErrors the records that made the partition fail, by index, each with its reason (Produce v8+'s
 *                     {@code record_errors}, KIP-467: a producer's callback then says which record and why); empty when
 *                     the partition fails as a whole
 */
public record ProduceRefusal(String topic, Uuid topicId, int partition, Errors error, String message, List<RecordError> recordErrors) {

    /**
     * One refused record: its index among the partition's records in the request (counted from 0 across its batches;
     * with the one batch producers send, the index in that batch, as a broker reports it) and why.
     */
    public record RecordError(int index, String message) {
    }

    public ProduceRefusal {
        topicId = topicId == null ? Uuid.ZERO_UUID : topicId;
        recordErrors = recordErrors == null ? List.of() : List.copyOf(recordErrors);
    }

    /** A partition refused as a whole, no record named. */
    public ProduceRefusal(String topic, Uuid topicId, int partition, Errors error, String message) {
        this(topic, topicId, partition, error, message, List.of());
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
            ProduceResponseData.PartitionProduceResponse answer = new ProduceResponseData.PartitionProduceResponse()
                    .setIndex(r.partition())
                    .setErrorCode(r.error().code())
                    .setErrorMessage(r.message())
                    .setBaseOffset(-1)
                    .setLogAppendTimeMs(-1)
                    .setLogStartOffset(-1);
            // Versions before 8 have no record_errors: the field is ignorable, so it is left out when they are written.
            for (RecordError e : r.recordErrors()) {
                answer.recordErrors().add(new ProduceResponseData.BatchIndexAndErrorMessage()
                        .setBatchIndex(e.index()).setBatchIndexErrorMessage(e.message()));
            }
            topic.partitionResponses().add(answer);
        }
    }
}
