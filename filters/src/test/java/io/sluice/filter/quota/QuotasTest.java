package io.sluice.filter.quota;

import java.time.Duration;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.sluice.auth.QuotaLimits;
import io.sluice.config.ConfigException;
import io.sluice.proxy.filter.ResponseSizeHook;
import io.sluice.proxy.filter.harness.FilterHarness;
import io.sluice.proxy.filter.harness.RequestOutcome;
import io.sluice.proxy.filter.harness.Verdict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Quotas filter on FilterHarness connections (no proxy, no broker, the clock moved by hand): what it counts, the
 * throttle it computes, where the throttle goes (the response's throttle_time_ms and the connection's mute), which
 * limits a principal gets (defaults, overrides, token, cluster share), its metrics and their cap, and its config errors.
 */
class QuotasTest {

    private static MemoryRecords records(int valueBytes) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[valueBytes]));
    }

    private static ProduceRequestData produce(MemoryRecords records, short acks) {
        ProduceRequestData request = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("t");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        request.topicData().add(topic);
        return request;
    }

    private static ProduceRequestData produce(MemoryRecords records) {
        return produce(records, (short) -1);
    }

    private static FetchResponseData fetched(MemoryRecords records) {
        FetchResponseData response = new FetchResponseData();
        response.responses().add(new FetchResponseData.FetchableTopicResponse().setTopic("t")
                .setPartitions(List.of(new FetchResponseData.PartitionData().setPartitionIndex(0).setRecords(records))));
        return response;
    }

    /** The response's size as a broker sends it (header and body), which a size hook is given. */
    private static int encodedSize(ApiMessage response, short version) {
        ApiKeys api = ApiKeys.forId(response.apiKey());
        return MessageUtil.toByteBufferAccessor(new ResponseHeaderData(), api.responseHeaderVersion(version)).buffer().remaining()
                + MessageUtil.toByteBufferAccessor(response, version).buffer().remaining();
    }

    /** The throttle for {@code total} bytes recorded at the first instant against {@code limit}: total / limit - one window. */
    private static long expectedMillis(long total, long limit, long windowMillis) {
        return (long) Math.ceil((double) total * 1000 / limit - windowMillis);
    }

    private static double counter(QuotaConnections quotas, String name, String principal, String kind) {
        var search = quotas.registry().find(name).tag("principal", principal);
        Counter counter = (kind == null ? search : search.tag("kind", kind)).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void aProducerOverItsQuotaGetsTheThrottleTimeInItsResponseAndItsConnectionMutedForIt() {
        try (QuotaConnections quotas = new QuotaConnections("defaults: {produceBytesPerSecond: 1000}")) {
            FilterHarness alice = quotas.as("alice");
            MemoryRecords first = records(600);
            RequestOutcome within = alice.request(produce(first));
            assertThat(within.verdict()).isEqualTo(Verdict.FORWARDED);
            assertThat(within.responseHook()).as("within the quota: the response is not even decoded for it").isNull();
            assertThat(alice.clientThrottles()).isEmpty();

            MemoryRecords second = records(900);
            RequestOutcome over = alice.request(produce(second));
            assertThat(over.verdict()).as("never refused").isEqualTo(Verdict.FORWARDED);
            long millis = expectedMillis(first.sizeInBytes() + second.sizeInBytes(), 1000, 1000);
            assertThat(millis).isPositive();
            ProduceResponseData response = (ProduceResponseData) alice.response(over, new ProduceResponseData()).forwarded();
            assertThat(response.throttleTimeMs()).isEqualTo(millis);
            assertThat(alice.clientThrottles()).containsExactly(Duration.ofMillis(millis));

            // The broker's own throttle (its quota on the proxy's principal) is kept when it is longer.
            RequestOutcome again = alice.request(produce(records(10)));
            ProduceResponseData brokerThrottled = (ProduceResponseData) alice.response(again, new ProduceResponseData().setThrottleTimeMs(60_000)).forwarded();
            assertThat(brokerThrottled.throttleTimeMs()).isEqualTo(60_000);
            assertThat(alice.clientThrottles()).hasSize(2);
            assertThat(alice.clientThrottles().get(1)).isLessThan(Duration.ofSeconds(60));

            // acks=0 has no response: the connection is muted as the request passes.
            RequestOutcome noAcks = alice.request(produce(records(10), (short) 0));
            assertThat(noAcks.responseHook()).isNull();
            assertThat(alice.clientThrottles()).hasSize(3);

            assertThat(counter(quotas, "sluice.quota.throttled", "alice", "produce")).isEqualTo(3);
            assertThat(counter(quotas, "sluice.quota.throttle.seconds", "alice", "produce"))
                    .isEqualTo(alice.clientThrottles().stream().mapToLong(Duration::toMillis).sum() / 1000.0);
            assertThat(counter(quotas, "sluice.quota.bytes", "alice", "produce"))
                    .isEqualTo(first.sizeInBytes() + second.sizeInBytes() + 2.0 * records(10).sizeInBytes());
            assertThat(counter(quotas, "sluice.quota.requests", "alice", null)).isEqualTo(4);

            quotas.advance(10_000);
            RequestOutcome rested = alice.request(produce(records(10)));
            assertThat(rested.responseHook()).as("back under the limit").isNull();
        }
    }

    @Test
    void theTimeTheBrokerTookToAnswerCountsAsPartOfThePause() {
        try (QuotaConnections quotas = new QuotaConnections("defaults: {produceBytesPerSecond: 1000}")) {
            FilterHarness alice = quotas.as("alice");
            MemoryRecords records = records(2900);
            long millis = expectedMillis(records.sizeInBytes(), 1000, 1000);
            RequestOutcome slow = alice.request(produce(records));
            quotas.advance(300);
            ProduceResponseData response = (ProduceResponseData) alice.response(slow, new ProduceResponseData()).forwarded();
            assertThat(response.throttleTimeMs()).isEqualTo(millis - 300);
            assertThat(alice.clientThrottles()).containsExactly(Duration.ofMillis(millis - 300));

            RequestOutcome slower = alice.request(produce(records(1)));
            quotas.advance(60_000);
            assertThat(((ProduceResponseData) alice.response(slower, new ProduceResponseData()).forwarded()).throttleTimeMs())
                    .as("a pause already over by the time the response comes").isZero();
            assertThat(alice.clientThrottles()).hasSize(1);
        }
    }

    @Test
    void aFetchResponseCountsByItsSizeWithoutBeingDecodedAndAFetchAsksForNoMoreThanTheWindowAllows() {
        try (QuotaConnections quotas = new QuotaConnections("""
                defaults: {fetchBytesPerSecond: 1000}
                overrides:
                  unlimited-reader: {produceBytesPerSecond: 1000000}
                """)) {
            FilterHarness bob = quotas.as("bob");
            FetchRequestData fetch = new FetchRequestData().setMaxBytes(52_428_800);
            RequestOutcome request = bob.request(fetch);
            assertThat(((FetchRequestData) request.forwarded()).maxBytes()).as("1000 B/s over 10 windows of 1 s").isEqualTo(10_000);
            assertThat(request.responseHook()).as("no hook on the decoded response: the proxy need not decode it").isNull();
            assertThat(request.responseSizeHook()).isNotNull();
            MemoryRecords records = records(2_900);
            FetchResponseData broker = fetched(records);
            FetchResponseData response = (FetchResponseData) bob.response(request, broker).forwarded();
            long millis = expectedMillis(encodedSize(broker, request.apiVersion()), 1000, 1000);
            assertThat(millis).as("the whole response counts, as a broker counts it: a little more than its records")
                    .isGreaterThan(expectedMillis(records.sizeInBytes(), 1000, 1000));
            assertThat(response.throttleTimeMs()).isEqualTo(millis);
            assertThat(response.responses().get(0).partitions().get(0).records()).as("delivered, then paid for").isEqualTo(records);
            assertThat(bob.clientThrottles()).containsExactly(Duration.ofMillis(millis));
            assertThat(counter(quotas, "sluice.quota.throttled", "bob", "fetch")).isEqualTo(1);

            // ShareFetch responses count against the same rate.
            RequestOutcome share = bob.request(new ShareFetchRequestData());
            assertThat(share.responseHook()).isNull();
            ShareFetchResponseData shareResponse = new ShareFetchResponseData();
            shareResponse.responses().add(new ShareFetchResponseData.ShareFetchableTopicResponse()
                    .setPartitions(List.of(new ShareFetchResponseData.PartitionData().setRecords(records(100)))));
            assertThat(((ShareFetchResponseData) bob.response(share, shareResponse).forwarded()).throttleTimeMs()).isGreaterThan((int) millis);

            assertThat(quotas.shared.rules().enforced("unlimited-reader", QuotaLimits.NONE).fetchBytesPerSecond())
                    .as("the override leaves fetch to the defaults").isEqualTo(1000L);
        }
        // A principal whose fetches are not limited: no hook of either kind.
        try (QuotaConnections producersOnly = new QuotaConnections("defaults: {produceBytesPerSecond: 1000}")) {
            RequestOutcome plain = producersOnly.anonymous().request(new FetchRequestData().setMaxBytes(52_428_800));
            assertThat(plain.responseHook()).isNull();
            assertThat(plain.responseSizeHook()).isNull();
            assertThat(((FetchRequestData) plain.forwarded()).maxBytes()).isEqualTo(52_428_800);
        }
    }

    @Test
    void aBrokersLongerThrottleOnAFetchIsLeftAsItIs() {
        try (QuotaConnections quotas = new QuotaConnections("defaults: {fetchBytesPerSecond: 1000}")) {
            FilterHarness bob = quotas.as("bob");
            RequestOutcome request = bob.request(new FetchRequestData().setMaxBytes(52_428_800));
            FetchResponseData broker = fetched(records(2_900)).setThrottleTimeMs(60_000);
            assertThat(((FetchResponseData) bob.response(request, broker).forwarded()).throttleTimeMs()).isEqualTo(60_000);
        }
    }

    @Test
    void everyFetchAndShareFetchVersionCanTakeASizeHook() {
        for (ApiKeys api : List.of(ApiKeys.FETCH, ApiKeys.SHARE_FETCH)) {
            for (short v = api.oldestVersion(); v <= api.latestVersion(true); v++) {
                assertThat(ResponseSizeHook.accepts(api, v)).as("%s v%d begins with throttle_time_ms", api, v).isTrue();
            }
        }
    }

    @Test
    void everyRequestButTheLoginCountsAgainstTheRequestRate() {
        try (QuotaConnections quotas = new QuotaConnections("defaults: {requestsPerSecond: 5}")) {
            FilterHarness carol = quotas.as("carol");
            assertThat(carol.request(new ApiVersionsRequestData()).handled()).as("ApiVersions is not counted").isFalse();
            for (int i = 0; i < 5; i++) {
                assertThat(carol.request(new MetadataRequestData()).responseHook()).as("request %d", i + 1).isNull();
            }
            RequestOutcome sixth = carol.request(new MetadataRequestData());
            MetadataResponseData response = (MetadataResponseData) carol.response(sixth, new MetadataResponseData()).forwarded();
            assertThat(response.throttleTimeMs()).as("6 requests at 5/s: 1.2 s worth, 1 s accounted for").isEqualTo(200);
            assertThat(carol.clientThrottles()).containsExactly(Duration.ofMillis(200));
            assertThat(counter(quotas, "sluice.quota.throttled", "carol", "request")).isEqualTo(1);
            assertThat(carol.request(new SaslAuthenticateRequestData()).handled()).as("nor the SASL requests").isFalse();
        }
    }

    @Test
    void aTokenCanOnlyLowerTheConfiguredLimitsAndMaySetOneTheConfigLeavesOpen() {
        try (QuotaConnections quotas = new QuotaConnections("defaults: {produceBytesPerSecond: 1000}")) {
            QuotaRules rules = quotas.shared.rules();
            assertThat(rules.enforced("dave", new QuotaLimits(500L, null, null))).isEqualTo(new QuotaLimits(500L, null, null));
            assertThat(rules.enforced("dave", new QuotaLimits(5000L, null, null))).as("not raised").isEqualTo(new QuotaLimits(1000L, null, null));
            assertThat(rules.enforced("dave", new QuotaLimits(null, 300L, 20L))).isEqualTo(new QuotaLimits(1000L, 300L, 20L));

            // Through a connection: 700 bytes is within the config's 1000 B/s, not within the token's 500.
            MemoryRecords records = records(700);
            FilterHarness lowered = quotas.as("dave", new QuotaLimits(500L, null, null));
            RequestOutcome request = lowered.request(produce(records));
            ProduceResponseData response = (ProduceResponseData) lowered.response(request, new ProduceResponseData()).forwarded();
            assertThat(response.throttleTimeMs()).isEqualTo(expectedMillis(records.sizeInBytes(), 500, 1000));
            FilterHarness raised = quotas.as("erin", new QuotaLimits(1_000_000L, null, null));
            assertThat(raised.request(produce(records(1100))).responseHook()).as("1100+ bytes against the config's 1000, not the token's million").isNotNull();
        }
    }

    @Test
    void theFirstMatchingOverrideWinsAndTakesTheKindsItLeavesOutFromTheDefaults() {
        try (QuotaConnections quotas = new QuotaConnections("""
                defaults: {produceBytesPerSecond: 1000, fetchBytesPerSecond: 2000}
                overrides:
                  "batch-*": {produceBytesPerSecond: 100000}
                  batch-slow: {produceBytesPerSecond: 10}
                  "team-?": {requestsPerSecond: 50, fetchBytesPerSecond: 4000}
                """)) {
            QuotaRules rules = quotas.shared.rules();
            assertThat(rules.configured("batch-1")).isEqualTo(new QuotaLimits(100_000L, 2000L, null));
            assertThat(rules.configured("batch-slow")).as("written after batch-*, which matches first").isEqualTo(new QuotaLimits(100_000L, 2000L, null));
            assertThat(rules.configured("team-a")).isEqualTo(new QuotaLimits(1000L, 4000L, 50L));
            assertThat(rules.configured("team-ab")).isEqualTo(new QuotaLimits(1000L, 2000L, null));
            assertThat(quotas.as("batch-7").request(produce(records(50_000))).responseHook()).isNull();
            assertThat(quotas.as("team-b").request(produce(records(50_000))).responseHook()).isNotNull();
        }
        try (QuotaConnections cluster = new QuotaConnections("""
                mode: cluster
                replicas: 4
                defaults: {produceBytesPerSecond: 1000, requestsPerSecond: 10}
                """)) {
            assertThat(cluster.shared.rules().enforced("anyone", new QuotaLimits(null, 400L, null)))
                    .as("each of 4 replicas enforces a quarter, of the token's limits too").isEqualTo(new QuotaLimits(250L, 100L, 3L));
        }
    }

    @Test
    void connectionsOfOnePrincipalShareItsRatesAndUnauthenticatedOnesShareOneAsAnonymous() {
        try (QuotaConnections quotas = new QuotaConnections("""
                defaults: {produceBytesPerSecond: 1000}
                overrides:
                  ANONYMOUS: {produceBytesPerSecond: 100}
                """)) {
            FilterHarness alice1 = quotas.as("alice");
            FilterHarness alice2 = quotas.as("alice");
            FilterHarness bob = quotas.as("bob");
            assertThat(alice1.request(produce(records(600))).responseHook()).isNull();
            assertThat(bob.request(produce(records(600))).responseHook()).as("bob has rates of his own").isNull();
            assertThat(alice2.request(produce(records(600))).responseHook()).as("alice's second connection pays for her first").isNotNull();

            FilterHarness anonymous1 = quotas.anonymous();
            FilterHarness anonymous2 = quotas.anonymous();
            assertThat(anonymous1.request(produce(records(20))).responseHook()).isNull();
            assertThat(anonymous2.request(produce(records(20))).responseHook()).as("both unauthenticated: one principal, 100 B/s").isNotNull();
            assertThat(counter(quotas, "sluice.quota.requests", Quotas.UNAUTHENTICATED, null)).isEqualTo(2);
        }
    }

    @Test
    void principalsBeyondTheMetricsCapCountAsOtherAndIdlePrincipalsAreDropped() {
        try (QuotaConnections quotas = new QuotaConnections("""
                maxPrincipalsInMetrics: 2
                defaults: {produceBytesPerSecond: 1000}
                """)) {
            for (String name : List.of("alice", "bob", "carol", "dave")) {
                quotas.as(name).request(produce(records(2000)));
            }
            assertThat(quotas.registry().find("sluice.quota.requests").counters()).extracting(c -> c.getId().getTag("principal"))
                    .containsExactlyInAnyOrder("alice", "bob", "other");
            assertThat(counter(quotas, "sluice.quota.requests", "other", null)).isEqualTo(2);
            Gauge aliceRate = quotas.registry().find("sluice.quota.rate").tag("principal", "alice").tag("kind", "produce").gauge();
            assertThat(aliceRate.value()).isEqualTo(records(2000).sizeInBytes());
            assertThat(quotas.registry().find("sluice.quota.rate").tag("principal", "other").gauge()).as("no rate of its own").isNull();
            assertThat(quotas.registry().find("sluice.quota.limit").tag("principal", "bob").tag("kind", "produce").gauge().value()).isEqualTo(1000);
            assertThat(quotas.registry().find("sluice.quota.limit").tag("principal", "bob").tag("kind", "fetch").gauge()).as("unlimited").isNull();
            Gauge tracked = quotas.registry().find("sluice.quota.principals").gauge();
            assertThat(tracked.value()).isEqualTo(4);

            // 11 windows of 1 s after the last traffic nothing is left in the window; the next sweep drops them all.
            quotas.advance(11_000);
            quotas.advance(11_000);
            assertThat(tracked.value()).isZero();
            assertThat(aliceRate.value()).isZero();
            FilterHarness back = quotas.as("alice");
            assertThat(back.request(produce(records(500))).responseHook()).as("a rested principal starts afresh").isNull();
            assertThat(tracked.value()).isEqualTo(1);
            assertThat(aliceRate.value()).as("the gauge follows the new usage").isEqualTo(records(500).sizeInBytes());
        }
    }

    @Test
    void configMistakesNameTheirField() {
        assertThatThrownBy(() -> QuotaConnections.bind("defaults: {produceBytesPerSec: 10}"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("filterDefinitions[0].config.defaults.produceBytesPerSec: unknown field");
        assertThatThrownBy(() -> QuotaConnections.bind("overrides: {alice: {fetchBytesPerSecond: 0}}"))
                .hasMessageContaining("filterDefinitions[0].config.overrides.alice: fetchBytesPerSecond: must be a positive number, not 0");
        assertThatThrownBy(() -> QuotaConnections.bind("defaults: {requestsPerSecond: many}"))
                .hasMessageContaining("filterDefinitions[0].config.defaults.requestsPerSecond: ");
        assertThatThrownBy(() -> QuotaConnections.bind("mode: global")).hasMessageContaining("filterDefinitions[0].config.mode: invalid value 'global'");
        assertThatThrownBy(() -> new QuotaConnections("""
                mode: cluster
                window: 5ms
                samples: 1
                maxPrincipalsInMetrics: -1
                overrides:
                  "": {produceBytesPerSecond: 5}
                  "bad\\\\": {produceBytesPerSecond: 5}
                """)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window: must be between 10ms and 60s, not PT0.005S")
                .hasMessageContaining("samples: must be between 2 and 100, not 1")
                .hasMessageContaining("replicas: is required with mode: cluster")
                .hasMessageContaining("maxPrincipalsInMetrics: must be between 0 and 10000, not -1")
                .hasMessageContaining("overrides.: a pattern must not be empty")
                .hasMessageContaining("overrides.bad\\: pattern 'bad\\' ends with a lone backslash");
        assertThatThrownBy(() -> new QuotaConnections("replicas: 3")).hasMessageContaining("replicas: applies to mode: cluster only");
        assertThatThrownBy(() -> new QuotaConnections("{mode: cluster, replicas: 0}")).hasMessageContaining("replicas: must be at least 1, not 0");
    }
}
