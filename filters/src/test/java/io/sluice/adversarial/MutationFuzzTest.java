package io.sluice.adversarial;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mutation fuzzer (issue 10, docs/security.md#the-adversarial-suite): requests recorded from a real kafka-clients
 * session through the proxy with every filter, mutated and sent on fresh authenticated and unauthenticated
 * connections. Each must be answered well-formed with its correlation id or have its connection closed; meanwhile
 * healthy clients keep round-tripping, the proxy keeps accepting, no event-loop thread dies and the heap stays within
 * a bound. Seeded: {@code -Dsluice.fuzz.seed=} replays a run, {@code -Dsluice.fuzz.only=} one mutation of it, and
 * {@code -Dsluice.fuzz.minutes=30} is the long run.
 */
@ExtendWith(KafkaClusterExtension.class)
class MutationFuzzTest {

    /** The APIs the session must have produced: without them the corpus, not the proxy, would be the weak point. */
    private static final Set<ApiKeys> EXPECTED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE,
            ApiKeys.METADATA, ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.LIST_OFFSETS, ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP,
            ApiKeys.SYNC_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.LEAVE_GROUP, ApiKeys.CONSUMER_GROUP_HEARTBEAT,
            ApiKeys.INIT_PRODUCER_ID, ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.END_TXN,
            ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DESCRIBE_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS,
            ApiKeys.DESCRIBE_CLUSTER, ApiKeys.DESCRIBE_TOPIC_PARTITIONS, ApiKeys.LIST_GROUPS, ApiKeys.DESCRIBE_GROUPS,
            ApiKeys.CONSUMER_GROUP_DESCRIBE, ApiKeys.DELETE_RECORDS, ApiKeys.DESCRIBE_PRODUCERS);

    static KafkaCluster cluster;

    @Test
    void everyMutatedRequestIsAnsweredOrClosedWhileOthersAreServed() throws Exception {
        FuzzSettings settings = FuzzSettings.fromSystemProperties();
        System.out.printf("FUZZ seed %d (replay with -Dsluice.fuzz.seed=%d)%n", settings.seed(), settings.seed());
        Corpus corpus = new Corpus();
        FuzzReport report = new FuzzReport();
        try (FuzzTarget target = FuzzTarget.start(cluster, corpus)) {
            new CaptureSession(target, FuzzTarget.adminToken()).run();
            List<List<Corpus.Seed>> groups = groups(corpus.freeze());
            assertThat(groups.stream().map(g -> g.get(0).api()).toList()).as("APIs recorded from the kafka-clients session").containsAll(EXPECTED);
            System.out.printf("FUZZ corpus: %d recorded requests of %d API/version/stage kinds%n", groups.stream().mapToInt(List::size).sum(), groups.size());

            List<WireProbe> probes = target.clusters().stream()
                    .map(c -> new WireProbe(c.proxyPort(), settings.timeoutMs(), settings.graceMs(), FuzzTarget.adminToken(), FuzzTarget.restrictedToken())).toList();
            Mutator mutator = new Mutator();
            try (HealthMonitor health = new HealthMonitor(target, probes, settings.heapBoundMiB() * 1024L * 1024L)) {
                health.start();
                long started = System.nanoTime();
                long deadline = settings.duration() == null ? Long.MAX_VALUE : started + settings.duration().toNanos();
                long first = settings.only() >= 0 ? settings.only() : 0;
                long last = settings.only() >= 0 ? settings.only() : settings.duration() == null ? settings.mutations() - 1 : Long.MAX_VALUE;
                for (long index = first; index <= last && System.nanoTime() < deadline; index++) {
                    Random random = settings.randomFor(index);
                    List<Corpus.Seed> group = groups.get(random.nextInt(groups.size()));
                    Corpus.Seed seed = group.get(random.nextInt(group.size()));
                    WireProbe.Mode mode = mode(seed, random);
                    int cluster = random.nextInt(probes.size());
                    Mutation mutation = mutator.mutate(seed, random);
                    long sentAt = System.nanoTime();
                    WireProbe.Result result = probes.get(cluster).send(mutation, mode);
                    if (settings.only() >= 0) {
                        System.out.printf("FUZZ replayed #%d: %s to the %s cluster over a %s connection: %s -> %s (%s) in %d ms%n", index, seed.name(),
                                target.clusters().get(cluster).name(), mode, mutation.description(), result.outcome(), result.detail(),
                                Duration.ofNanos(System.nanoTime() - sentAt).toMillis());
                    }
                    report.record(seed.name() + (seed.beforeAuthentication() ? " (pre-auth)" : ""), target.clusters().get(cluster).name(), mode,
                            mutation, result, settings.seed(), index);
                    if (report.sent() % settings.checkEvery() == 0) {
                        check(health, report);
                        System.out.printf("FUZZ progress: %d sent in %d s, %d answered, %d closed, %d distinct findings, heap %d MiB (baseline %d)%n",
                                report.sent(), Duration.ofNanos(System.nanoTime() - started).toSeconds(), report.count(WireProbe.Outcome.ANSWERED),
                                report.count(WireProbe.Outcome.CLOSED), report.findings().size(), health.peakHeapMiB(), health.baselineHeapMiB());
                    }
                }
                check(health, report);
                System.out.printf("FUZZ done in %d s, seed %d, %d health round trips, heap peak %d MiB over a baseline of %d MiB%n%s",
                        Duration.ofNanos(System.nanoTime() - started).toSeconds(), settings.seed(), health.roundTrips(), health.peakHeapMiB(),
                        health.baselineHeapMiB(), report.summary());
            }
        }
        assertThat(report.healthFailures()).as("the proxy kept serving others (seed %d)", settings.seed()).isEmpty();
        assertThat(report.findings()).as("findings (seed %d); each is printed above as FUZZ FINDING with its reproducer", settings.seed())
                .extracting(FuzzReport.Finding::key).filteredOn(key -> !KnownFindings.covers(key)).isEmpty();
    }

    private static void check(HealthMonitor health, FuzzReport report) {
        String problem = health.check();
        if (problem != null) {
            report.healthFailure(report.sent(), problem);
        }
    }

    /**
     * APIs whose mutations an admin may legitimately make expensive for the broker: a CreateTopics or CreatePartitions
     * asking for 32,767 or 65,536 partitions is allowed to an admin and makes the in-VM broker (same JVM) slow and big,
     * which measures the broker, not the proxy. They are fuzzed as the restricted principal (refused by JwtAuth after
     * decoding) and unauthenticated; the admin path through JwtAuth is the plain forwarding every other admin API has.
     */
    private static final Set<ApiKeys> NOT_AS_ADMIN = EnumSet.of(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_PARTITIONS);

    /** Pre-authentication requests go on connections at their stage; the rest mostly authenticated, sometimes not. */
    private static WireProbe.Mode mode(Corpus.Seed seed, Random random) {
        if (seed.beforeAuthentication()) {
            return seed.api() == ApiKeys.SASL_AUTHENTICATE && random.nextInt(5) != 0 ? WireProbe.Mode.HANDSHAKEN : WireProbe.Mode.UNAUTHENTICATED;
        }
        int roll = random.nextInt(10);
        WireProbe.Mode mode = roll == 0 ? WireProbe.Mode.UNAUTHENTICATED : roll <= 4 ? WireProbe.Mode.ADMIN : WireProbe.Mode.RESTRICTED;
        return mode == WireProbe.Mode.ADMIN && NOT_AS_ADMIN.contains(seed.api()) ? WireProbe.Mode.RESTRICTED : mode;
    }

    /** The corpus as groups of the same API, version and stage, each equally likely to be picked. */
    private static List<List<Corpus.Seed>> groups(List<Corpus.Seed> seeds) {
        Map<String, List<Corpus.Seed>> byKind = new LinkedHashMap<>();
        seeds.forEach(s -> byKind.computeIfAbsent(s.name() + s.beforeAuthentication(), k -> new ArrayList<>()).add(s));
        return List.copyOf(byKind.values());
    }
}
