package io.sluice.proxy.server;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.runtime.ClientChannelInitializer;
import io.sluice.proxy.runtime.NamedFilter;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.proxy.testing.filters.AnswerListOffsets;
import io.sluice.proxy.testing.filters.MixedTypedAndGeneric;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Filters written against the typed per-API interfaces (generated from kafka-clients' ApiKeys into the API jar). */
@ExtendWith(KafkaClusterExtension.class)
class TypedFilterTest {

    static KafkaCluster cluster;

    @Test
    void aTypedFilterIsAskedOnlyAboutTheApisItImplements() {
        NamedFilter typed = new NamedFilter("answer", new AnswerListOffsets().createFilter(null, null));
        assertThat(typed.requests().shouldHandleRequest(ApiKeys.LIST_OFFSETS, (short) 7)).isTrue();
        assertThat(typed.requests().shouldHandleRequest(ApiKeys.PRODUCE, (short) 12)).isFalse();
        assertThat(typed.responses()).as("no typed response interface, so no response side").isNull();
    }

    @Test
    void aFilterImplementingTheGenericAndATypedInterfaceIsRefusedWhenCreated() {
        assertThatThrownBy(() -> new NamedFilter("mixed", new MixedTypedAndGeneric().createFilter((FilterFactoryContext) null, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("filter 'mixed'")
                .hasMessageContaining("implements RequestFilter and a typed request filter interface");
    }

    @Test
    void aConnectionWhoseChainHasAMixedFilterIsClosedAndOthersAreServed() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(ClientChannelInitializer.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try (ProxyFixture mixed = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: mixed
                    type: MixedTypedAndGeneric
                defaultFilters: [mixed]
                """);
                ProxyFixture typed = ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: answer
                    type: AnswerListOffsets
                defaultFilters: [answer]
                """)) {
            for (int i = 0; i < 5; i++) {
                try (KafkaWire wire = new KafkaWire(mixed.bootstrapPort())) {
                    wire.socket().setSoTimeout(10_000);
                    assertThat(wire.closedByPeer()).as("the proxy closes the connection it cannot build a filter chain for").isTrue();
                }
            }
            try (KafkaWire wire = new KafkaWire(typed.bootstrapPort())) {
                ApiVersionsResponseData versions = wire.call(ApiKeys.API_VERSIONS, (short) 3,
                        new ApiVersionsRequestData().setClientSoftwareName("test").setClientSoftwareVersion("1"));
                assertThat(versions.errorCode()).as("a proxy whose filters are sound serves as usual").isZero();
            }
        } finally {
            logger.detachAppender(appender);
        }
        // Five refused connections, one line (rate-limited), naming the definition and the reason, without a stack trace.
        assertThat(appender.list).singleElement().satisfies(e -> {
            assertThat(e.getFormattedMessage()).contains("filter 'mixed'", "implements RequestFilter and a typed request filter interface");
            assertThat(e.getThrowableProxy()).isNull();
        });
    }
}
