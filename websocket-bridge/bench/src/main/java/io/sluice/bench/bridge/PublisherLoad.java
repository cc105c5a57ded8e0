package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * Clients publishing into Kafka through the bridge ({@link BenchPublishers}) and a consumer checking what arrived
 * ({@link PublishedRecords}): alone ({@link OwnBridge#publish}) or beside a fan-out ({@link OwnBridge#run(BenchSettings,
 * BesideTraffic, PrintStream)}). After {@link #stop()}, {@link #result()} holds the figures.
 */
public final class PublisherLoad implements BesideTraffic {

    /** How long to wait for the last acks, and for Kafka to show the last acked publishes, at the end. */
    private static final long SETTLE_NANOS = 30_000_000_000L;

    private final PublishSettings settings;
    private BenchPublishers publishers;
    private PublishedRecords records;
    private final Histogram ackTotal = new Histogram(3);
    private final Histogram kafkaTotal = new Histogram(3);
    private Histogram ackInterval;
    private Histogram kafkaInterval;
    private long windowStart;
    private long sentFrom;
    private long ackedFrom;
    private long lastSent;
    private long lastAcked;
    private long lastRecords;
    private boolean measuring;
    private PublishResult result;

    public PublisherLoad(PublishSettings settings) {
        this.settings = settings;
    }

    public PublishSettings settings() {
        return settings;
    }

    @Override
    public void prepare(BridgeBenchmark.Target target, PrintStream out) throws Exception {
        records = new PublishedRecords(target.bootstrap(), target.topic()).start();
        publishers = new BenchPublishers(target.urlFor(settings.transport()), target.token(), target.topic(), settings);
        long connectStart = System.nanoTime();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-publish-progress");
            t.setDaemon(true);
            return t;
        });
        try {
            ticker.scheduleAtFixedRate(() -> out.printf("[%4ds] publishers connecting: %,d attempted, %,d connected, %,d failed%n",
                    (System.nanoTime() - connectStart) / 1_000_000_000L, publishers.attempted(), publishers.ready(), publishers.failed()), 1, 1, TimeUnit.SECONDS);
            publishers.connect();
        } finally {
            ticker.shutdownNow();
        }
        out.printf("publishers connected: %,d of %,d, %,d failed%s%n", publishers.ready(), settings.clients(), publishers.failed(),
                publishers.firstProblem() == null ? "" : "; first problem: " + publishers.firstProblem());
    }

    @Override
    public void start() {
        publishers.start(settings.seed());
        windowStart = System.nanoTime();
    }

    @Override
    public void measureFrom() {
        ackInterval = publishers.ackLatency().getIntervalHistogram(ackInterval);
        kafkaInterval = records.latency().getIntervalHistogram(kafkaInterval);
        ackTotal.reset();
        kafkaTotal.reset();
        windowStart = System.nanoTime();
        sentFrom = publishers.sent();
        ackedFrom = publishers.acked();
        measuring = true;
    }

    @Override
    public String second(boolean measured) {
        ackInterval = publishers.ackLatency().getIntervalHistogram(ackInterval);
        kafkaInterval = records.latency().getIntervalHistogram(kafkaInterval);
        if (measured && measuring) {
            ackTotal.add(ackInterval);
            kafkaTotal.add(kafkaInterval);
        }
        long sent = publishers.sent();
        long acked = publishers.acked();
        long read = records.records();
        String line = "        publish %,6d connected  sent %,7d/s acked %,7d/s in Kafka %,7d/s  ack mean %7.2f ms p99 %8.2f ms  Kafka mean %7.2f ms p99 %8.2f ms"
                .formatted(publishers.ready(), sent - lastSent, acked - lastAcked, read - lastRecords,
                        ackInterval.getMean() / 1000, ackInterval.getValueAtPercentile(99) / 1000.0,
                        kafkaInterval.getMean() / 1000, kafkaInterval.getValueAtPercentile(99) / 1000.0);
        lastSent = sent;
        lastAcked = acked;
        lastRecords = read;
        return line;
    }

    @Override
    public void stop() throws Exception {
        if (publishers == null) {
            return;
        }
        double seconds = (System.nanoTime() - windowStart) / 1e9;
        long published = publishers.sent() - sentFrom;
        long acked = publishers.acked() - ackedFrom;
        publishers.stop();
        // Every publish answered (acked or refused), then Kafka read up to every acked one, each bounded.
        long deadline = System.nanoTime() + SETTLE_NANOS;
        while (publishers.sent() > publishers.acked() + publishers.refused() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        long sentNotAnswered = Math.max(0, publishers.sent() - publishers.acked() - publishers.refused());
        deadline = System.nanoTime() + SETTLE_NANOS;
        while (records.records() < publishers.acked() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        // A little longer: a duplicate or an unacked write would arrive after the count was reached.
        Thread.sleep(500);
        records.stop();
        long ackedInAll = 0;
        long lost = 0;
        long writtenNotAcked = 0;
        long inKafka = 0;
        Set<Integer> clients = new HashSet<>(records.clients());
        for (PublishingClient c : publishers.connections()) {
            BitSet ack = c.acked();
            BitSet seen = records.seen(c.client());
            clients.remove(c.client());
            ackedInAll += ack.cardinality();
            inKafka += seen.cardinality();
            BitSet missing = (BitSet) ack.clone();
            missing.andNot(seen);
            lost += missing.cardinality();
            BitSet extra = (BitSet) seen.clone();
            extra.andNot(ack);
            writtenNotAcked += extra.cardinality();
        }
        // Records of clients that closed before the end are not in connections(): all of them count as not acked.
        for (int gone : clients) {
            inKafka += records.seen(gone).cardinality();
            writtenNotAcked += records.seen(gone).cardinality();
        }
        String problem = publishers.firstProblem() != null ? publishers.firstProblem() : records.firstProblem();
        if (records.unreadable() > 0 && problem == null) {
            problem = records.unreadable() + " published records without a readable stamp and name";
        }
        result = new PublishResult(settings.clients(), publishers.ready(), publishers.failed(), settings.ratePerClient(), settings.payloadBytes(),
                seconds, published, acked, acked / seconds, PublishResult.Latency.of(ackTotal), PublishResult.Latency.of(kafkaTotal),
                ackedInAll, inKafka, lost, records.duplicates(), writtenNotAcked, publishers.refused(), sentNotAnswered, publishers.maxLagMillis(),
                Double.NaN, -1, problem);
        publishers.close();
    }

    /** The figures, after {@link #stop()}. */
    public PublishResult result() {
        if (result == null) {
            throw new IllegalStateException("the publishing clients have not run");
        }
        return result;
    }

    void result(PublishResult withBridge) {
        this.result = withBridge;
    }
}
