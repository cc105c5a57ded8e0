package io.sluice.filter.audit;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.Errors;

import io.sluice.proxy.filter.CreateTopicsRequestFilter;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.ProduceRequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseHook;

/**
 * Test sources only: answers the way the Policies and Quotas filters of issue 32 answer, for the audit trail's
 * end-to-end test to observe through a real proxy, placed inside Audit (and after JwtAuth). A CreateTopics asking for
 * more than {@code maxPartitions} partitions is refused with POLICY_VIOLATION and a message naming the policy
 * ({@code policy topics.partitions: ...}), as a broker's CreateTopicPolicy or the Policies filter refuses it; every
 * Produce response carries {@code throttle_time_ms = throttleProduceMs}, as a quota sets it. The real filters replace
 * it in that test once they are in the same tree: the audit only reads what reaches the client.
 */
public final class GovernanceStandIn implements FilterFactory<GovernanceStandIn.Config, GovernanceStandIn.Config> {

    public record Config(int maxPartitions, int throttleProduceMs) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Config initialize(FilterFactoryContext context, Config config) {
        return config;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Config config) {
        return new Governance(config);
    }

    private record Governance(Config config) implements CreateTopicsRequestFilter, ProduceRequestFilter {

        @Override
        public CompletionStage<RequestFilterResult> onCreateTopicsRequest(short apiVersion, RequestHeaderData header, CreateTopicsRequestData request,
                                                                          FilterContext context) {
            if (request.topics().stream().allMatch(t -> t.numPartitions() <= config.maxPartitions())) {
                return context.forwardRequest(header, request);
            }
            CreateTopicsResponseData response = new CreateTopicsResponseData();
            for (CreateTopicsRequestData.CreatableTopic t : request.topics()) {
                response.topics().add(new CreateTopicsResponseData.CreatableTopicResult().setName(t.name()).setErrorCode(Errors.POLICY_VIOLATION.code())
                        .setErrorMessage("policy topics.partitions: " + t.numPartitions() + " partitions, at most " + config.maxPartitions()));
            }
            return context.requestFilterResultBuilder().shortCircuitResponse(response).completed();
        }

        @Override
        public CompletionStage<RequestFilterResult> onProduceRequest(short apiVersion, RequestHeaderData header, ProduceRequestData request,
                                                                     FilterContext context) {
            return context.requestFilterResultBuilder().forward(header, request)
                    .withResponseHook(ResponseHook.of(response -> ((ProduceResponseData) response).setThrottleTimeMs(config.throttleProduceMs())))
                    .completed();
        }
    }
}
