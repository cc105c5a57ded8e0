package io.sluice.filter.validation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ProduceRequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * One connection's RecordValidation: every Produce request whose topics a rule names is checked by a
 * {@link ProduceValidation} before it goes on; a request naming none goes on untouched (topics named by id are
 * resolved first, as a rule may name them). Fetches pass: records are checked once, on their way in.
 */
final class RecordValidationFilter implements ProduceRequestFilter {

    private final RecordValidation.Shared shared;

    RecordValidationFilter(RecordValidation.Shared shared) {
        this.shared = shared;
    }

    @Override
    public CompletionStage<RequestFilterResult> onProduceRequest(short apiVersion, RequestHeaderData header, ProduceRequestData produce,
                                                                 FilterContext context) {
        List<Uuid> ids = new ArrayList<>();
        boolean named = false;
        for (ProduceRequestData.TopicProduceData topic : produce.topicData()) {
            if (topic.name() == null || topic.name().isEmpty()) {
                ids.add(topic.topicId());
            }
            else if (shared.rules().forTopic(topic.name()) != null) {
                named = true;
            }
        }
        if (ids.isEmpty()) {
            return named ? new ProduceValidation(shared, header, produce, context).run(Map.of()) : context.forwardRequest(header, produce);
        }
        CompletableFuture<Map<Uuid, String>> names = context.topicNames(ids).toCompletableFuture();
        if (names.isDone()) {
            return names.thenCompose(n -> new ProduceValidation(shared, header, produce, context).run(n));
        }
        return names.thenComposeAsync(n -> new ProduceValidation(shared, header, produce, context).run(n), context.eventLoop());
    }
}
