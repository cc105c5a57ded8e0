package io.sluice.bridge.mqtt;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * An MQTT client of a few bytes' worth, for hostile tests: it writes packets byte by byte as the tests spell them
 * (malformed ones included) and reads whatever comes back as (type, flags, body), without interpreting it beyond that.
 */
final class RawMqtt implements AutoCloseable {

    /** One packet read: the fixed header's type (1..15) and flags, and the bytes after the remaining length. */
    record Packet(int type, int flags, byte[] body) {
        /** MQTT 5 DISCONNECT / PUBACK reason code (0 when absent). */
        int reason(int offset) {
            return body.length > offset ? body[offset] & 0xff : 0;
        }
    }

    static final int CONNACK = 2;
    static final int PUBLISH = 3;
    static final int PUBACK = 4;
    static final int SUBACK = 9;
    static final int DISCONNECT = 14;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private RawMqtt(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    static RawMqtt open(int port) throws IOException {
        return open("127.0.0.1", port, 0);
    }

    /** From a given loopback source address; {@code receiveBuffer} > 0 makes the kernel hold less for a non-reader. */
    static RawMqtt open(String source, int port, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(10_000);
        return new RawMqtt(socket);
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next packet, or null when the server closed the connection. */
    Packet read() throws IOException {
        int first;
        try {
            first = in.read();
        }
        catch (SocketException e) {
            return null;
        }
        if (first < 0) {
            return null;
        }
        int remaining = 0;
        for (int shift = 0; ; shift += 7) {
            int digit = in.read();
            if (digit < 0) {
                return null;
            }
            remaining |= (digit & 0x7f) << shift;
            if ((digit & 0x80) == 0) {
                break;
            }
        }
        byte[] body = new byte[remaining];
        try {
            in.readFully(body);
        }
        catch (EOFException e) {
            return null;
        }
        return new Packet(first >> 4, first & 0x0f, body);
    }

    /** Reads (and drops) everything until the server closes; false if it is still open after {@code within}. */
    boolean closedWithin(Duration within) throws IOException {
        long deadline = System.nanoTime() + within.toNanos();
        byte[] sink = new byte[65_536];
        while (System.nanoTime() < deadline) {
            socket.setSoTimeout((int) Math.max(1, Math.min(1_000, (deadline - System.nanoTime()) / 1_000_000)));
            try {
                if (in.read(sink) < 0) {
                    return true;
                }
            }
            catch (SocketTimeoutException e) {
                // still open
            }
            catch (SocketException e) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    // ---- packets

    /** CONNECT with user name "device", the token as password, clean session, keep-alive 60 s. */
    static byte[] connect(int version, String clientId, String token) {
        Bytes b = new Bytes().string("MQTT").u8(version).u8(0xC2).u16(60);
        if (version == 5) {
            b.varint(0);
        }
        b.string(clientId).string("device").string(token);
        return b.packet(0x10);
    }

    /**
     * CONNECT asking for a session: {@code cleanStart} (3.1.1's clean session) or not, and on MQTT 5 a Session Expiry
     * Interval of {@code expirySeconds} (3.1.1 has none: its server decides).
     */
    static byte[] connect(int version, String clientId, String token, boolean cleanStart, int expirySeconds) {
        Bytes b = new Bytes().string("MQTT").u8(version).u8(cleanStart ? 0xC2 : 0xC0).u16(60);
        if (version == 5) {
            b.varint(5).u8(0x11).u16(expirySeconds >>> 16).u16(expirySeconds & 0xffff);
        }
        b.string(clientId).string("device").string(token);
        return b.packet(0x10);
    }

    /** DISCONNECT (normal): the will is discarded; a persistent session stays. */
    static byte[] disconnect(int version) {
        return version == 5 ? new byte[] {(byte) 0xE0, 1, 0} : new byte[] {(byte) 0xE0, 0};
    }

    /** Whether a CONNACK says the session was present (its first byte's bit 0). */
    static boolean sessionPresent(Packet connAck) {
        return (connAck.body()[0] & 1) == 1;
    }

    /** The topic of a PUBLISH. */
    static String topicOf(Packet publish) {
        int topicLength = (publish.body()[0] & 0xff) << 8 | publish.body()[1] & 0xff;
        return new String(publish.body(), 2, topicLength, StandardCharsets.UTF_8);
    }

    /** The payload of a QoS 1 PUBLISH, as text, after its topic, packet id and (MQTT 5) properties. */
    static String payloadOf(Packet publish, int version) {
        byte[] body = publish.body();
        int at = 2 + ((body[0] & 0xff) << 8 | body[1] & 0xff);
        if ((publish.flags() & 0x06) != 0) {
            at += 2;
        }
        if (version == 5) {
            int length = 0;
            int shift = 0;
            int digit;
            do {
                digit = body[at++] & 0xff;
                length |= (digit & 0x7f) << shift;
                shift += 7;
            }
            while ((digit & 0x80) != 0);
            at += length;
        }
        return new String(body, at, body.length - at, StandardCharsets.UTF_8);
    }

    /** Whether a PUBLISH has its DUP flag set. */
    static boolean dup(Packet publish) {
        return (publish.flags() & 0x08) != 0;
    }

    static byte[] subscribe(int version, int packetId, int qos, String... filters) {
        Bytes b = new Bytes().u16(packetId);
        if (version == 5) {
            b.varint(0);
        }
        for (String f : filters) {
            b.string(f).u8(qos);
        }
        return b.packet(0x82);
    }

    /** PUBLISH; {@code alias} > 0 adds an MQTT 5 Topic Alias property. */
    static byte[] publish(int version, String topic, int qos, int packetId, byte[] payload, int alias) {
        Bytes b = new Bytes().string(topic);
        if (qos > 0) {
            b.u16(packetId);
        }
        if (version == 5) {
            if (alias > 0) {
                b.varint(3).u8(0x23).u16(alias);
            }
            else {
                b.varint(0);
            }
        }
        b.raw(payload);
        return b.packet(0x30 | qos << 1);
    }

    static byte[] puback(int packetId) {
        return new Bytes().u16(packetId).packet(0x40);
    }

    /** The packet id of a QoS 1 PUBLISH body (after its topic). */
    static int packetIdOf(Packet publish) {
        int topicLength = (publish.body()[0] & 0xff) << 8 | publish.body()[1] & 0xff;
        return (publish.body()[2 + topicLength] & 0xff) << 8 | publish.body()[3 + topicLength] & 0xff;
    }

    static final class Bytes {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Bytes u8(int v) {
            out.write(v);
            return this;
        }

        Bytes u16(int v) {
            out.write(v >> 8);
            out.write(v);
            return this;
        }

        Bytes varint(int v) {
            do {
                int digit = v & 0x7f;
                v >>>= 7;
                out.write(v > 0 ? digit | 0x80 : digit);
            }
            while (v > 0);
            return this;
        }

        Bytes string(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            u16(bytes.length);
            return raw(bytes);
        }

        Bytes raw(byte[] bytes) {
            out.write(bytes, 0, bytes.length);
            return this;
        }

        byte[] packet(int firstByte) {
            byte[] body = out.toByteArray();
            Bytes whole = new Bytes().u8(firstByte).varint(body.length).raw(body);
            return whole.out.toByteArray();
        }
    }
}
