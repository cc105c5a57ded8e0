package io.sluice.filter.policy;

import java.util.List;
import java.util.Map;

import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * CreatePartitions under a rule's {@link TopicPolicy}: the topic's name (may this principal change it) and the
 * partition count it asks for (the new total) against the maximum. Each topic on its own; refused ones are answered,
 * the others go on. Nothing is left to broker defaults here, so no round trip.
 */
final class PartitionCreation {

    private PartitionCreation() {
    }

    static RequestFilterResult police(RequestHeaderData header, CreatePartitionsRequestData request, Rule rule, TopicNames.Bound names,
                                      Violations violations, FilterContext context) {
        TopicPolicy policy = rule.topics();
        RefusedEntries<CreatePartitionsTopic> refused = new RefusedEntries<>();
        for (CreatePartitionsTopic topic : request.topics()) {
            Judgement judgement = new Judgement(rule);
            policy.checkName(topic.name(), names, judgement);
            policy.checkPartitionIncrease(topic.name(), topic.count(), judgement);
            violations.report(judgement, context, "CreatePartitions of " + TopicPolicy.quoted(topic.name()));
            if (judgement.refused()) {
                refused.refuse(topic, new ApiError(judgement.refusal().error(), judgement.refusal().message()));
            }
        }
        return refused.result(header, request, request.topics(), new CreatePartitionsResponseData(), PartitionCreation::addAnswers, context);
    }

    private static void addAnswers(ApiMessage response, List<Map.Entry<CreatePartitionsTopic, ApiError>> refused) {
        CreatePartitionsResponseData answer = (CreatePartitionsResponseData) response;
        for (Map.Entry<CreatePartitionsTopic, ApiError> r : refused) {
            answer.results().add(new CreatePartitionsResponseData.CreatePartitionsTopicResult().setName(r.getKey().name())
                    .setErrorCode(r.getValue().error().code()).setErrorMessage(r.getValue().message()));
        }
    }
}
