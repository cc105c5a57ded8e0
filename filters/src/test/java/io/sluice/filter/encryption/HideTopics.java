package io.sluice.filter.encryption;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * Test filter: removes topics whose names start with the configured prefix from Metadata responses, so that a filter
 * nearer the client cannot resolve their ids, as when the cluster does not (yet) know an id a client sends.
 */
public final class HideTopics implements FilterFactory<HideTopics.Config, HideTopics.Config> {

    public record Config(String prefix) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Config initialize(FilterFactoryContext context, Config config) {
        if (config == null || config.prefix() == null || config.prefix().isEmpty()) {
            throw new IllegalArgumentException("prefix: required");
        }
        return config;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Config config) {
        return new ResponseFilter() {
            @Override
            public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.METADATA;
            }

            @Override
            public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                    FilterContext ctx) {
                MetadataResponseData metadata = (MetadataResponseData) response;
                var hidden = new java.util.ArrayList<MetadataResponseData.MetadataResponseTopic>();
                metadata.topics().forEach(t -> {
                    if (t.name() != null && t.name().startsWith(config.prefix())) {
                        hidden.add(t);
                    }
                });
                hidden.forEach(metadata.topics()::remove);
                return ctx.forwardResponse(header, metadata);
            }
        };
    }
}
