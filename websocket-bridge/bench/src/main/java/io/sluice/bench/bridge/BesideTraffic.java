package io.sluice.bench.bridge;

import java.io.PrintStream;

/**
 * A load that runs beside the fan-out's traffic in one {@link BridgeBenchmark} run, against the same bridge, with the
 * same warm-up and measured window: e.g. clients publishing into Kafka while others receive (MigratoryData's gaming
 * scenario). The bridge's CPU over the window is then the cost of both. Only with traffic: an idle run refuses one.
 */
public interface BesideTraffic {

    /** Nothing beside the fan-out: what {@code bench bridge} runs. */
    BesideTraffic NONE = new BesideTraffic() {
    };

    /** After the subscribers are connected and the bridge's memory with them measured: open this load's connections. */
    default void prepare(BridgeBenchmark.Target target, PrintStream out) throws Exception {
    }

    /** The fan-out's traffic has started (warm-up first). */
    default void start() {
    }

    /** The measured window starts now. */
    default void measureFrom() {
    }

    /** Once a second; returns a progress line, or null for none. */
    default String second(boolean measuring) {
        return null;
    }

    /** The measured window ended: stop and settle (drain, check). */
    default void stop() throws Exception {
    }
}
