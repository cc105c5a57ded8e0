package io.sluice.app.demo;

import java.io.PrintStream;
import java.util.List;

/**
 * A module's contribution to {@code sluice demo}, found with {@link java.util.ServiceLoader}: filters to
 * add to the demo proxy, and something to show once it runs. Lets each module add its part to the demo
 * without the proxy module knowing the others.
 */
public interface DemoPart {

    /** Where the demo's pieces are. */
    record Demo(String kafkaBootstrap, String proxyBootstrap) {
    }

    /** YAML items for {@code filterDefinitions}, each starting with {@code - name:} at column 0; empty for none. */
    default String filterDefinitions() {
        return "";
    }

    /** Names of those filters, in chain order, to add to {@code defaultFilters}. */
    default List<String> filters() {
        return List.of();
    }

    /**
     * Runs after the proxy is up: proves the part works and prints how to try it. A part may leave things running
     * (a server, a producer) for as long as the demo runs; {@link #close} stops them.
     */
    void show(Demo demo, PrintStream out) throws Exception;

    /** Stops what {@link #show} left running; called once when the demo ends (Ctrl-C or {@code --check}), before the proxy stops. */
    default void close() {
    }
}
