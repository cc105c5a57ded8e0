package io.sluice.proxy.testing;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * A bare Kafka protocol client over a socket, for what kafka-clients will not do on purpose: send requests
 * before authenticating, use SaslAuthenticate v0 (no session lifetime), keep using a connection after its
 * token expired, speak an older version of an API than the broker offers. Messages are kafka-clients' own
 * generated classes.
 */
public final class KafkaWire implements AutoCloseable {

    private final Socket socket;
    private final DataInputStream in;
    private int correlationId;
    private int lastResponseBytes;

    public KafkaWire(int port) throws IOException {
        this(null, port);
    }

    /** Connects from {@code localAddress} (127.0.0.2, say, to look like another client host), or any when null. */
    public KafkaWire(java.net.InetAddress localAddress, int port) throws IOException {
        socket = new Socket("127.0.0.1", port, localAddress, 0);
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
    }

    /**
     * Connects with a receive buffer of {@code receiveBufferBytes} (set before connecting, so the window offered is
     * small from the start): a peer that will stop reading.
     */
    public static KafkaWire withReceiveBuffer(int port, int receiveBufferBytes) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(receiveBufferBytes);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        return new KafkaWire(socket);
    }

    private KafkaWire(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(10_000);
        in = new DataInputStream(socket.getInputStream());
    }

    public <R extends ApiMessage> R call(ApiKeys api, short version, ApiMessage request) throws IOException {
        send(api, version, request);
        return receive(api, version);
    }

    /** Reads the response to the request sent last. */
    @SuppressWarnings("unchecked")
    public <R extends ApiMessage> R receive(ApiKeys api, short version) throws IOException {
        int size = in.readInt();
        lastResponseBytes = size;
        byte[] body = new byte[size];
        in.readFully(body);
        ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(body));
        ResponseHeaderData header = new ResponseHeaderData(reader, api.responseHeaderVersion(version));
        if (header.correlationId() != correlationId) {
            throw new IOException("response for #" + header.correlationId() + ", expected #" + correlationId);
        }
        ApiMessage response = api.messageType.newResponse();
        response.read(reader, version);
        return (R) response;
    }

    /** The size of the last response received, as it came: its frame without the length before it. */
    public int lastResponseBytes() {
        return lastResponseBytes;
    }

    public void send(ApiKeys api, short version, ApiMessage request) throws IOException {
        sendRaw(frame(api, version, request));
    }

    /** Writes bytes as they are, in one write: several frames built with {@link #frame} arrive together. */
    public void sendRaw(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** The request as a frame (size prefix included) under the next correlation id, not sent. */
    public byte[] frame(ApiKeys api, short version, ApiMessage request) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(++correlationId).setClientId("wire");
        ObjectSerializationCache cache = new ObjectSerializationCache();
        short headerVersion = api.requestHeaderVersion(version);
        int size = header.size(cache, headerVersion) + request.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(4 + size);
        buffer.putInt(size);
        ByteBufferAccessor writer = new ByteBufferAccessor(buffer);
        header.write(writer, cache, headerVersion);
        request.write(writer, cache, version);
        return buffer.array();
    }

    /** SaslHandshake v1 and SaslAuthenticate at {@code version} with the token. */
    public SaslAuthenticateResponseData authenticate(String token, short version) throws IOException {
        call(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"));
        byte[] message = ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
        return call(ApiKeys.SASL_AUTHENTICATE, version, new SaslAuthenticateRequestData().setAuthBytes(message));
    }

    /** Whether the proxy has closed the connection: the next read sees the end of the stream. */
    public boolean closedByPeer() throws IOException {
        try {
            return in.read() < 0;
        } catch (EOFException | SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    /** Reads and discards whatever the proxy still sends; true when it then closes, false when it goes quiet instead. */
    public boolean closedAfterDraining() throws IOException {
        byte[] discard = new byte[8192];
        try {
            while (in.read(discard) >= 0) {
                // keep reading
            }
            return true;
        } catch (SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    public Socket socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
