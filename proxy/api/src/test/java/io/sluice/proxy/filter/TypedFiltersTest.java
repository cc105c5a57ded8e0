package io.sluice.proxy.filter;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The generated typed interfaces cover every API of the kafka-clients on the class path, and {@link TypedFilters}
 * hands each API's messages to its own interface and to no other.
 */
class TypedFiltersTest {

    @Test
    void everyApiWithMessagesHasTypedInterfacesThatReceiveItsMessages() throws Exception {
        List<ApiKeys> covered = new ArrayList<>();
        for (ApiKeys key : ApiKeys.values()) {
            ApiMessage request;
            ApiMessage response;
            try {
                request = key.messageType.newRequest();
                response = key.messageType.newResponse();
            } catch (UnsupportedVersionException e) {
                continue;
            }
            String name = request.getClass().getSimpleName().replace("RequestData", "");
            RequestFilter requests = TypedFilters.requestFilter(implementing(Class.forName("io.sluice.proxy.filter." + name + "RequestFilter")));
            ResponseFilter responses = TypedFilters.responseFilter(implementing(Class.forName("io.sluice.proxy.filter." + name + "ResponseFilter")));
            short version = key.latestVersion(true);
            for (ApiKeys other : ApiKeys.values()) {
                assertThat(requests.shouldHandleRequest(other, version)).as("%s request filter asked about %s", name, other).isEqualTo(other == key);
                assertThat(responses.shouldHandleResponse(other, version)).as("%s response filter asked about %s", name, other).isEqualTo(other == key);
            }
            assertThat(requests.onRequest(key, version, new RequestHeaderData(), request, null).toCompletableFuture().join())
                    .as("%s request reaches on%sRequest with its message", key, name).isSameAs(HANDLED_REQUEST);
            assertThat(responses.onResponse(key, version, new ResponseHeaderData(), response, null).toCompletableFuture().join())
                    .as("%s response reaches on%sResponse", key, name).isSameAs(HANDLED_RESPONSE);
            covered.add(key);
        }
        assertThat(covered).hasSizeGreaterThan(80).contains(ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.SHARE_FETCH, ApiKeys.CREATE_TOPICS);
    }

    @Test
    void genericAndTypedForTheSameDirectionIsRefused() {
        Filter mixed = (Filter) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{ RequestFilter.class, ProduceRequestFilter.class }, (proxy, method, args) -> null);
        assertThatThrownBy(() -> TypedFilters.requestFilter(mixed)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("implements RequestFilter and a typed request filter interface");
        assertThat(TypedFilters.responseFilter(mixed)).as("no response side").isNull();
    }

    private static final RequestFilterResult HANDLED_REQUEST = new RequestFilterResultBuilder().drop().build();
    private static final ResponseFilterResult HANDLED_RESPONSE = new ResponseFilterResultBuilder().drop().build();

    /** An instance of one typed interface: its shouldHandle method says yes, its on method checks the message type and answers a marker. */
    private static Filter implementing(Class<?> typed) {
        return (Filter) Proxy.newProxyInstance(TypedFiltersTest.class.getClassLoader(), new Class<?>[]{ typed }, (proxy, method, args) -> {
            if (method.getName().startsWith("shouldHandle")) {
                return true;
            }
            if (method.getName().startsWith("on")) {
                Class<?> messageType = method.getParameterTypes()[2];
                assertThat(args[2]).isInstanceOf(messageType);
                CompletionStage<?> answer = CompletableFuture.completedFuture(typed.getSimpleName().endsWith("RequestFilter") ? HANDLED_REQUEST : HANDLED_RESPONSE);
                return answer;
            }
            throw new UnsupportedOperationException(method.toString());
        });
    }
}
