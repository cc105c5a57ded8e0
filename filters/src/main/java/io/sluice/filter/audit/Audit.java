package io.sluice.filter.audit;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * The Audit filter: an audit trail of what clients do through the proxy, as JSON lines to a rolling file, standard
 * output and/or a Kafka topic (docs/audit.md has the schema, every event type and field, the sinks and the rules).
 * Put it first in the chain, before JwtAuth, so that it sees each request as the client sent it and each response as
 * the client gets it:
 *
 * <pre>
 * filterDefinitions:
 *   - name: audit
 *     type: Audit
 *     config:
 *       sampleInterval: 60s
 *       file: {path: /var/log/sluice/audit.jsonl, maxFileBytes: 104857600, maxFiles: 10}
 *       kafka: {topic: sluice-audit, bootstrapServers: "kafka-0:9092"}
 *   - name: jwt
 *     type: JwtAuth
 *     config: {...}
 * defaultFilters: [audit, jwt]
 * </pre>
 *
 * Every connection's filter shares one {@link AuditLog}: the sinks (each a bounded buffer and a thread of its own), the
 * sampler and the meters. Nothing an event loop does for it blocks; a full buffer drops and counts.
 */
public final class Audit implements FilterFactory<AuditConfig, Audit.Shared> {

    /** What every connection shares: the log, and the timer that writes the sampler's counts. */
    record Shared(AuditLog log, ScheduledFuture<?> sweep) {
    }

    private final Clock clock;
    private final PrintStream stdout;

    public Audit() {
        this(Clock.systemUTC(), System.out);
    }

    /** With another clock (sampling intervals, event times) and standard output, for tests. */
    Audit(Clock clock, PrintStream stdout) {
        this.clock = clock;
        this.stdout = stdout;
    }

    @Override
    public Class<AuditConfig> configType() {
        return AuditConfig.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, AuditConfig config) {
        check(context.filterName(), config);
        AuditMetrics metrics = new AuditMetrics(context.meterRegistry(), context.filterName());
        List<EventSink> sinks = new ArrayList<>();
        try {
            if (config.file() != null) {
                sinks.add(new FileSink(context.filterName(), config.file(), metrics));
            }
            if (config.stdout() != null) {
                sinks.add(new StdoutSink(context.filterName(), config.stdout(), metrics, stdout));
            }
            if (config.kafka() != null) {
                sinks.add(new KafkaTopicSink(context.filterName(), config.kafka(), metrics));
            }
        } catch (RuntimeException e) {
            sinks.forEach(EventSink::close);
            throw e;
        }
        AuditLog log = new AuditLog(clock, new Sampler(clock, config.sampleInterval(), config.maxSampledPrincipals()), metrics, sinks);
        long interval = config.sampleInterval().toMillis();
        ScheduledFuture<?> sweep = context.eventLoop().scheduleAtFixedRate(log::sweep, interval, interval, TimeUnit.MILLISECONDS);
        return new Shared(log, sweep);
    }

    /** The checks {@link #initialize} makes, opening no file, starting no thread and no producer. */
    @Override
    public void validate(FilterFactoryContext context, AuditConfig config) {
        check(context.filterName(), config);
    }

    /** @throws IllegalArgumentException naming the field */
    static void check(String filterName, AuditConfig config) {
        if (config == null) {
            throw new IllegalArgumentException("file, stdout, kafka: at least one sink is required");
        }
        if (config.file() != null) {
            Path parent = Path.of(config.file().path()).toAbsolutePath().getParent();
            if (parent == null || !Files.isDirectory(parent)) {
                throw new IllegalArgumentException("file.path: the directory " + parent + " does not exist");
            }
        }
        if (config.kafka() != null) {
            KafkaTopicSink.producerConfig(filterName, config.kafka());
        }
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new AuditFilter(shared.log());
    }

    /** At shutdown, once every connection has closed and written its last events: the sampler's counts, then the sinks drain. */
    @Override
    public void close(Shared shared) {
        shared.sweep().cancel(false);
        shared.log().close();
    }
}
