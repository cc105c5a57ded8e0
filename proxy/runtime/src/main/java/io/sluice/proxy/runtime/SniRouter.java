package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.AbstractSniHandler;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.sluice.flow.Closing;

/**
 * The first handler of a connection to an SNI listener. Netty's {@link AbstractSniHandler} reads the TLS ClientHello
 * (at most {@link #MAX_CLIENT_HELLO_BYTES}) and takes the server name out of it; {@link SniRoutes} says which gateway
 * and broker that name stands for; then the gateway's client pipeline ({@link ClientChannelInitializer#assemble}) is
 * built behind this handler, which leaves and hands the ClientHello it buffered to the gateway's TLS handler, so the
 * handshake goes on with that gateway's certificate as if the connection had been accepted on a port of its own.
 *
 * <p>A connection it cannot route is refused: counted and logged through {@link SniRoutes#refused}, told with a fatal
 * {@code unrecognized_name} alert when it spoke TLS ({@link SniRefusal#alert()}), and closed. Nothing is read while a
 * route is being looked up (it may wait for a discovery round), and a connection with no route by {@code deadline}
 * after it was accepted is closed: what an unrouted connection holds is bounded, for a bounded time. (Netty checks a
 * ClientHello's announced length once its first record is in, so what waits is at most one TLS record, under 64 KiB,
 * or a ClientHello of at most {@link #MAX_CLIENT_HELLO_BYTES}.)</p>
 */
public final class SniRouter extends AbstractSniHandler<ConnectionSetup> {

    /**
     * The longest ClientHello accepted, in bytes of the handshake message: one full TLS record. A ClientHello with a
     * post-quantum key share and a session ticket is about 2 KiB; Netty's default is 64 KiB.
     */
    public static final int MAX_CLIENT_HELLO_BYTES = 16 * 1024;
    /** Server names are cut to this in log lines; DNS names are no longer. */
    private static final int MAX_LOGGED_NAME = 253;
    private static final Logger LOG = LoggerFactory.getLogger(SniRouter.class);

    private final SniRoutes routes;
    private final Duration deadline;
    private final Runnable unrouted;
    private ScheduledFuture<?> timeout;
    private boolean sawClientHello;
    private boolean lookupPending;
    /** Routed or refused: whatever else arrives is not this handler's to read. */
    private boolean decided;
    private boolean released;

    /**
     * @param deadline how long after it was accepted a connection may take to send a routable ClientHello
     * @param unrouted run once the connection no longer waits for a route (routed, refused or closed): it releases
     *                 the listener's count of connections waiting
     */
    public SniRouter(SniRoutes routes, Duration deadline, Runnable unrouted) {
        // Netty's own deadline is off: this one is the same length and also counts its refusals.
        super(MAX_CLIENT_HELLO_BYTES, 0L);
        this.routes = routes;
        this.deadline = deadline;
        this.unrouted = unrouted;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        ctx.channel().closeFuture().addListener(f -> release());
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        super.channelActive(ctx);
        start(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (timeout != null) {
            return;
        }
        timeout = ctx.executor().schedule(() -> refuse(ctx, SniRefusal.TIMEOUT, "no routable TLS ClientHello within network.preAuthentication.timeout "
                + deadline.toMillis() + " ms"), deadline.toNanos(), TimeUnit.NANOSECONDS);
        // Accepted connections do not read on their own (the listener's autoRead is off).
        ctx.read();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (decided) {
            in.skipBytes(in.readableBytes());
            return;
        }
        super.decode(ctx, in, out);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (decided || lookupPending) {
            // The decoder would read on while it has produced nothing, also while a lookup is pending: the bytes
            // after a ClientHello would pile up unbounded. The route's pipeline decides about reading from here on.
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    @Override
    protected Future<ConnectionSetup> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) throws Exception {
        // Null when the first record is no ClientHello at all; a ClientHello without a server name comes as a null name.
        sawClientHello = clientHello != null;
        return super.lookup(ctx, clientHello);
    }

    @Override
    protected Future<ConnectionSetup> lookup(ChannelHandlerContext ctx, String hostname) {
        if (!sawClientHello) {
            return ctx.executor().newFailedFuture(new SniRefusedException(SniRefusal.NOT_TLS, "the first bytes are not a TLS ClientHello"));
        }
        if (hostname == null) {
            return ctx.executor().newFailedFuture(new SniRefusedException(SniRefusal.NO_SNI,
                    "the TLS ClientHello has no server name (SNI); connect by a host name, not an IP address"));
        }
        Promise<ConnectionSetup> promise = ctx.executor().newPromise();
        routes.route(hostname).whenComplete((setup, error) -> {
            if (error == null) {
                promise.trySuccess(setup);
            } else {
                promise.tryFailure(error.getCause() != null && !(error instanceof SniRefusedException) ? error.getCause() : error);
            }
        });
        lookupPending = !promise.isDone();
        return promise;
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, String hostname, Future<ConnectionSetup> future) {
        lookupPending = false;
        if (decided || !ctx.channel().isActive()) {
            return;
        }
        if (!future.isSuccess()) {
            if (future.cause() instanceof SniRefusedException refused) {
                refuse(ctx, refused.reason(), refused.getMessage() + (hostname == null ? "" : " (server name '" + printable(hostname) + "')"));
            } else {
                LOG.warn("{}: cannot route server name '{}': {}", ctx.channel(), printable(hostname), future.cause().toString());
                refuse(ctx, SniRefusal.UNKNOWN_NAME, "no route: " + future.cause());
            }
            return;
        }
        decided = true;
        timeout.cancel(false);
        release();
        Channel channel = ctx.channel();
        if (!ClientChannelInitializer.assemble(channel, future.getNow())) {
            return;
        }
        // The gateway's handlers were added to an active channel: they start as on a fresh connection.
        ctx.fireChannelActive();
        // Leaving hands the buffered ClientHello to the gateway's TLS handler (ByteToMessageDecoder passes it on).
        ctx.pipeline().remove(this);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable error = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        // Netty closed the connection already for these two, as SslHandler would.
        if (error instanceof TooLongFrameException) {
            refuse(ctx, SniRefusal.CLIENT_HELLO_TOO_LARGE, "a TLS ClientHello longer than " + MAX_CLIENT_HELLO_BYTES + " bytes");
        } else if (error instanceof NotSslRecordException) {
            refuse(ctx, SniRefusal.NOT_TLS, "the first bytes are not a TLS record");
        } else if (!decided) {
            decided = true;
            LOG.debug("{}: closing before a route was found: {}", ctx.channel(), error.toString());
            ctx.close();
        }
    }

    private void refuse(ChannelHandlerContext ctx, SniRefusal reason, String detail) {
        if (decided) {
            return;
        }
        decided = true;
        if (timeout != null) {
            timeout.cancel(false);
        }
        release();
        routes.refused(ctx.channel(), reason, detail);
        if (reason.alert() && ctx.channel().isActive()) {
            ChannelFuture written = ctx.writeAndFlush(TlsAlert.unrecognizedName());
            Closing.closeOnceDone(ctx.channel(), written, Closing.DEFAULT_GRACE);
        } else {
            ctx.close();
        }
    }

    private void release() {
        if (!released) {
            released = true;
            unrouted.run();
        }
    }

    /**
     * A server name fit for a log line: Netty decodes it as US-ASCII, so a hostile one may hold control characters
     * (a forged log line) or run to the ClientHello's length. Anything but a host name's characters shows as '?'.
     */
    static String printable(String name) {
        if (name == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(Math.min(name.length(), MAX_LOGGED_NAME) + 3);
        for (int i = 0; i < name.length() && i < MAX_LOGGED_NAME; i++) {
            char c = name.charAt(i);
            boolean hostChar = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_';
            out.append(hostChar ? c : '?');
        }
        if (name.length() > MAX_LOGGED_NAME) {
            out.append("...");
        }
        return out.toString();
    }
}
