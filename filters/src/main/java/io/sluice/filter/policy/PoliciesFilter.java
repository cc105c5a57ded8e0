package io.sluice.filter.policy;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.InvalidRequiredAcksException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.records.RefusedPartitions;
import io.sluice.filter.records.UnreadableRecords;
import io.sluice.proxy.filter.AlterConfigsRequestFilter;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.CreatePartitionsRequestFilter;
import io.sluice.proxy.filter.CreateTopicsRequestFilter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.IncrementalAlterConfigsRequestFilter;
import io.sluice.proxy.filter.ProduceRequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * One connection's Policies filter: finds the rule for the connection's principal (the first that matches; kept
 * while the principal stays the same) and has its policies judge Produce, CreateTopics, CreatePartitions, AlterConfigs
 * and IncrementalAlterConfigs requests. Typed: only the APIs some rule polices are decoded for it at all (a definition
 * with topic policies only never sees a Produce request). What is refused is answered with the Kafka error and a
 * message naming the policy, and never reaches the broker; what warn mode lets through is forwarded unchanged.
 */
final class PoliciesFilter implements ProduceRequestFilter, CreateTopicsRequestFilter, CreatePartitionsRequestFilter, AlterConfigsRequestFilter,
        IncrementalAlterConfigsRequestFilter {

    private final Rules rules;
    private final Violations violations;
    private final RecordReaders records;
    private final Clock clock;
    private final boolean produce;
    private final boolean topics;

    /** The principal the cached rule is for; null until the first request. */
    private Optional<AuthenticatedPrincipal> principal;
    private Optional<Rule> rule;
    private TopicNames.Bound names;

    PoliciesFilter(Rules rules, Violations violations, RecordReaders records, Clock clock) {
        this.rules = rules;
        this.violations = violations;
        this.records = records;
        this.clock = clock;
        this.produce = rules.policeProduce();
        this.topics = rules.policeTopics();
    }

    private Optional<Rule> rule(FilterContext context) {
        Optional<AuthenticatedPrincipal> now = context.principal();
        if (principal == null || !Objects.equals(principal.map(AuthenticatedPrincipal::name), now.map(AuthenticatedPrincipal::name))) {
            principal = now;
            rule = rules.forPrincipal(now);
            names = rule.map(Rule::topics).map(TopicPolicy::names).map(n -> n.bind(now)).orElse(null);
        }
        return rule;
    }

    // ---- Produce ----

    @Override
    public boolean shouldHandleProduceRequest(short apiVersion) {
        return produce;
    }

    @Override
    public CompletionStage<RequestFilterResult> onProduceRequest(short apiVersion, RequestHeaderData header, ProduceRequestData request, FilterContext context) {
        Optional<Rule> found = rule(context);
        if (found.isEmpty() || found.get().produce() == null) {
            return context.forwardRequest(header, request);
        }
        Rule applying = found.get();
        ProducePolicy policy = applying.produce();
        Judgement acks = new Judgement(applying);
        policy.checkAcks(request.acks(), acks);
        violations.report(acks, context, "Produce");
        if (acks.refused()) {
            if (request.acks() == 0) {
                // No answer is expected, and none can be given: as a broker does when it refuses an acks=0 produce, close
                // the connection, so the client at least sees that something went wrong. Nothing is written.
                return context.requestFilterResultBuilder().drop().withCloseConnection().completed();
            }
            return context.requestFilterResultBuilder().errorResponse(header, request, new InvalidRequiredAcksException(acks.refusal().message())).completed();
        }
        if (!policy.readsBatches()) {
            return context.forwardRequest(header, request);
        }
        RecordReader reader = records.forProduce();
        long now = clock.millis();
        RefusedPartitions refused = new RefusedPartitions();
        for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
            for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
                Judgement judgement = new Judgement(applying);
                try {
                    policy.check((MemoryRecords) partition.records(), reader, now, judgement);
                } catch (UnreadableRecords e) {
                    // Counted and logged by the reader; never passed on as if it had been judged.
                    refused.refuse(topic, partition, e.error(), e.getMessage());
                    continue;
                }
                violations.report(judgement, context, "Produce to " + TopicPolicy.quoted(topic.name()) + " partition " + partition.index());
                if (judgement.refused()) {
                    Violation refusal = judgement.refusal();
                    refused.refuse(topic, partition, refusal.error(), refusal.message(), refusal.record() == null ? List.of() : List.of(refusal.record()));
                }
            }
        }
        if (refused.isEmpty()) {
            return context.forwardRequest(header, request);
        }
        return CompletableFuture.completedFuture(refused.result(header, request, context));
    }

    // ---- topics ----

    /** The connection's rule if it has topic policies, else null. */
    private Rule topicRule(FilterContext context) {
        return rule(context).filter(r -> r.topics() != null).orElse(null);
    }

    @Override
    public boolean shouldHandleCreateTopicsRequest(short apiVersion) {
        return topics;
    }

    @Override
    public CompletionStage<RequestFilterResult> onCreateTopicsRequest(short apiVersion, RequestHeaderData header, CreateTopicsRequestData request,
                                                                      FilterContext context) {
        Rule applying = topicRule(context);
        if (applying == null) {
            return context.forwardRequest(header, request);
        }
        return TopicCreation.police(apiVersion, header, request, applying, names, violations, context);
    }

    @Override
    public boolean shouldHandleCreatePartitionsRequest(short apiVersion) {
        return topics;
    }

    @Override
    public CompletionStage<RequestFilterResult> onCreatePartitionsRequest(short apiVersion, RequestHeaderData header, CreatePartitionsRequestData request,
                                                                          FilterContext context) {
        Rule applying = topicRule(context);
        if (applying == null) {
            return context.forwardRequest(header, request);
        }
        return CompletableFuture.completedFuture(PartitionCreation.police(header, request, applying, names, violations, context));
    }

    @Override
    public boolean shouldHandleAlterConfigsRequest(short apiVersion) {
        return topics;
    }

    @Override
    public CompletionStage<RequestFilterResult> onAlterConfigsRequest(short apiVersion, RequestHeaderData header, AlterConfigsRequestData request,
                                                                      FilterContext context) {
        Rule applying = topicRule(context);
        if (applying == null) {
            return context.forwardRequest(header, request);
        }
        return ConfigChanges.alterConfigs(header, request, applying, names, violations, context);
    }

    @Override
    public boolean shouldHandleIncrementalAlterConfigsRequest(short apiVersion) {
        return topics;
    }

    @Override
    public CompletionStage<RequestFilterResult> onIncrementalAlterConfigsRequest(short apiVersion, RequestHeaderData header,
                                                                                 IncrementalAlterConfigsRequestData request, FilterContext context) {
        Rule applying = topicRule(context);
        if (applying == null) {
            return context.forwardRequest(header, request);
        }
        return ConfigChanges.incrementalAlterConfigs(header, request, applying, names, violations, context);
    }
}
