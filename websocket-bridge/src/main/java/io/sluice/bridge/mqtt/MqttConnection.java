package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttIdentifierRejectedException;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;
import io.netty.handler.codec.mqtt.MqttSubAckPayload;
import io.netty.handler.codec.mqtt.MqttSubscribeMessage;
import io.netty.handler.codec.mqtt.MqttSubscriptionOption;
import io.netty.handler.codec.mqtt.MqttTopicSubscription;
import io.netty.handler.codec.mqtt.MqttUnacceptableProtocolVersionException;
import io.netty.handler.codec.mqtt.MqttUnsubscribeMessage;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.config.MqttConfig;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.session.Inbound;
import io.sluice.bridge.session.Publishes;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;
import io.sluice.bridge.session.TokenVerdict;
import io.sluice.flow.Closing;
import io.sluice.flow.WritabilityGate;

/**
 * One MQTT client connection (docs/bridge-mqtt.md): in, decoded MQTT packets; out, a {@link Session} writing through
 * an {@link MqttWire}, and the packets MQTT answers with. CONNECT authenticates the password as the bridge's JWT with
 * {@link Session#validate}, exactly as a WebSocket {@code connect}; SUBSCRIBE and UNSUBSCRIBE become the session's
 * subscriptions (every check and limit a WebSocket subscribe gets); PUBLISH goes through {@link Publishes}, the one
 * publish path of every transport, and is acknowledged only once Kafka has it ({@code acks=all}); the will is published
 * the same way when the connection ends without a DISCONNECT. With {@code mqtt.sessions} on, a CONNECT that asks for
 * a persistent session (or to resume one) has it read from the {@link SessionStore} before its CONNACK, its
 * subscriptions made again by {@link SessionRestore}, and held by a {@link PersistentSession} until the connection
 * ends. Nothing is read from the socket while a CONNECT is validated (or its session read) or while the connection has
 * {@code requests.publishesInFlight} publishes waiting for Kafka. Event loop only.
 */
final class MqttConnection extends ChannelInboundHandlerAdapter {

    static final String NAME = "mqtt";
    private static final Logger LOG = LoggerFactory.getLogger(MqttConnection.class);
    /** Packets a client may send behind its CONNECT before the CONNACK; more close the connection. */
    static final int MAX_EARLY_PACKETS = 64;
    /**
     * Packets already read and decoded that wait while reading is paused for publishes (at most one socket read's);
     * more close the connection.
     */
    static final int MAX_HELD_PACKETS = 1024;
    private static final Inbound NO_INBOUND_LIMIT = new Inbound() {
        @Override
        public void connecting() {
        }

        @Override
        public void connected() {
        }
    };

    /** A will message (CONNECT's), published when the connection ends without a DISCONNECT that discards it. */
    private record Will(String endpoint, byte[] payload, boolean retain) {
    }

    private final SessionServices services;
    private final MqttConfig config;
    private final PacketLimit limit;
    private final Runnable connected;
    private final Runnable connectRead;
    private final MqttSubscriptions subscriptions = new MqttSubscriptions();
    // Persistent sessions (docs/bridge-mqtt.md#sessions); null when mqtt.sessions is off: sessions end with connections.
    private final SessionStore store;
    private boolean cleanStart;
    // The session expiry in force, in seconds (0: the session ends with the connection).
    private long sessionExpiry;
    private String clientId;
    // The client sent none (MQTT 5): the CONNACK tells it this one.
    private boolean assignedId;
    private SessionKey sessionKey;
    private SessionStore.Loaded loaded;
    // A place among the subject's sessions taken for a new one, until its first record is read back.
    private boolean reserved;
    private PersistentSession persistent;
    private ChannelHandlerContext ctx;
    private Channel channel;
    private boolean v5;
    private boolean connecting;
    private Principal principal;
    private Session session;
    private MqttWire wire;
    private Publishes publishes;
    private PubAckOrder acks;
    private TopicAliases aliases;
    private Will will;
    private boolean clientDisconnected;
    private boolean accepted;
    private boolean sessionEnded;
    // Reading is paused because the connection has as many publishes waiting for Kafka as it may.
    private boolean publishPaused;
    private final Object publishPause = new Object();
    // Packets read behind a CONNECT being validated, or while publishes pause reading: handled in order afterwards.
    private final ArrayDeque<MqttMessage> held = new ArrayDeque<>();

    /**
     * @param limit     the packet limit to raise once the CONNECT is accepted
     * @param connected   told once the CONNECT is accepted (the connection leaves the handshake pool)
     * @param connectRead told when a CONNECT has been read, before it is validated (a WebSocket's frame limit rises)
     */
    MqttConnection(SessionServices services, MqttConfig config, SessionStore store, PacketLimit limit, Runnable connected, Runnable connectRead) {
        this.services = services;
        this.store = store;
        this.config = config;
        this.limit = limit;
        this.connected = connected;
        this.connectRead = connectRead;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof MqttMessage packet)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (holding() || !held.isEmpty()) {
            // Behind a CONNECT being validated, or while publishes wait for Kafka: in order, afterwards.
            int max = accepted ? MAX_HELD_PACKETS : MAX_EARLY_PACKETS;
            if (held.size() >= max) {
                ReferenceCountUtil.release(msg);
                protocolError("more than " + max + " packets " + (accepted ? "while publishes wait for Kafka" : "before CONNACK"));
                return;
            }
            held.add(packet);
            return;
        }
        try {
            handle(packet);
        }
        finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void handle(MqttMessage packet) {
        if (!channel.isActive()) {
            return;
        }
        if (packet.decoderResult().isFailure()) {
            malformed(packet, packet.decoderResult().cause());
            return;
        }
        MqttMessageType type = packet.fixedHeader().messageType();
        if (session == null) {
            if (type != MqttMessageType.CONNECT) {
                // MQTT: the first packet must be CONNECT; anything else closes the connection.
                channel.close();
                return;
            }
            connect((MqttConnectMessage) packet);
            return;
        }
        switch (type) {
            case SUBSCRIBE -> subscribe((MqttSubscribeMessage) packet);
            case UNSUBSCRIBE -> unsubscribe((MqttUnsubscribeMessage) packet);
            case PUBLISH -> publish((MqttPublishMessage) packet);
            case PUBACK -> wire.acked(((MqttMessageIdVariableHeader) packet.variableHeader()).messageId());
            case PINGREQ -> channel.writeAndFlush(MqttMessage.PINGRESP, channel.voidPromise());
            case DISCONNECT -> disconnect(packet);
            case AUTH -> disconnect(Reasons.BAD_AUTHENTICATION_METHOD, "enhanced authentication (AUTH) is not supported; send the token as the password");
            default -> protocolError("unexpected " + type);
        }
    }

    // ---- CONNECT

    private void connect(MqttConnectMessage connect) {
        int level = connect.variableHeader().version();
        v5 = level == MqttVersion.MQTT_5.protocolLevel();
        if (!v5 && level != MqttVersion.MQTT_3_1_1.protocolLevel()) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION, null, "MQTT 3.1.1 or 5.0 only");
            return;
        }
        String clientId = connect.payload().clientIdentifier();
        if (clientId == null || clientId.getBytes(StandardCharsets.UTF_8).length > config.maxClientIdBytes()) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID,
                    "a client identifier of at most " + config.maxClientIdBytes() + " bytes");
            return;
        }
        if (clientId.isEmpty() && !v5 && !connect.variableHeader().isCleanSession()) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, null, "a persistent session needs a client identifier");
            return;
        }
        MqttProperties properties = connect.variableHeader().properties();
        cleanStart = connect.variableHeader().isCleanSession();
        sessionExpiry = requestedExpiry(properties);
        if (v5 && properties.getProperty(MqttProperties.AUTHENTICATION_METHOD) != null) {
            refuse(null, MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                    "enhanced authentication is not supported; send the token as the password");
            return;
        }
        byte[] password = connect.variableHeader().hasPassword() ? connect.payload().passwordInBytes() : null;
        if (password == null || password.length == 0 || password.length > services.requests().maxTokenBytes()) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD, MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD,
                    "the password must be the token (at most requests.maxTokenBytes bytes)");
            return;
        }
        if (connect.variableHeader().isWillFlag()) {
            String endpoint = MqttTopics.endpointOf(connect.payload().willTopic());
            if (endpoint == null) {
                refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID,
                        "the will topic does not name an endpoint");
                return;
            }
            if (connect.variableHeader().willQos() == 2 && v5) {
                refuse(null, MqttConnectReturnCode.CONNECTION_REFUSED_QOS_NOT_SUPPORTED, "QoS 2 is not supported; the maximum is 1");
                return;
            }
            byte[] payload = connect.payload().willMessageInBytes();
            will = new Will(endpoint, payload == null ? new byte[0] : payload, connect.variableHeader().isWillRetain());
        }
        String token = new String(password, StandardCharsets.UTF_8);
        connecting = true;
        WritabilityGate.pauseReading(channel, this);
        connectRead.run();
        Session.validate(services, token, channel).thenAccept(verdict -> channel.eventLoop().execute(
                () -> validated(connect.variableHeader().keepAliveTimeSeconds(), clientId, properties, verdict)));
    }

    private void validated(int keepAlive, String clientId, MqttProperties properties, TokenVerdict verdict) {
        if (!channel.isActive()) {
            return;
        }
        if (verdict.busy()) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY,
                    "the node is busy validating tokens; reconnect after a backoff");
            return;
        }
        if (verdict.refused() != null) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5, verdict.refused());
            return;
        }
        principal = verdict.principal();
        publishes = new Publishes(services, channel);
        if (will != null) {
            try {
                publishes.check(principal, will.endpoint());
            }
            catch (RequestRefusedException e) {
                refuse(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5,
                        "the will: " + e.getMessage());
                return;
            }
        }
        int window = config.maxInflight();
        long clientMaxPacket = Long.MAX_VALUE;
        if (v5) {
            MqttProperties.MqttProperty<?> receiveMaximum = properties.getProperty(MqttProperties.RECEIVE_MAXIMUM);
            if (receiveMaximum != null && receiveMaximum.value() instanceof Integer rm && rm > 0) {
                window = Math.min(window, rm);
            }
            MqttProperties.MqttProperty<?> maxPacket = properties.getProperty(MqttProperties.MAXIMUM_PACKET_SIZE);
            if (maxPacket != null && maxPacket.value() instanceof Integer mp && mp > 0) {
                clientMaxPacket = mp;
            }
        }
        int effectiveWindow = window;
        long effectiveMaxPacket = clientMaxPacket;
        assignedId = v5 && clientId.isEmpty();
        this.clientId = assignedId ? "sluice-" + UUID.randomUUID() : clientId;
        if (store == null || cleanStart && sessionExpiry == 0) {
            startWhenReading(keepAlive, effectiveWindow, effectiveMaxPacket);
            return;
        }
        loadSession(keepAlive, effectiveWindow, effectiveMaxPacket);
    }

    /**
     * The session expiry the client asked for, bounded by {@code mqtt.sessions.maxExpiry}: MQTT 5's Session Expiry
     * Interval, or for 3.1.1 the maximum unless {@code cleanSession}. 0 when persistent sessions are off.
     */
    private long requestedExpiry(MqttProperties properties) {
        if (store == null) {
            return 0;
        }
        long max = store.config().maxExpiry().toSeconds();
        if (!v5) {
            return cleanStart ? 0 : max;
        }
        MqttProperties.MqttProperty<?> expiry = properties.getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL);
        // Four bytes, unsigned: 0xFFFFFFFF (never) arrives as -1.
        long asked = expiry != null && expiry.value() instanceof Integer i ? Integer.toUnsignedLong(i) : 0;
        return Math.min(asked, max);
    }

    /**
     * Reads the client's session from Kafka before the CONNACK (docs/bridge-mqtt.md#sessions): an expired one is
     * ended, a clean start discards it, and a new persistent session takes a place among its subject's
     * ({@code mqtt.sessions.maxPerSubject}). Reading is still paused meanwhile.
     */
    private void loadSession(int keepAlive, int window, long clientMaxPacket) {
        sessionKey = new SessionKey(principal.subject(), clientId);
        CompletableFuture<SessionStore.Loaded> load = store.load(sessionKey);
        if (load == null) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY,
                    "the node has mqtt.sessions.maxLoads sessions to read; reconnect after a backoff");
            return;
        }
        load.whenComplete((result, error) -> channel.eventLoop().execute(() -> {
            if (!channel.isActive()) {
                return;
            }
            if (error != null) {
                LOG.debug("{}: MQTT session not read: {}", channel.remoteAddress(), error.toString());
                refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE_5,
                        "the session could not be read from Kafka; reconnect after a backoff");
                return;
            }
            SessionState state = result.state();
            if (state != null && state.expiresAt() < System.currentTimeMillis()) {
                // Expired: it starts clean, and ends for every node.
                store.end(sessionKey);
                state = null;
            }
            if (cleanStart) {
                state = null;
            }
            if (sessionExpiry > 0 && store.index().get(sessionKey) == null) {
                String over = store.index().reserve(sessionKey, store.config().maxPerSubject(), store.config().maxSessions());
                if (over != null) {
                    refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, MqttConnectReturnCode.CONNECTION_REFUSED_QUOTA_EXCEEDED, over);
                    return;
                }
                reserved = true;
            }
            loaded = new SessionStore.Loaded(state, result.nextGeneration());
            startWhenReading(keepAlive, window, clientMaxPacket);
        }));
    }

    private void releaseReservation() {
        if (reserved) {
            reserved = false;
            store.index().release(sessionKey);
        }
    }

    private void startWhenReading(int keepAlive, int effectiveWindow, long effectiveMaxPacket) {
        if (services.readerStartup().reading().isDone() || services.readerStartup().waitOver().isDone()) {
            open(keepAlive, effectiveWindow, effectiveMaxPacket);
        }
        else {
            // As a WebSocket subscribe during startup: the CONNACK waits for the reader, up to recovery.startupWait,
            // so that the client's subscribes find the node's epochs.
            services.readerStartup().waitOver().whenComplete((ignored, error) -> channel.eventLoop().execute(() -> {
                if (channel.isActive()) {
                    open(keepAlive, effectiveWindow, effectiveMaxPacket);
                }
            }));
        }
    }

    /** The session, once it may start: its subject's place taken ({@code connections.maxConnectionsPerSubject}), or refused. */
    private void open(int keepAlive, int window, long clientMaxPacket) {
        boolean present = loaded != null && loaded.state() != null;
        DeliveryPositions positions = sessionExpiry > 0 || present ? new DeliveryPositions() : null;
        MqttWire newWire = new MqttWire(channel, v5, subscriptions, services.outbound(), window, clientMaxPacket, positions);
        Session newSession = new Session(channel, newWire, services, NO_INBOUND_LIMIT);
        String overSubjectLimit = newSession.admit(principal);
        if (overSubjectLimit != null) {
            // Nothing was taken: the session never opened.
            releaseReservation();
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, MqttConnectReturnCode.CONNECTION_REFUSED_QUOTA_EXCEEDED, overSubjectLimit);
            return;
        }
        wire = newWire;
        session = newSession;
        wire.attach(session);
        accepted(keepAlive, positions, window);
    }

    private void accepted(int keepAlive, DeliveryPositions positions, int window) {
        boolean present = loaded != null && loaded.state() != null;
        session.openedWith(principal);
        limit.raise(config.maxPacketBytes());
        acks = new PubAckOrder(this::pubAck);
        aliases = new TopicAliases(config.maxTopicAliases());
        int maxKeepAlive = (int) config.maxKeepAlive().toSeconds();
        int effectiveKeepAlive = keepAlive == 0 || keepAlive > maxKeepAlive ? (v5 ? maxKeepAlive : keepAlive) : keepAlive;
        MqttConnAckMessage connAck;
        if (v5) {
            String assigned = assignedId ? clientId : null;
            int serverKeepAlive = effectiveKeepAlive;
            int expiry = (int) sessionExpiry;
            connAck = MqttMessageBuilders.connAck().returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED).sessionPresent(present)
                    .properties(p -> {
                        // The expiry in force: 0 when sessions end with their connection, else at most mqtt.sessions.maxExpiry.
                        p.sessionExpiryInterval(expiry)
                                .receiveMaximum(services.requests().publishesInFlight())
                                .maximumQos((byte) 1)
                                .retainAvailable(true)
                                .maximumPacketSize(config.maxPacketBytes())
                                .topicAliasMaximum(config.maxTopicAliases())
                                .wildcardSubscriptionAvailable(true)
                                .subscriptionIdentifiersAvailable(false)
                                .sharedSubscriptionAvailable(false);
                        if (serverKeepAlive != keepAlive) {
                            p.serverKeepAlive(serverKeepAlive);
                        }
                        if (assigned != null) {
                            p.assignedClientId(assigned);
                        }
                    }).build();
        }
        else {
            connAck = MqttMessageBuilders.connAck().returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED).sessionPresent(present).build();
        }
        channel.writeAndFlush(connAck, channel.voidPromise());
        if (store != null) {
            holdSession(positions, window);
        }
        if (effectiveKeepAlive > 0) {
            // MQTT: a client silent for one and a half keep-alives is gone.
            ctx.pipeline().addBefore(NAME, "mqtt-keepalive", new IdleStateHandler(effectiveKeepAlive * 1500L, 0, 0, TimeUnit.MILLISECONDS));
        }
        connected.run();
        connecting = false;
        accepted = true;
        WritabilityGate.resumeReading(channel, this);
        drain();
    }

    /**
     * After the CONNACK of a node with persistent sessions: a resumed session's subscriptions are made again (each
     * checked against this token, recovering from its marks), then the session is held and written, or ended when its
     * expiry is 0.
     */
    private void holdSession(DeliveryPositions positions, int window) {
        SessionState state = loaded == null ? null : loaded.state();
        if (state != null) {
            new SessionRestore(session, principal, subscriptions, positions, wire, channel).restore(state);
        }
        if (sessionExpiry == 0) {
            if (sessionKey == null) {
                sessionKey = new SessionKey(principal.subject(), clientId);
            }
            SessionIndex.Entry known = store.index().get(sessionKey);
            if (known != null) {
                // A clean start, or a session resumed to end with this connection: it is over for every node. Taken
                // first (a newer generation), so that a connection holding it on any node is closed as MQTT requires,
                // then ended; one producer, one partition: in that order.
                store.write(sessionKey, new SessionState(known.generation() + 1, services.nodeName() + "/" + UUID.randomUUID(), true, 0,
                        System.currentTimeMillis(), Map.of(), Map.of()));
                store.end(sessionKey);
            }
            return;
        }
        persistent = new PersistentSession(store, sessionKey, services.nodeName() + "/" + UUID.randomUUID(), loaded.nextGeneration(),
                sessionExpiry, subscriptions, positions, channel, window);
        persistent.start(() -> disconnect(Reasons.SESSION_TAKEN_OVER, "another connection took over this session"))
                .whenComplete((ignored, error) -> channel.eventLoop().execute(this::releaseReservation));
    }

    /** Whether packets read now must wait: a CONNECT is being validated, or publishes pause reading. */
    private boolean holding() {
        return connecting || publishPaused;
    }

    /** Handles what was held, in order, until something holds packets again. */
    private void drain() {
        while (!holding() && !held.isEmpty() && channel.isActive()) {
            MqttMessage packet = held.poll();
            try {
                handle(packet);
            }
            finally {
                ReferenceCountUtil.release(packet);
            }
        }
    }

    /** Answers the CONNECT with a refusal (MQTT 3.1.1's code, or 5.0's with a reason string) and closes. */
    private void refuse(MqttConnectReturnCode v3, MqttConnectReturnCode v5Code, String reason) {
        MqttConnectReturnCode code = v5 ? (v5Code != null ? v5Code : MqttConnectReturnCode.CONNECTION_REFUSED_UNSPECIFIED_ERROR)
                : (v3 != null ? v3 : MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE);
        MqttMessageBuilders.ConnAckBuilder connAck = MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false);
        if (v5) {
            connAck.properties(p -> p.reasonString(reason));
        }
        LOG.debug("{}: MQTT CONNECT refused ({}): {}", channel.remoteAddress(), code, reason);
        Closing.closeOnceDone(channel, channel.writeAndFlush(connAck.build()), Closing.DEFAULT_GRACE);
    }

    // ---- SUBSCRIBE / UNSUBSCRIBE

    private void subscribe(MqttSubscribeMessage subscribe) {
        List<Integer> codes = new ArrayList<>();
        for (MqttTopicSubscription s : subscribe.payload().topicSubscriptions()) {
            codes.add(subscribeOne(s));
        }
        int packetId = subscribe.idAndPropertiesVariableHeader().messageId();
        MqttFixedHeader header = new MqttFixedHeader(MqttMessageType.SUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0);
        channel.writeAndFlush(new MqttSubAckMessage(header, new MqttMessageIdAndPropertiesVariableHeader(packetId, MqttProperties.NO_PROPERTIES),
                new MqttSubAckPayload(codes)), channel.voidPromise());
    }

    /** One filter of a SUBSCRIBE: the granted QoS (QoS 2 is granted as 1), or a failure code. */
    private int subscribeOne(MqttTopicSubscription s) {
        String filter = s.topicFilter();
        int qos = Math.min(1, s.qualityOfService().value());
        MqttTopics.Mapping mapping = MqttTopics.map(filter);
        if (mapping.refused()) {
            return !v5 ? Reasons.UNSPECIFIED : filter != null && filter.startsWith("$share/")
                    ? Reasons.SHARED_SUBSCRIPTIONS_NOT_SUPPORTED : Reasons.TOPIC_FILTER_INVALID;
        }
        String pattern = mapping.pattern();
        if (subscriptions.has(filter) || subscriptions.hasPattern(pattern)) {
            // Already carried by a bridge subscription: only the QoS (or the filters riding on it) change. Such a
            // filter gets no retained messages (docs/bridge-mqtt.md#retained-messages).
            boolean added = !subscriptions.has(filter);
            if (added && subscriptions.size() >= services.maxSubscriptions()) {
                return v5 ? Reasons.QUOTA_EXCEEDED : Reasons.UNSPECIFIED;
            }
            Integer before = subscriptions.filters().get(filter);
            subscriptions.put(filter, pattern, qos);
            if (persistent != null) {
                if (added && !persistent.fits()) {
                    subscriptions.remove(filter);
                    return v5 ? Reasons.QUOTA_EXCEEDED : Reasons.UNSPECIFIED;
                }
                if (before == null || before != qos) {
                    persistent.subscriptionsChanged();
                }
            }
            return qos;
        }
        boolean retained = s.option().retainHandling() != MqttSubscriptionOption.RetainedHandlingPolicy.DONT_SEND_AT_SUBSCRIBE;
        // In the table first: the retained messages go out while the subscription is made.
        subscriptions.put(filter, pattern, qos);
        try {
            session.subscribeRequest(new ClientRequest.Subscribe(null, pattern, List.of(), retained, false));
            if (persistent != null) {
                if (!persistent.fits()) {
                    // The session's state would outgrow mqtt.sessions.maxStateBytes (too many partitions or filters).
                    subscriptions.remove(filter);
                    session.unsubscribe(pattern);
                    wire.unsubscribed(pattern);
                    return v5 ? Reasons.QUOTA_EXCEEDED : Reasons.UNSPECIFIED;
                }
                persistent.subscriptionsChanged();
            }
            return qos;
        }
        catch (RequestRefusedException e) {
            subscriptions.remove(filter);
            wire.unsubscribed(pattern);
            LOG.debug("{}: MQTT SUBSCRIBE {} refused: {} {}", channel.remoteAddress(), filter, e.code(), e.getMessage());
            return Reasons.subscribe(e.code(), v5);
        }
    }

    private void unsubscribe(MqttUnsubscribeMessage unsubscribe) {
        List<Short> codes = new ArrayList<>();
        for (String filter : unsubscribe.payload().topics()) {
            boolean had = subscriptions.has(filter);
            String pattern = subscriptions.remove(filter);
            if (pattern != null) {
                session.unsubscribe(pattern);
                wire.unsubscribed(pattern);
            }
            codes.add((short) (had ? Reasons.SUCCESS : Reasons.NO_SUBSCRIPTION_EXISTED));
            if (had && persistent != null) {
                persistent.subscriptionsChanged();
            }
        }
        int packetId = unsubscribe.idAndPropertiesVariableHeader().messageId();
        MqttMessageBuilders.UnsubAckBuilder ack = MqttMessageBuilders.unsubAck().packetId(packetId);
        if (v5) {
            codes.forEach(ack::addReasonCode);
        }
        channel.writeAndFlush(ack.build(), channel.voidPromise());
    }

    // ---- PUBLISH

    private void publish(MqttPublishMessage publish) {
        MqttQoS qos = publish.fixedHeader().qosLevel();
        if (qos == MqttQoS.EXACTLY_ONCE) {
            disconnect(Reasons.QOS_NOT_SUPPORTED, "QoS 2 is not supported; publish with QoS 0 or 1");
            return;
        }
        String topic = publish.variableHeader().topicName();
        if (v5) {
            MqttProperties.MqttProperty<?> alias = publish.variableHeader().properties().getProperty(MqttProperties.TOPIC_ALIAS);
            if (alias != null) {
                String problem = aliases.problem((Integer) alias.value());
                if (problem != null) {
                    disconnect(Reasons.TOPIC_ALIAS_INVALID, problem);
                    return;
                }
                if (topic == null || topic.isEmpty()) {
                    topic = aliases.get((Integer) alias.value());
                    if (topic == null) {
                        disconnect(Reasons.PROTOCOL_ERROR, "topic alias " + alias.value() + " was never set");
                        return;
                    }
                }
                else {
                    aliases.set((Integer) alias.value(), topic);
                }
            }
        }
        int packetId = publish.variableHeader().packetId();
        String endpoint = MqttTopics.endpointOf(topic);
        if (endpoint == null) {
            refused(qos, packetId, ErrorCodes.MALFORMED, "topic " + topic + " does not name an endpoint");
            return;
        }
        ByteBuf content = publish.content();
        byte[] value = new byte[content.readableBytes()];
        content.getBytes(content.readerIndex(), value);
        // A retained message with no payload clears the topic's retained message in MQTT: here, a tombstone.
        if (value.length == 0 && publish.fixedHeader().isRetain()) {
            value = null;
        }
        PubAckOrder.Entry entry = qos == MqttQoS.AT_LEAST_ONCE ? acks.add(packetId) : null;
        try {
            publishes.publishBytes(principal, endpoint, value, outcome -> answered(entry, outcome));
        }
        catch (RequestRefusedException e) {
            if (entry != null) {
                acks.removeLast();
            }
            if (e.code().equals(ErrorCodes.BUSY)) {
                // The in-flight bounds: this one waits, first in line and with reading paused, for an answer to make room.
                held.addFirst(publish.retain());
                pausePublishes();
                return;
            }
            refused(qos, packetId, e.code(), e.getMessage());
            return;
        }
        if (publishes.inFlight() >= services.requests().publishesInFlight()) {
            // MQTT's flow control (5.0's receive maximum, told in CONNACK) for every version: no more is read until
            // Kafka answers one.
            pausePublishes();
        }
    }

    private void answered(PubAckOrder.Entry entry, Publishes.Outcome outcome) {
        if (!channel.isActive()) {
            return;
        }
        if (entry != null) {
            if (outcome instanceof Publishes.Failed failed) {
                if (!v5) {
                    // MQTT 3.1.1 has no negative PUBACK: the connection closes, and the client sends it again later.
                    LOG.debug("{}: MQTT publish failed, closing (3.1.1): {}", channel.remoteAddress(), failed.message());
                    channel.close();
                    return;
                }
                acks.answered(entry, Reasons.publish(failed.code()));
            }
            else {
                acks.answered(entry, Reasons.SUCCESS);
            }
        }
        if (publishPaused && publishes.inFlight() < services.requests().publishesInFlight()) {
            publishPaused = false;
            WritabilityGate.resumeReading(channel, publishPause);
            drain();
        }
    }

    /** The session ends, once: {@code closed()} balances {@code openedWith}. */
    private void endSession() {
        if (session != null && !sessionEnded) {
            sessionEnded = true;
            session.closed();
        }
    }

    private void pausePublishes() {
        if (!publishPaused) {
            publishPaused = true;
            WritabilityGate.pauseReading(channel, publishPause);
        }
    }

    /** A publish refused before Kafka: QoS 1 on MQTT 5 gets the reason in its PUBACK; on 3.1.1 the connection closes. */
    private void refused(MqttQoS qos, int packetId, String code, String message) {
        LOG.debug("{}: MQTT publish refused: {} {}", channel.remoteAddress(), code, message);
        if (qos == MqttQoS.AT_MOST_ONCE) {
            return;
        }
        if (!v5) {
            channel.close();
            return;
        }
        acks.answered(acks.add(packetId), Reasons.publish(code));
    }

    private void pubAck(PubAckOrder.Entry entry) {
        if (!channel.isActive()) {
            return;
        }
        MqttFixedHeader header = new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0);
        MqttMessage ack = v5
                ? new MqttMessage(header, new MqttPubReplyMessageVariableHeader(entry.packetId, (byte) entry.reason, MqttProperties.NO_PROPERTIES))
                : new MqttMessage(header, MqttMessageIdVariableHeader.from(entry.packetId));
        channel.writeAndFlush(ack, channel.voidPromise());
    }

    // ---- DISCONNECT, errors, the end

    private void disconnect(MqttMessage packet) {
        clientDisconnected = true;
        if (v5 && packet.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader reason) {
            if (reason.reasonCode() == 0x04) {
                // "Disconnect with Will Message": the client asks for its will.
                clientDisconnected = false;
            }
            MqttProperties.MqttProperty<?> expiry = reason.properties().getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL);
            if (persistent != null && expiry != null && expiry.value() instanceof Integer seconds) {
                // MQTT 5 lets a client change its session's expiry as it leaves (to 0: end it now).
                persistent.expiry(Integer.toUnsignedLong(seconds));
            }
        }
        channel.close();
    }

    /** Closes with an MQTT 5 DISCONNECT carrying the reason (3.1.1: just closes). */
    private void disconnect(int reason, String message) {
        LOG.debug("{}: closing MQTT connection (0x{}): {}", channel.remoteAddress(), Integer.toHexString(reason), message);
        if (!v5) {
            channel.close();
            return;
        }
        MqttProperties properties = new MqttProperties();
        properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, message));
        Closing.closeOnceDone(channel, channel.writeAndFlush(MqttMessageBuilders.disconnect().reasonCode((byte) reason)
                .properties(properties).build()), Closing.DEFAULT_GRACE);
        // No more deliveries after the DISCONNECT.
        endSession();
    }

    private void protocolError(String message) {
        disconnect(Reasons.PROTOCOL_ERROR, message);
    }

    private void malformed(MqttMessage packet, Throwable cause) {
        if (cause instanceof MqttUnacceptableProtocolVersionException) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_UNACCEPTABLE_PROTOCOL_VERSION, MqttConnectReturnCode.CONNECTION_REFUSED_UNSUPPORTED_PROTOCOL_VERSION,
                    "MQTT 3.1.1 or 5.0 only");
            return;
        }
        if (cause instanceof MqttIdentifierRejectedException) {
            refuse(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID,
                    "client identifier rejected");
            return;
        }
        if (session == null) {
            channel.close();
            return;
        }
        disconnect(Reasons.MALFORMED_PACKET, "malformed packet: " + cause.getMessage());
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            disconnect(Reasons.KEEP_ALIVE_TIMEOUT, "nothing received for one and a half keep-alive periods");
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof PacketLimit.TooLarge tooLarge) {
            if (tooLarge.beforeConnect || session == null) {
                channel.close();
            }
            else {
                disconnect(Reasons.PACKET_TOO_LARGE, cause.getMessage());
            }
            return;
        }
        if (cause instanceof PacketLimit.Malformed) {
            if (session == null) {
                channel.close();
            }
            else {
                disconnect(Reasons.MALFORMED_PACKET, cause.getMessage());
            }
            return;
        }
        LOG.debug("{}: closing MQTT connection after {}", channel.remoteAddress(), cause.toString());
        channel.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (session != null) {
            session.writabilityChanged();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        held.forEach(ReferenceCountUtil::release);
        held.clear();
        if (persistent != null) {
            // Before the session's subscriptions end: their positions are what is written.
            persistent.end();
        }
        else {
            // Never held: nothing will be read back. A held one's place goes once its first record is.
            releaseReservation();
        }
        if (session != null) {
            endSession();
            wire.release();
            if (acks != null) {
                acks.clear();
            }
            publishWill();
        }
        super.channelInactive(ctx);
    }

    /**
     * The connection ended without a DISCONNECT that discards the will: it is published, with the principal's write
     * permission checked again, through the same path as any publish. Not after the token expired: it no longer vouches.
     */
    private void publishWill() {
        if (will == null || clientDisconnected || wire.closeCode() == CloseCodes.TOKEN_EXPIRED) {
            return;
        }
        byte[] value = will.payload().length == 0 && will.retain() ? null : will.payload();
        try {
            publishes.publishBytes(principal, will.endpoint(), value, outcome -> {
                if (outcome instanceof Publishes.Failed failed) {
                    LOG.debug("will of {} not published: {}", will.endpoint(), failed.message());
                }
            });
        }
        catch (RequestRefusedException e) {
            LOG.debug("will of {} not published: {}", will.endpoint(), e.getMessage());
        }
    }

}
