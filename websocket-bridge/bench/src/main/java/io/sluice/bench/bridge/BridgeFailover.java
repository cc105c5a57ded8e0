package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.StringJoiner;

import org.HdrHistogram.Histogram;

import io.sluice.cli.UsageException;
import io.sluice.testkit.RoundRobinRelay;
import io.sluice.testkit.bench.BenchKafka;

/**
 * Several bridge nodes on one Kafka and topic, each a child JVM ({@link LocalBridge}), behind one round-robin TCP
 * front ({@link RoundRobinRelay}, a load balancer without stickiness); {@link RecoveringSubscribers} connect through
 * it and traffic flows ({@link BenchPublisher}). After a warm-up and a measured window, one node is stopped (SIGKILL
 * by default); its clients reconnect through the front, which skips the dead node, and recover from their positions
 * on the others. Measured: how long until every one of them is subscribed again, the CPU the surviving nodes spent in
 * the window after the stop against the window before, latency before, in and after the storm, and at the end every
 * client's deliveries against what the topic holds for its key (read back with a Kafka consumer).
 */
public final class BridgeFailover {

    private final FailoverSettings settings;
    private final String kafka;
    private final PrintStream out;
    /** A topic per run: the exactness check reads it back whole, so on a running Kafka no other run's records may be in it. */
    private final String topic = "failover-" + Long.toString(System.currentTimeMillis(), 36);

    /** @param kafka a running Kafka's bootstrap servers; null: start one for the run */
    public BridgeFailover(FailoverSettings settings, String kafka, PrintStream out) {
        this.settings = settings;
        this.kafka = kafka;
        this.out = out;
    }

    public FailoverResult run() throws Exception {
        checkFileLimit();
        String token = OwnBridge.randomToken();
        try (BenchKafka kafka = BenchKafka.open(this.kafka)) {
            OwnBridge.createTopic(kafka.bootstrapServers(), topic, settings.partitions());
            List<LocalBridge> nodes = LocalBridge.startNodes(settings.nodes(), kafka.bootstrapServers(), topic, ValueShape.RAW, token, 0, "auto",
                    settings.bridgeKafka(), settings.bridgeJvm());
            List<InetSocketAddress> targets = new ArrayList<>();
            for (LocalBridge node : nodes) {
                targets.add(new InetSocketAddress("127.0.0.1", node.port()));
                out.printf("%s: pid %d on port %d%n", node.nodeName(), node.pid(), node.port());
            }
            try (RoundRobinRelay front = new RoundRobinRelay(targets);
                 RecoveringSubscribers clients = new RecoveringSubscribers(new InetSocketAddress("127.0.0.1", front.port()), token, topic,
                         settings.backoff(), 10_000, settings.clientThreads(), settings.seed())) {
                out.printf("%s; topic %s; round-robin front on port %d; %s%n", kafka.describe(), topic, front.port(), settings);
                connect(clients);
                return new Run(kafka.bootstrapServers(), nodes, clients).traffic();
            } finally {
                nodes.forEach(LocalBridge::close);
            }
        }
    }

    private void checkFileLimit() {
        OptionalLong limit = FdLimit.soft();
        long needed = (long) settings.clients() * FailoverSettings.FILES_PER_CLIENT + FdLimit.HEADROOM;
        if (limit.isPresent() && needed > limit.getAsLong()) {
            throw new UsageException("--clients %,d needs about %,d open files in this process (each client's socket and the front's two), but the limit is %,d: at most %,d clients here"
                    .formatted(settings.clients(), needed, limit.getAsLong(), (limit.getAsLong() - FdLimit.HEADROOM) / FailoverSettings.FILES_PER_CLIENT));
        }
    }

    private void connect(RecoveringSubscribers clients) throws InterruptedException {
        long start = System.nanoTime();
        Thread opener = new Thread(() -> clients.open(settings.clients(), settings.endpoints(), settings.connectRate()), "failover-connect");
        opener.setDaemon(true);
        opener.start();
        long deadline = start + Math.max(settings.settle().toNanos(), (long) (settings.clients() * 1e9 / settings.connectRate()) + settings.settle().toNanos());
        while (clients.subscribed() < settings.clients() && System.nanoTime() < deadline) {
            Thread.sleep(1_000);
            out.printf("[%4ds] connecting: %,d of %,d subscribed %s%n", (System.nanoTime() - start) / 1_000_000_000L, clients.subscribed(), settings.clients(),
                    clients.perNode());
        }
        opener.join();
        if (clients.subscribed() < settings.clients()) {
            throw new IllegalStateException("only %,d of %,d clients subscribed within %d s; first problem: %s"
                    .formatted(clients.subscribed(), settings.clients(), settings.settle().toSeconds(), clients.firstProblem()));
        }
        out.printf("all %,d clients subscribed: %s%n", settings.clients(), clients.perNode());
    }

    /** The traffic, the stop and the check, over one set of nodes and clients. */
    private final class Run {
        private final String bootstrap;
        private final List<LocalBridge> nodes;
        private final LocalBridge stopped;
        private final RecoveringSubscribers clients;

        Run(String bootstrap, List<LocalBridge> nodes, RecoveringSubscribers clients) {
            this.bootstrap = bootstrap;
            this.nodes = nodes;
            this.stopped = nodes.get(settings.stopNode() - 1);
            this.clients = clients;
        }

        FailoverResult traffic() throws Exception {
            long warmup = settings.warmup().toSeconds();
            long window = settings.window().toSeconds();
            long stopAt = warmup + window;
            long end = stopAt + 2 * window;
            Histogram before = new Histogram(3);
            Histogram storm = new Histogram(3);
            Histogram after = new Histogram(3);
            Histogram interval = null;
            long[] cpuBefore = null;
            long[] cpuAtStop = null;
            long[] cpuStormEnd = null;
            long stopTime = 0;
            int stoppedClients = 0;
            Map<String, Integer> perNodeAtStop = Map.of();
            long produced;
            long unstampedFrom = clients.unstamped();
            try (BenchPublisher publisher = new BenchPublisher(bootstrap, topic, settings.endpoints(), settings.rate(),
                    (key, stamp) -> LatencyStamp.payload(stamp, settings.payloadBytes())).start()) {
                long start = System.nanoTime();
                long lastMessages = clients.messages();
                long[] lastCpu = cpu();
                if (warmup == 0) {
                    cpuBefore = lastCpu;
                }
                clients.latency().reset();
                long settleEnd = Long.MAX_VALUE;
                for (long s = 1; s <= end || stopTime != 0 && clients.resubscribed() < stoppedClients && System.nanoTime() < settleEnd; s++) {
                    Thread.sleep(Math.max(0, (start + s * 1_000_000_000L - System.nanoTime()) / 1_000_000));
                    interval = clients.latency().getIntervalHistogram(interval);
                    String phase;
                    if (s <= warmup) {
                        phase = "warm-up";
                    } else if (s <= stopAt) {
                        phase = "before";
                        before.add(interval);
                    } else if (s <= stopAt + window) {
                        phase = "storm";
                        storm.add(interval);
                    } else if (s <= end) {
                        phase = "after";
                        after.add(interval);
                    } else {
                        phase = "waiting";
                    }
                    long[] cpu = cpu();
                    if (s == warmup) {
                        cpuBefore = cpu;
                    }
                    if (s == stopAt + window) {
                        cpuStormEnd = cpu;
                    }
                    long messages = clients.messages();
                    out.printf("[%4ds] %-7s %,6d subscribed %s  out %,8d msgs/s  latency p99 %8.2f ms max %8.2f ms  nodes' CPU %s%s%n", s, phase,
                            clients.subscribed(), clients.perNode(), messages - lastMessages, ms(interval.getValueAtPercentile(99)),
                            ms(interval.getMaxValue()), cores(lastCpu, cpu), stopTime == 0 ? ""
                                    : "  stopped node's clients resubscribed %,d of %,d".formatted(clients.resubscribed(), stoppedClients));
                    lastMessages = messages;
                    lastCpu = cpu;
                    if (s == stopAt) {
                        // The storm window starts with the stop; the before window's CPU ends here.
                        perNodeAtStop = clients.perNode();
                        cpuAtStop = cpu;
                        stopTime = System.nanoTime();
                        stoppedClients = clients.markStopped(stopped.nodeName(), stopTime);
                        if (settings.stop() == FailoverSettings.Stop.KILL) {
                            stopped.kill();
                        } else {
                            stopped.terminate();
                        }
                        settleEnd = stopTime + settings.settle().toNanos();
                        out.printf("[%4ds] %s %s (pid %d) with %,d clients on it%n", s, settings.stop().signal(), stopped.nodeName(), stopped.pid(), stoppedClients);
                    }
                }
                produced = publisher.sent();
                if (publisher.failed() > 0) {
                    out.printf("publisher: %,d sends failed%n", publisher.failed());
                }
            }
            Map<String, TopicRecords.KeyRecords> truth = TopicRecords.read(bootstrap, topic, Duration.ofSeconds(60));
            int caughtUp = drain(truth);
            return result(truth, caughtUp, produced, clients.unstamped() - unstampedFrom, stopTime, stoppedClients, perNodeAtStop,
                    cpuBefore, cpuAtStop, cpuStormEnd, before, storm, after);
        }

        /** Waits until every client has its key's last record, or the settle time is up; returns how many have. */
        private int drain(Map<String, TopicRecords.KeyRecords> truth) throws InterruptedException {
            long start = System.nanoTime();
            long deadline = start + settings.settle().toNanos();
            int caughtUp = caughtUp(truth);
            while (caughtUp < settings.clients() && System.nanoTime() < deadline) {
                Thread.sleep(1_000);
                caughtUp = caughtUp(truth);
                out.printf("[draining %2ds] %,d of %,d clients have their endpoint's last record%n", (System.nanoTime() - start) / 1_000_000_000L, caughtUp,
                        settings.clients());
            }
            return caughtUp;
        }

        private int caughtUp(Map<String, TopicRecords.KeyRecords> truth) {
            int n = 0;
            for (RecoveringClient client : clients.clients()) {
                TopicRecords.KeyRecords records = truth.get(BenchTopic.key(client.endpoint()));
                if (records == null || client.position(records.partition()) >= records.last()) {
                    n++;
                }
            }
            return n;
        }

        private FailoverResult result(Map<String, TopicRecords.KeyRecords> truth, int caughtUp, long produced, long unstamped, long stopTime,
                                      int stoppedClients, Map<String, Integer> perNodeAtStop, long[] cpuBefore, long[] cpuAtStop, long[] cpuStormEnd,
                                      Histogram before, Histogram storm, Histogram after) {
            Histogram fromStop = new Histogram(3);
            Histogram fromDisconnect = new Histogram(3);
            int exact = 0;
            int withGaps = 0;
            int withDuplicates = 0;
            int outOfOrder = 0;
            int unexpected = 0;
            long missing = 0;
            long duplicates = 0;
            long gapEvents = 0;
            long delivered = 0;
            List<RecoveringClient> all = clients.clients();
            for (RecoveringClient client : all) {
                if (client.killToResubscribedNanos() >= 0) {
                    fromStop.recordValue(client.killToResubscribedNanos() / 1_000);
                }
                if (client.disconnectToResubscribedNanos() >= 0) {
                    fromDisconnect.recordValue(client.disconnectToResubscribedNanos() / 1_000);
                }
                gapEvents += client.gapEvents();
                TopicRecords.KeyRecords records = truth.getOrDefault(BenchTopic.key(client.endpoint()), new TopicRecords.KeyRecords(0, new long[0]));
                DeliveryCheck check = DeliveryCheck.of(records.after(client.firstPosition(records.partition())), client.delivered(records.partition()));
                delivered += check.delivered();
                exact += check.exact() ? 1 : 0;
                withGaps += check.missing() > 0 ? 1 : 0;
                withDuplicates += check.duplicates() > 0 ? 1 : 0;
                outOfOrder += check.outOfOrder() > 0 ? 1 : 0;
                unexpected += check.unexpected() > 0 ? 1 : 0;
                missing += check.missing();
                duplicates += check.duplicates();
            }
            int resubscribed = (int) fromStop.getTotalCount();
            double survivorsBefore = 0;
            double survivorsStorm = 0;
            for (int i = 0; i < nodes.size(); i++) {
                if (nodes.get(i) != stopped) {
                    survivorsBefore += (cpuAtStop[i] - cpuBefore[i]) / 1e9;
                    survivorsStorm += (cpuStormEnd[i] - cpuAtStop[i]) / 1e9;
                }
            }
            double stoppedBefore = (cpuAtStop[settings.stopNode() - 1] - cpuBefore[settings.stopNode() - 1]) / 1e9;
            boolean any = resubscribed > 0;
            return new FailoverResult(settings.nodes(), settings.clients(), settings.endpoints(), settings.rate(), settings.stop().label(), stopped.nodeName(),
                    stoppedClients, resubscribed, resubscribed == stoppedClients && any ? fromStop.getMaxValue() / 1e6 : Double.NaN,
                    any ? fromStop.getValueAtPercentile(50) / 1e6 : Double.NaN, any ? fromStop.getValueAtPercentile(99) / 1e6 : Double.NaN,
                    any ? fromStop.getMaxValue() / 1e6 : Double.NaN,
                    fromDisconnect.getTotalCount() > 0 ? fromDisconnect.getValueAtPercentile(50) / 1e6 : Double.NaN,
                    fromDisconnect.getTotalCount() > 0 ? fromDisconnect.getValueAtPercentile(99) / 1e6 : Double.NaN,
                    fromDisconnect.getTotalCount() > 0 ? fromDisconnect.getMaxValue() / 1e6 : Double.NaN,
                    clients.reconnects(), clients.connectFailures(), clients.serverCloses(), produced, delivered, unstamped,
                    all.size(), exact, withGaps, withDuplicates, outOfOrder, unexpected, missing, duplicates, gapEvents, caughtUp,
                    settings.window().toSeconds(), survivorsBefore, survivorsStorm, stoppedBefore,
                    ms(before.getValueAtPercentile(50)), ms(before.getValueAtPercentile(99)), ms(storm.getValueAtPercentile(99)), ms(storm.getMaxValue()),
                    ms(after.getValueAtPercentile(99)), perNodeAtStop, clients.problems(), clients.firstProblem());
        }

        /** CPU used so far by each node; a stopped node's stays at its last reading. */
        private long[] cpu() {
            long[] now = new long[nodes.size()];
            for (int i = 0; i < nodes.size(); i++) {
                now[i] = nodes.get(i).cpuNanos();
            }
            return now;
        }

        private String cores(long[] from, long[] to) {
            StringJoiner all = new StringJoiner(" ");
            for (int i = 0; i < to.length; i++) {
                all.add(nodes.get(i) == stopped && from[i] == to[i] ? "-" : "%.2f".formatted((to[i] - from[i]) / 1e9));
            }
            return all.toString();
        }
    }

    private static double ms(double micros) {
        return micros / 1000.0;
    }
}
