package io.sluice.app.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.idle.IdleBench;
import io.sluice.cli.KafkaOption;

/**
 * {@code sluice bench idle}: an idle proxy's CPU, with no client and then with idle clients connected. Only the
 * options: {@link IdleBench} measures, apart from this class because picocli reflects on it at start-up and the
 * harness is in lib-extra/.
 */
@Command(name = "idle", description = "An idle proxy's CPU: with no client, then with idle Kafka clients connected (producers, consumers long-polling"
        + " an empty partition).")
public final class BenchIdleCommand implements Callable<Integer> {

    /** A topic per run: on a running Kafka (--kafka) an earlier run's is there already. */
    private final String topic = "idle-" + Long.toString(System.currentTimeMillis(), 36);

    @Mixin
    KafkaOption kafka;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "60", description = "Each measured window (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--settle", paramLabel = "S", defaultValue = "20",
            description = "Wait before each window, for start-up and connections to settle (default: ${DEFAULT-VALUE}).")
    int settle;

    @Option(names = "--producers", paramLabel = "N", defaultValue = "50", description = "Idle producers in the second window (default: ${DEFAULT-VALUE}).")
    int producers;

    @Option(names = "--consumers", paramLabel = "N", defaultValue = "10",
            description = "Consumers long-polling an empty partition in the second window (default: ${DEFAULT-VALUE}).")
    int consumers;

    private final PrintStream out;

    public BenchIdleCommand() {
        this(System.out);
    }

    BenchIdleCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        return IdleBench.run(new IdleBench.Settings(Main.class.getName(), kafka.given(), topic, seconds, settle, producers, consumers), out);
    }
}
