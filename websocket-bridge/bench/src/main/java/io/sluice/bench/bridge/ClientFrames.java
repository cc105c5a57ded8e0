package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The few bytes a bench client sends: the HTTP upgrade request and masked text frames. Written by hand because a
 * subscriber or publisher needs nothing more, and Netty's client handshaker and frame codecs would cost every one of tens of
 * thousands of connections several handlers and buffers. Frames are masked, as RFC 6455 requires of clients, with
 * the all-zero key: masking then leaves the bytes as they are, and the server only checks that the mask bit is set.
 */
final class ClientFrames {

    private ClientFrames() {
    }

    /**
     * An upgrade request for {@code path} on {@code hostPort}. The key is fixed and the server's accept value is not
     * checked: the bench trusts its own bridge, and the 101 status is what it waits for.
     */
    static ByteBuf upgradeRequest(String hostPort, String path) {
        String request = "GET " + path + " HTTP/1.1\r\n"
                + "Host: " + hostPort + "\r\n"
                + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n"
                + "Sec-WebSocket-Key: c2x1aWNlLWJlbmNoLWtleQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n";
        return Unpooled.unreleasableBuffer(Unpooled.copiedBuffer(request, StandardCharsets.US_ASCII).asReadOnly());
    }

    /** The {@code connect} request presenting {@code token}, with id 1. */
    static ByteBuf connect(String token) {
        return text("{\"type\":\"connect\",\"id\":1,\"token\":\"" + token + "\"}");
    }

    /** One masked text frame holding {@code json}. */
    static ByteBuf text(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        ByteBuf frame = Unpooled.buffer(body.length + 8);
        frame.writeByte(0x81);
        if (body.length < 126) {
            frame.writeByte(0x80 | body.length);
        } else if (body.length < 65536) {
            frame.writeByte(0x80 | 126).writeShort(body.length);
        } else {
            throw new IllegalArgumentException("a bench request is never this large: " + body.length + " bytes");
        }
        frame.writeInt(0);
        return frame.writeBytes(body);
    }
}
