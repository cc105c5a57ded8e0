package io.sluice.bridge.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.bridge.auth.Authenticator;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.format.FormatLimits;
import io.sluice.format.Formats;
import io.sluice.format.mask.Masks;
import io.sluice.format.SchemaFileException;
import io.sluice.format.registry.CachingSchemaSource;
import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaUnavailableException;
import io.sluice.bridge.http.Http2Connections;
import io.sluice.bridge.kafka.KafkaReader;
import io.sluice.bridge.kafka.LogReader;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.bridge.kafka.Publisher;
import io.sluice.bridge.mqtt.SessionStore;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.recovery.KafkaRecovery;
import io.sluice.bridge.session.ReaderStartup;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;
import io.sluice.bridge.session.SubjectConnections;
import io.sluice.bridge.sse.SseStreams;
import io.sluice.bridge.http.Origins;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Hub;
import io.sluice.bridge.asyncapi.Catalogue;
import io.sluice.bridge.web.StaticContent;
import io.sluice.build.BuildInfo;
import io.sluice.config.ConfigException;
import io.sluice.config.HostPort;
import io.sluice.management.ManagementServer;
import io.sluice.management.ManagementServer.Readiness;
import io.sluice.metrics.JvmMetrics;
import io.sluice.transport.Transport;
import io.sluice.tls.SslContexts;

/**
 * A running bridge node: the Kafka reader feeding the hub, the WebSocket listener, the recovery reader, the publisher
 * and the management port. Nodes share nothing; any node can serve any client.
 */
public final class BridgeServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeServer.class);

    private final BridgeConfig config;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final BridgeMetrics metrics = new BridgeMetrics(registry);
    private final Transport transport;
    private final ChannelGroup channels = new DefaultChannelGroup("bridge-connections", GlobalEventExecutor.INSTANCE);
    private final EventLoopGroup group;
    private final Hub hub;
    private final KafkaReader reader;
    private final LogReader logReader;
    private final Publisher publisher;
    private final CachingSchemaSource schemas;
    private final Catalogue catalogue;
    private final AutoCloseable jvmMetrics;
    private final ServerBootstrap bootstrap;
    // The MQTT listener's, or null when mqtt.enabled is false.
    private final ServerBootstrap mqttBootstrap;
    // Persistent MQTT sessions' state in Kafka, or null unless MQTT is on with mqtt.sessions.maxExpiry above 0.
    private final SessionStore mqttSessions;
    // MQTT over WebSocket's, or null without mqtt.websocketListen.
    private final ServerBootstrap mqttWebSocketBootstrap;
    private Channel listener;
    private Channel mqttListener;
    private Channel mqttWebSocketListener;
    private ManagementServer management;
    private volatile boolean stopping;

    /**
     * Reads and parses the local schema files of {@code formats} as start-up would, without a registry (registry schemas
     * are fetched when records need them): for {@code --validate}. Throws {@link ConfigException} naming the field.
     */
    public static void checkFormats(BridgeConfig config) {
        SchemaSource notConsulted = new SchemaSource() {
            @Override
            public RegisteredSchema byId(int id) throws SchemaUnavailableException {
                throw new SchemaUnavailableException("the registry is not consulted by --validate", false);
            }

            @Override
            public RegisteredSchema latest(String subject) throws SchemaUnavailableException {
                return byId(-1);
            }

            @Override
            public RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException {
                return byId(-1);
            }
        };
        try {
            Formats.build(config.formats(), notConsulted, FormatLimits.defaults());
        }
        catch (SchemaFileException e) {
            throw new ConfigException(List.of(e.getMessage()));
        }
    }

    /** The topics' record formats; a local schema file that cannot be read or parsed stops startup, naming its field. */
    private Formats formats(BridgeConfig config) {
        try {
            return Formats.build(config.formats(), schemas, FormatLimits.defaults());
        }
        catch (SchemaFileException e) {
            if (schemas != null) {
                schemas.close();
            }
            throw new ConfigException(List.of(e.getMessage()));
        }
    }

    /**
     * The masks, checked against the schemas of the topics the node reads (docs/masking.md): a mask a field cannot carry
     * stops startup naming the field; a schema the registry cannot give now is checked by the topic's first record.
     */
    private Masks masks(BridgeConfig config, Formats formats) {
        Masks masks;
        List<String> problems;
        try {
            masks = Masks.build(config.masking(), "masking");
            problems = masks.checkSchemas(formats, config.readTopics(),
                    why -> LOG.warn("masking: cannot check the masks against the schema of {} now; its records are checked as they come", why));
        }
        catch (IllegalArgumentException e) {
            problems = List.of(e.getMessage());
            masks = null;
        }
        if (!problems.isEmpty()) {
            if (schemas != null) {
                schemas.close();
            }
            throw new ConfigException(problems);
        }
        return masks;
    }

    private BridgeServer(BridgeConfig config, Authenticator authenticator, StaticContent content) {
        this.config = config;
        String node = config.server().nodeName();
        // First, before anything that would need closing: a sessions topic that cannot hold sessions stops start-up,
        // naming mqtt.sessions.topic.
        this.mqttSessions = config.mqtt().enabled() && config.mqtt().sessions().enabled()
                ? SessionStore.start(config.kafka(), config.mqtt().sessions(), node) : null;
        this.jvmMetrics = JvmMetrics.bind(registry);
        PartitionEpochs epochs = new PartitionEpochs();
        // One registry client and schema cache for the node: the reader's decoding and the publishes share it.
        this.schemas = config.schemaRegistry() == null ? null : CachingSchemaSource.create(config.schemaRegistry(), registry);
        Formats formats = formats(config);
        Masks masks = masks(config, formats);
        // The AsyncAPI document and catalogue page, only when asked for: the document names every topic and schema.
        this.catalogue = config.catalogue().enabled() ? Catalogue.start(config, formats) : null;
        if (catalogue != null) {
            content = catalogue.serve(content);
        }
        this.hub = new Hub(new EndpointTable(config.mappings()), epochs, config.recovery(), config.delta(), config.filters(),
                formats, new MessageEncoder(PooledByteBufAllocator.DEFAULT), metrics);
        // Records whose schema id the node has not seen wait, their partition paused, while it is looked up off the
        // reader thread: the one reader feeds every topic of the node (docs/bridge-registry.md).
        this.reader = new KafkaReader(config.kafka(), config.readTopics(), epochs, hub, node,
                record -> formats.pending(record.topic(), record.key(), record.value()));
        this.logReader = new LogReader(config.kafka(), config.recovery().kafkaConcurrency(), config.recovery().kafkaQueue(),
                config.recovery().kafkaTimeout(), node);
        this.publisher = new Publisher(config.kafka(), node);
        SessionServices services = new SessionServices(node, hub, authenticator, publisher,
                new KafkaRecovery(logReader, PooledByteBufAllocator.DEFAULT, metrics, formats), metrics, config.auth(), config.outbound(),
                config.server().maxSubscriptionsPerConnection(), config.requests(), config.recovery(), readerStartup(), config.filters(), formats,
                new SubjectConnections(config.connections().maxConnectionsPerSubject()), masks);
        // The proxy's TLS material loading (PEM or key store, passwords, protocols): one home for both listeners.
        // With http.http2, ALPN offers h2 before http/1.1; BridgeChannelInitializer builds the pipeline the client chose.
        SslContext tls = config.server().tls() == null ? null : SslContexts.forServer(config.server().tls(), "server.tls",
                config.http().http2() ? Http2Connections.ALPN_PROTOCOLS : List.of());
        this.transport = Transport.forConfig(config.server().transport(), "server.transport");
        this.group = transport.newGroup(config.server().workerThreads(), "sluice-bridge");
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                // One socket read (at most 64 KiB) per read operation: the WritabilityGate can only hold the next
                // operation, so this is what a non-reading client gets past it. Netty's default reads up to 16 buffers
                // in one operation; clients send small requests, so nothing honest needs more.
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator().maxMessagesPerRead(1))
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.outbound().lowWaterMarkBytes(), config.outbound().highWaterMarkBytes()))
                ;
        BridgeChannelInitializer http = new BridgeChannelInitializer(config.server(), config.connections(), config.http(), tls, services, channels, content,
                config.http().enabled() ? new SseStreams(services, config.http(), Origins.forListener(config.connections().allowedOrigins(), tls != null, config.http())) : null);
        bootstrap.childHandler(http);
        if (config.server().socketSendBufferBytes() > 0) {
            bootstrap.childOption(ChannelOption.SO_SNDBUF, config.server().socketSendBufferBytes());
        }
        this.bootstrap = bootstrap;
        if (config.mqtt().enabled()) {
            // The same event loops, socket options and connection gate as the WebSocket listener (docs/bridge-mqtt.md).
            SslContext mqttTls = config.mqtt().tls() == null ? null : SslContexts.forServer(config.mqtt().tls(), "mqtt.tls", List.of());
            this.mqttBootstrap = bootstrap.clone()
                    .childHandler(new MqttChannelInitializer(config.mqtt(), config.connections(), mqttTls, services, mqttSessions, http, false));
            this.mqttWebSocketBootstrap = config.mqtt().websocketListen() == null ? null : bootstrap.clone()
                    .childHandler(new MqttChannelInitializer(config.mqtt(), config.connections(), mqttTls, services, mqttSessions, http, true));
        }
        else {
            this.mqttBootstrap = null;
            this.mqttWebSocketBootstrap = null;
        }
    }

    private ReaderStartup readerStartup() {
        CompletableFuture<Void> reading = reader.assignment();
        return new ReaderStartup(reading,
                reading.copy().completeOnTimeout(null, config.recovery().startupWait().toMillis(), TimeUnit.MILLISECONDS));
    }

    /** Starts reading Kafka and accepting connections; returns once the listener is bound. */
    public static BridgeServer start(BridgeConfig config, Authenticator authenticator) {
        return start(config, authenticator, StaticContent.none());
    }

    /** The same, also serving {@code content} to plain HTTP GETs (the JavaScript client, demo pages). */
    public static BridgeServer start(BridgeConfig config, Authenticator authenticator, StaticContent content) {
        BridgeServer server = new BridgeServer(config, authenticator, content);
        try {
            server.startAll();
            return server;
        }
        catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void startAll() {
        reader.start();
        InetSocketAddress address = config.server().listen().wildcard()
                ? new InetSocketAddress(config.server().listen().port())
                : new InetSocketAddress(config.server().listen().host(), config.server().listen().port());
        try {
            listener = bootstrap.bind(address).sync().channel();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + address, e);
        }
        catch (Exception e) {
            throw new UncheckedIOException(new IOException("cannot listen on " + config.server().listen() + ": " + e.getMessage(), e));
        }
        if (mqttBootstrap != null) {
            mqttListener = bind(mqttBootstrap, config.mqtt().listen(), "mqtt.listen");
            LOG.info("Sluice bridge {} MQTT listener on {}://{}:{}", config.server().nodeName(), config.mqtt().scheme(),
                    config.mqtt().listen().host(), mqttPort());
        }
        if (mqttWebSocketBootstrap != null) {
            mqttWebSocketListener = bind(mqttWebSocketBootstrap, config.mqtt().websocketListen(), "mqtt.websocketListen");
            LOG.info("Sluice bridge {} MQTT over WebSocket on {}://{}:{}{}", config.server().nodeName(), config.mqtt().tls() == null ? "ws" : "wss",
                    config.mqtt().websocketListen().host(), mqttWebSocketPort(), config.mqtt().websocketPath());
        }
        if (config.management().enabled()) {
            // Live while the Kafka reader runs: a reader that died stops every client's live stream, and only a restart
            // brings it back (readiness alone would only take the node out of its Service).
            management = new ManagementServer(config.management().bindAddress(), config.management().port(), registry, readinessChecks(),
                    reader::alive);
            try {
                management.start();
            }
            catch (IOException e) {
                throw new UncheckedIOException("cannot start the management endpoint on "
                        + config.management().bindAddress() + ":" + config.management().port() + ": " + e.getMessage(), e);
            }
        }
        LOG.info("Sluice bridge {} ({}) listening on {}://{}:{}{} with {} transport, reading {}", config.server().nodeName(), BuildInfo.current(),
                config.server().scheme(), config.server().listen().host(), port(), config.server().path(), transport.name(), config.readTopics());
    }

    private static Channel bind(ServerBootstrap bootstrap, HostPort listen, String field) {
        InetSocketAddress address = listen.wildcard() ? new InetSocketAddress(listen.port()) : new InetSocketAddress(listen.host(), listen.port());
        try {
            return bootstrap.bind(address).sync().channel();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + address, e);
        }
        catch (Exception e) {
            throw new UncheckedIOException(new IOException("cannot listen on " + listen + " (" + field + "): " + e.getMessage(), e));
        }
    }

    /** The bound MQTT port, or -1 when mqtt.enabled is false. */
    public int mqttPort() {
        return mqttListener == null ? -1 : ((InetSocketAddress) mqttListener.localAddress()).getPort();
    }

    /** The bound MQTT over WebSocket port, or -1 without mqtt.websocketListen. */
    public int mqttWebSocketPort() {
        return mqttWebSocketListener == null ? -1 : ((InetSocketAddress) mqttWebSocketListener.localAddress()).getPort();
    }

    private Map<String, Supplier<Readiness>> readinessChecks() {
        Map<String, Supplier<Readiness>> checks = new LinkedHashMap<>();
        // Fails first on SIGTERM, so that load balancers stop sending clients here while they are told to go.
        checks.put("shutdown", () -> stopping ? Readiness.notReady("shutting down") : Readiness.ready("serving"));
        checks.put("listener", () -> listener != null && listener.isActive()
                ? Readiness.ready("listening on port " + port())
                : Readiness.notReady("not listening"));
        checks.put("kafka", () -> {
            if (reader.lastError() != null) {
                return Readiness.notReady(reader.lastError());
            }
            if (!reader.assigned()) {
                return Readiness.notReady("reader has not assigned its partitions yet");
            }
            // Ready means a new client can be served now: its subscribe recovers from Kafka, its publish is written.
            Duration silent = reader.sinceClusterAnswered();
            if (silent == null || silent.compareTo(KafkaReader.ANSWER_MAX_AGE) > 0) {
                return Readiness.notReady("Kafka has not answered for more than " + KafkaReader.ANSWER_MAX_AGE.toSeconds() + " s");
            }
            return Readiness.ready("reading " + hub.started().size() + " partition(s)"
                    + (reader.missingTopics().isEmpty() ? "" : "; topics not found yet: " + reader.missingTopics()));
        });
        return checks;
    }

    /** Waits until the reader has found the configured topics and knows where it starts in each partition. */
    public boolean awaitReading(Duration timeout) throws InterruptedException {
        return reader.awaitAssigned(timeout);
    }

    /** The bound WebSocket port (useful when the configuration asked for port 0). */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The open connections (for tests that look at a connection's pipeline). */
    ChannelGroup connections() {
        return channels;
    }

    public int managementPort() {
        return management == null ? -1 : management.port();
    }

    public PrometheusMeterRegistry meterRegistry() {
        return registry;
    }

    /**
     * Stops gracefully: readiness turns false, the listener stops accepting, every client is sent close code 1001
     * (going away) and given {@code server.shutdownTimeout} to answer it; then the rest is closed. The management
     * endpoint answers (503 on /readyz) until then.
     */
    @Override
    public synchronized void close() {
        if (stopping) {
            return;
        }
        stopping = true;
        long start = System.nanoTime();
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
        if (mqttListener != null) {
            mqttListener.close().awaitUninterruptibly();
        }
        if (mqttWebSocketListener != null) {
            mqttWebSocketListener.close().awaitUninterruptibly();
        }
        // Counted once the listener is closed: no connection joins after this.
        int open = channels.size();
        // One line when the stop starts and one when it ends, whatever the count: on SIGTERM an operator sees both.
        LOG.info("Stopping bridge node {}: draining {} connection(s) (close code 1001, server.shutdownTimeout {} ms)",
                config.server().nodeName(), open, config.server().shutdownTimeout().toMillis());
        int cut = goAway();
        long drainedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        reader.close();
        logReader.close();
        publisher.close();
        if (mqttSessions != null) {
            // After the connections drained: their last session records are written by now or lost to a crash alike.
            mqttSessions.close();
        }
        if (catalogue != null) {
            catalogue.close();
        }
        if (schemas != null) {
            schemas.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        hub.close();
        if (management != null) {
            management.close();
        }
        try {
            jvmMetrics.close();
        }
        catch (Exception e) {
            LOG.debug("Closing JVM metrics: {}", e.toString());
        }
        registry.close();
        long stoppedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (cut == 0) {
            LOG.info("Stopped bridge node {}: {} of {} connection(s) closed by their clients, drained in {} ms, stopped in {} ms",
                    config.server().nodeName(), open, open, drainedMs, stoppedMs);
        }
        else {
            // Only a client that stopped reading makes this happen; it reconnects and recovers like any other.
            LOG.warn("Stopped bridge node {}: {} of {} connection(s) closed by their clients, {} cut after server.shutdownTimeout,"
                    + " drained in {} ms, stopped in {} ms", config.server().nodeName(), open - cut, open, cut, drainedMs, stoppedMs);
        }
    }

    /**
     * Tells clients to go elsewhere; they reconnect to another node and recover from their positions. Returns how many
     * connections were still open after {@code server.shutdownTimeout} and were cut.
     */
    private int goAway() {
        if (channels.isEmpty()) {
            return 0;
        }
        Duration timeout = config.server().shutdownTimeout();
        for (Channel channel : channels) {
            Session session = Session.of(channel);
            if (session != null && !"websocket".equals(session.transport())) {
                // An event stream has no close frame to answer: it gets a close event (1001) and ends once that is written.
                // An MQTT session likewise: a DISCONNECT 0x8B (server shutting down) on MQTT 5, the close on 3.1.1.
                channel.eventLoop().execute(() -> session.close(CloseCodes.GOING_AWAY, "server shutting down"));
                continue;
            }
            if (session == null && channel.pipeline().get(MqttChannelInitializer.MQTT) != null) {
                // An MQTT client that has not connected yet: nothing to tell it.
                channel.close();
                continue;
            }
            // A connection still in its HTTP upgrade cannot carry the frame: it is closed instead.
            channel.writeAndFlush(new CloseWebSocketFrame(CloseCodes.GOING_AWAY, "server shutting down"))
                    .addListener(f -> {
                        if (!f.isSuccess()) {
                            channel.close();
                        }
                    });
        }
        // A client answers with its own close frame or by closing; either way the connection leaves the group. The group
        // removes a channel in its close listener, which runs before the group's close future completes: a connection
        // that closed in time is never counted as cut.
        if (channels.newCloseFuture().awaitUninterruptibly(timeout.toMillis())) {
            return 0;
        }
        int cut = channels.size();
        channels.close().awaitUninterruptibly(2_000);
        return cut;
    }
}
