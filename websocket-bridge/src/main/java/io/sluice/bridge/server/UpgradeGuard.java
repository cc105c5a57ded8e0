package io.sluice.bridge.server;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.config.AddressBlock;
import io.sluice.bridge.config.ConnectionsConfig;
import io.sluice.bridge.http.Origins;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.flow.Closing;

/**
 * Every HTTP request before the upgrade passes here, after the codec's size limits: a request the codec could not
 * read (too long a line or header block, or not HTTP) is answered with 414, 431 or 400 and the connection closed.
 * A WebSocket upgrade, or a request for the event stream ({@code GET {path}/sse}: the other way to hold a connection
 * open), is refused with 403 when its {@code Origin} is not allowed, and, when it comes through a trusted proxy,
 * counted against the forwarded client's per-address limits (429 when over them). Everything else goes on.
 */
final class UpgradeGuard extends ChannelInboundHandlerAdapter {

    static final String ORIGIN = "origin";
    static final String BAD_REQUEST = "bad_request";
    static final String REQUEST_TOO_LARGE = "request_too_large";
    static final String BAD_FORWARDED_FOR = "bad_forwarded_for";

    private final ConnectionAdmission admission;
    private final Set<String> allowedOrigins;
    private final List<AddressBlock> trustedProxies;
    private final BridgeMetrics metrics;
    private final RefusalLog log;
    // {path}/sse, or null when the bridge serves no event stream.
    private final String streamPath;
    // Set once a request was refused: what the client pipelined after it is dropped, not answered, while it closes.
    private boolean refused;

    UpgradeGuard(ConnectionAdmission admission, ConnectionsConfig config, List<AddressBlock> trustedProxies, BridgeMetrics metrics,
                 RefusalLog log, String streamPath) {
        this.admission = admission;
        this.streamPath = streamPath;
        this.allowedOrigins = config.allowedOrigins().stream().map(Origins::normalize).collect(Collectors.toUnmodifiableSet());
        this.trustedProxies = trustedProxies;
        this.metrics = metrics;
        this.log = log;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof FullHttpRequest request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        DecoderResult decoded = request.decoderResult();
        if (decoded.isFailure()) {
            boolean tooLarge = decoded.cause() instanceof TooLongFrameException;
            refuse(ctx, request, tooLarge ? REQUEST_TOO_LARGE : BAD_REQUEST, decoded.cause() instanceof TooLongHttpLineException
                    ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                    : decoded.cause() instanceof TooLongHttpHeaderException
                            ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                            : HttpResponseStatus.BAD_REQUEST, admission.peer());
            return;
        }
        if (!isUpgrade(request) && !isStream(request)) {
            ctx.fireChannelRead(msg);
            return;
        }
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        // Browsers always send Origin on a WebSocket upgrade; other clients may send anything, so its absence is no
        // signal and is let through: the policy keeps other sites' pages from using a visitor's browser, nothing more.
        if (!allowedOrigins.isEmpty() && origin != null && !allowedOrigins.contains(Origins.normalize(origin))) {
            refuse(ctx, request, ORIGIN, HttpResponseStatus.FORBIDDEN, admission.peer());
            return;
        }
        if (admission.fromTrustedProxy()) {
            List<String> forwarded = request.headers().getAll("X-Forwarded-For");
            if (!forwarded.isEmpty()) {
                InetAddress client = ForwardedFor.client(forwarded, trustedProxies);
                if (client == null) {
                    refuse(ctx, request, BAD_FORWARDED_FOR, HttpResponseStatus.BAD_REQUEST, admission.peer());
                    return;
                }
                String refused = admission.admitForwarded(client, ctx.channel());
                if (refused != null) {
                    refuse(ctx, request, refused, HttpResponseStatus.TOO_MANY_REQUESTS, client);
                    return;
                }
            }
        }
        ctx.fireChannelRead(msg);
    }

    private static boolean isUpgrade(FullHttpRequest request) {
        return request.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
    }

    private boolean isStream(FullHttpRequest request) {
        return streamPath != null && HttpMethod.GET.equals(request.method())
                && streamPath.equals(new QueryStringDecoder(request.uri()).path());
    }

    private void refuse(ChannelHandlerContext ctx, FullHttpRequest request, String reason, HttpResponseStatus status, InetAddress client) {
        ReferenceCountUtil.release(request);
        refused = true;
        metrics.connectionRefused(reason);
        log.refused(reason, client.getHostAddress());
        byte[] text = (status.code() + " " + status.reasonPhrase() + "\n").getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(text));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=us-ascii")
                .set(HttpHeaderNames.CONTENT_LENGTH, text.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        // Closed once the answer is written, or after the grace if the client does not read it.
        Closing.closeOnceDone(ctx.channel(), ctx.writeAndFlush(response), Closing.DEFAULT_GRACE);
    }
}
