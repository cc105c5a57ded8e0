package io.sluice.app.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.quotas.QuotasBench;
import io.sluice.cli.KafkaOption;
import io.sluice.cli.UsageException;

/**
 * {@code sluice bench quotas}: two tenants through one proxy, a flooder and a steady producer, each with a librdkafka
 * consumer; the steady tenant alone, then both without quotas, then both with the flooder quoted, side by side. Only
 * the options: {@link QuotasBench} runs it, apart from this class because picocli reflects on it at start-up and the
 * harness is in lib-extra/.
 */
@Command(name = "quotas", description = {
        "Two tenants through one proxy (JwtAuth), each a kafka-clients producer and a librdkafka consumer: one floods, one produces at a"
                + " steady rate. The steady tenant alone, then both without quotas, then with the Quotas filter limiting the flooder:",
        "the flooder's rate against its limit, the steady tenant's p50/p99 latency, errors, lost records and the throttle the clients saw."})
public final class BenchQuotasCommand implements Callable<Integer> {

    @Mixin
    KafkaOption kafka;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "30", description = "Length of each of the three runs, in seconds (default: ${DEFAULT-VALUE}).")
    int duration;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "5",
            description = "Before the runs, both tenants through each proxy for this long, not counted (default: ${DEFAULT-VALUE}; 0: none).")
    int warmup;

    @Option(names = "--flood-limit", paramLabel = "MB_S", defaultValue = "5",
            description = "The flooder's produce and fetch quota, in MB/s (10^6 bytes) (default: ${DEFAULT-VALUE}).")
    double floodLimit;

    @Option(names = "--steady-rate", paramLabel = "N", defaultValue = "100", description = "The steady tenant's records per second (default: ${DEFAULT-VALUE}).")
    int steadyRate;

    @Option(names = "--record-bytes", paramLabel = "B", defaultValue = "1024", description = "Every record's value size, at least 16 (default: ${DEFAULT-VALUE}).")
    int recordBytes;

    private final PrintStream out;

    public BenchQuotasCommand() {
        this(System.out);
    }

    BenchQuotasCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        if (duration < 1) {
            throw new UsageException("--duration must be at least 1 second, not " + duration);
        }
        if (warmup < 0) {
            throw new UsageException("--warmup must be 0 or more seconds, not " + warmup);
        }
        if (!(floodLimit > 0) || Double.isInfinite(floodLimit)) {
            throw new UsageException("--flood-limit must be a positive number of MB/s, not " + floodLimit);
        }
        if (steadyRate < 1 || steadyRate > 100_000) {
            throw new UsageException("--steady-rate must be between 1 and 100000 records per second, not " + steadyRate);
        }
        if (recordBytes < 16 || recordBytes > 1_048_576) {
            throw new UsageException("--record-bytes must be between 16 and 1048576, not " + recordBytes);
        }
        return QuotasBench.run(new QuotasBench.Settings(Main.class.getName(), kafka.given(), duration, warmup, Math.round(floodLimit * 1e6), steadyRate,
                recordBytes), out);
    }
}
