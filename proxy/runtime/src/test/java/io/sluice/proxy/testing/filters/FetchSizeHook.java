package io.sluice.proxy.testing.filters;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseSizeHook;

/**
 * Test filter that attaches a response size hook to every Fetch it forwards: the hook notes the size it is given in
 * {@link #SIZES} and asks for {@code throttleMs} ({@code mode: note}), or throws ({@code fail}). With {@code mode:
 * produce} it attaches one to every Produce instead, whose response does not begin with throttle_time_ms.
 */
public final class FetchSizeHook implements FilterFactory<FetchSizeHook.Config, FetchSizeHook.Config> {

    /** The sizes the hooks were given, in order, across every connection. */
    public static final List<Integer> SIZES = new CopyOnWriteArrayList<>();

    /** @param mode note, fail or produce; @param throttleMs what the hook asks for */
    public record Config(String mode, int throttleMs) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Config initialize(FilterFactoryContext context, Config config) {
        Config c = config == null || config.mode() == null ? new Config("note", config == null ? 0 : config.throttleMs()) : config;
        if (!Set.of("note", "fail", "produce").contains(c.mode())) {
            throw new IllegalArgumentException("mode: note, fail or produce");
        }
        return c;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Config config) {
        ApiKeys hooked = config.mode().equals("produce") ? ApiKeys.PRODUCE : ApiKeys.FETCH;
        ResponseSizeHook hook = config.mode().equals("fail")
                ? bytes -> {
                    throw new IllegalStateException("size hook failed on purpose");
                }
                : bytes -> {
                    SIZES.add(bytes);
                    return config.throttleMs();
                };
        return new RequestFilter() {
            @Override
            public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
                return apiKey == hooked;
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                                  FilterContext ctx) {
                return ctx.requestFilterResultBuilder().forward(header, request).withResponseSizeHook(hook).completed();
            }
        };
    }
}
