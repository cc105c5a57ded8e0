package io.sluice.proxy.filter;

/**
 * Creates filters of one kind. Found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/io.sluice.proxy.filter.FilterFactory}) and named in YAML by
 * {@code filterDefinitions[].type}: the factory's simple class name or its fully qualified name.
 *
 * @param <C> the filter's config type, bound from {@code filterDefinitions[].config} by Jackson
 *            ({@link Void} when the filter takes none)
 * @param <I> whatever {@link #initialize} prepares once per definition and every filter instance shares
 */
public interface FilterFactory<C, I> {

    /** The class {@code config} is bound to. */
    Class<C> configType();

    /**
     * Called once per filter definition at start-up: validate the config and build shared state (key
     * caches, JWKS clients). Throw {@link IllegalArgumentException} with a message naming the bad field
     * to stop the proxy from starting.
     */
    I initialize(FilterFactoryContext context, C config);

    /**
     * Checks {@code config} as {@link #initialize} would, reaching no network service and leaving nothing running:
     * what {@code sluice proxy --validate} runs in CI. Throw {@link IllegalArgumentException} with a message naming the
     * bad field. The default initialises and closes at once, which is right when {@code initialize} only reads its
     * config and local files; a factory whose {@code initialize} logs in somewhere (a KMS) overrides it.
     */
    default void validate(FilterFactoryContext context, C config) {
        close(initialize(context, config));
    }

    /** Called once per client connection, on that connection's event loop. */
    Filter createFilter(FilterFactoryContext context, I initializationData);

    /**
     * Whether filters of this kind authenticate clients, reporting success with
     * {@link FilterContext#authenticated}. On a virtual cluster with such a filter in its chain, the proxy
     * treats every new connection as unauthenticated until then and holds it to the small
     * {@code network.preAuthentication} limits (frame size, deadline, queued requests), and opens the broker
     * connection only when a request has to go there.
     */
    default boolean authenticatesClients() {
        return false;
    }

    /** Releases what {@link #initialize} built, at shutdown. */
    default void close(I initializationData) {
    }
}
