package io.sluice.adversarial;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Sends one hostile frame on a fresh connection to the proxy and judges what comes back. The connection is set up as
 * the {@link Mode} says (nothing, a SASL handshake, or a full OAUTHBEARER authentication), then the frame, then a
 * harmless ApiVersions as a canary. Acceptable: a well-formed response with the frame's correlation id (then the
 * canary's), or the connection closed. A Produce with {@code acks=0} has no response, so the canary's answer alone is
 * fine there. Requests the broker may legitimately hold (a Fetch with a long wait, a JoinGroup waiting for members)
 * may stay unanswered; anything else unanswered with the connection open is a finding.
 */
final class WireProbe {

    enum Mode { UNAUTHENTICATED, HANDSHAKEN, ADMIN, RESTRICTED }

    enum Outcome {
        ANSWERED(false), CLOSED(false), NO_RESPONSE_EXPECTED(false), HELD_BY_BROKER(false),
        NOT_ANSWERED(true), ANSWER_SKIPPED(true), RESPONSES_REORDERED(true), UNEXPECTED_RESPONSE(true), WRONG_CORRELATION(true), MALFORMED_RESPONSE(true), NOT_CLOSED(true), SETUP_FAILED(true);

        final boolean failure;

        Outcome(boolean failure) {
            this.failure = failure;
        }
    }

    record Result(Outcome outcome, String detail) {
    }

    /** Requests a broker may hold open for as long as the (possibly mutated) request asks. */
    private static final Set<ApiKeys> MAY_WAIT = EnumSet.of(ApiKeys.FETCH, ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.SHARE_FETCH);
    private static final short CANARY_VERSION = 3;
    private static final int MAX_RESPONSE = 64 * 1024 * 1024;

    private final int port;
    private final int timeoutMs;
    private final int graceMs;
    private final String adminToken;
    private final String restrictedToken;

    /**
     * @param timeoutMs how long a request the broker may hold (Fetch, JoinGroup, ...) waits before it counts as held
     * @param graceMs   how much longer any other answer or close is awaited before it counts as missing: the broker
     *                  shares the test JVM and the machine's cores, and a request with 1,000 copies of an element can
     *                  take seconds on a loaded box; a hang is what stays silent through the grace too
     */
    WireProbe(int port, int timeoutMs, int graceMs, String adminToken, String restrictedToken) {
        this.port = port;
        this.timeoutMs = timeoutMs;
        this.graceMs = graceMs;
        this.adminToken = adminToken;
        this.restrictedToken = restrictedToken;
    }

    Result send(Mutation mutation, Mode mode) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            String setupProblem = setUp(socket, in, mode);
            if (setupProblem != null) {
                return new Result(Outcome.SETUP_FAILED, setupProblem);
            }
            socket.getOutputStream().write(mutation.frame());
            if (mutation.halfClose()) {
                socket.shutdownOutput();
                return drainUntilClosed(socket, in);
            }
            Integer correlation = mutation.correlationId();
            int canary = correlation == null || correlation != 7 ? 7 : 8;
            socket.getOutputStream().write(frame(ApiKeys.API_VERSIONS, CANARY_VERSION, canary,
                    new ApiVersionsRequestData().setClientSoftwareName("fuzz-canary").setClientSoftwareVersion("1")));
            return judge(socket, in, mutation, canary);
        } catch (IOException e) {
            return new Result(Outcome.SETUP_FAILED, "could not connect or write: " + e);
        }
    }

    private String setUp(Socket socket, DataInputStream in, Mode mode) throws IOException {
        if (mode == Mode.UNAUTHENTICATED) {
            return null;
        }
        socket.getOutputStream().write(frame(ApiKeys.SASL_HANDSHAKE, (short) 1, 1, new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")));
        SaslHandshakeResponseData handshake = new SaslHandshakeResponseData();
        String problem = readInto(in, ApiKeys.SASL_HANDSHAKE, (short) 1, 1, handshake);
        if (problem != null || handshake.errorCode() != 0) {
            return "SaslHandshake failed: " + (problem != null ? problem : "error " + handshake.errorCode());
        }
        if (mode == Mode.HANDSHAKEN) {
            return null;
        }
        String token = mode == Mode.ADMIN ? adminToken : restrictedToken;
        byte[] message = ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
        socket.getOutputStream().write(frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, 2, new SaslAuthenticateRequestData().setAuthBytes(message)));
        SaslAuthenticateResponseData authenticated = new SaslAuthenticateResponseData();
        problem = readInto(in, ApiKeys.SASL_AUTHENTICATE, (short) 2, 2, authenticated);
        if (problem != null || authenticated.errorCode() != 0) {
            return "SaslAuthenticate failed: " + (problem != null ? problem : authenticated.errorMessage());
        }
        return null;
    }

    private String readInto(DataInputStream in, ApiKeys api, short version, int correlation, ApiMessage into) throws IOException {
        byte[] body;
        try {
            body = readFrame(in);
        } catch (EOFException | SocketException e) {
            return "connection closed";
        } catch (SocketTimeoutException e) {
            return "no answer in " + timeoutMs + " ms";
        }
        ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(body));
        ResponseHeaderData header = new ResponseHeaderData(reader, api.responseHeaderVersion(version));
        if (header.correlationId() != correlation) {
            return "correlation id " + header.correlationId() + ", expected " + correlation;
        }
        into.read(reader, version);
        return null;
    }

    private Result judge(Socket socket, DataInputStream in, Mutation mutation, int canary) throws IOException {
        Integer correlation = mutation.correlationId();
        ApiKeys api = ApiKeys.hasId(mutation.apiKey()) ? ApiKeys.forId(mutation.apiKey()) : null;
        boolean answered = false;
        while (true) {
            byte[] body;
            try {
                body = readFrame(socket, in, answered || api == null || !MAY_WAIT.contains(api));
            } catch (EOFException | SocketException e) {
                return new Result(Outcome.CLOSED, answered ? "answered, then closed" : "closed");
            } catch (SocketTimeoutException e) {
                if (!answered && api != null && MAY_WAIT.contains(api)) {
                    return new Result(Outcome.HELD_BY_BROKER, api + " unanswered after " + timeoutMs + " ms");
                }
                return new Result(Outcome.NOT_ANSWERED, (answered ? "the canary ApiVersions" : "the request and the canary") + " unanswered after "
                        + (timeoutMs + graceMs) + " ms, connection open");
            } catch (IOException e) {
                return new Result(Outcome.MALFORMED_RESPONSE, e.getMessage());
            }
            ByteBuffer buffer = ByteBuffer.wrap(body);
            if (body.length < 4) {
                return new Result(Outcome.MALFORMED_RESPONSE, "a response of " + body.length + " bytes");
            }
            int responseCorrelation = buffer.getInt(0);
            if (!answered && correlation != null && responseCorrelation == correlation) {
                String problem = wellFormed(body, mutation.apiKey(), mutation.apiVersion());
                if (problem != null) {
                    return new Result(Outcome.MALFORMED_RESPONSE, problem);
                }
                if (isProduceWithoutAcks(mutation)) {
                    return new Result(Outcome.UNEXPECTED_RESPONSE, "a response to a Produce with acks=0, which a client does not read");
                }
                answered = true;
            } else if (responseCorrelation == canary) {
                String problem = wellFormed(body, ApiKeys.API_VERSIONS.id, CANARY_VERSION);
                if (problem != null) {
                    return new Result(Outcome.MALFORMED_RESPONSE, "canary: " + problem);
                }
                if (answered) {
                    return new Result(Outcome.ANSWERED, "answered");
                }
                if (isProduceWithoutAcks(mutation)) {
                    return new Result(Outcome.NO_RESPONSE_EXPECTED, "acks=0");
                }
                return afterCanary(socket, in, correlation);
            } else {
                return new Result(Outcome.WRONG_CORRELATION, "a response with correlation id " + responseCorrelation + "; sent " + correlation
                        + " then the canary " + canary);
            }
        }
    }

    /** The canary was answered first: the request's answer comes late (out of order) or never. */
    private Result afterCanary(Socket socket, DataInputStream in, Integer correlation) throws IOException {
        try {
            byte[] late = readFrame(socket, in, true);
            if (late.length >= 4 && correlation != null && ByteBuffer.wrap(late).getInt(0) == correlation) {
                return new Result(Outcome.RESPONSES_REORDERED, "the canary (sent second) was answered before the request (correlation id " + correlation + ")");
            }
            return new Result(Outcome.WRONG_CORRELATION, "after the canary, a response with correlation id " + ByteBuffer.wrap(late).getInt(0));
        } catch (EOFException | SocketException e) {
            return new Result(Outcome.ANSWER_SKIPPED, "the canary (sent second) was answered, the request (correlation id " + correlation
                    + ") never was, then the connection closed");
        } catch (SocketTimeoutException e) {
            return new Result(Outcome.ANSWER_SKIPPED, "the canary (sent second) was answered, the request (correlation id " + correlation
                    + ") never was (connection open)");
        }
    }

    private Result drainUntilClosed(Socket socket, DataInputStream in) {
        try {
            while (true) {
                readFrame(socket, in, true);
            }
        } catch (EOFException | SocketException e) {
            return new Result(Outcome.CLOSED, "closed after the stream ended");
        } catch (SocketTimeoutException e) {
            return new Result(Outcome.NOT_CLOSED, "the stream ended mid-frame but the connection stayed open for " + (timeoutMs + graceMs) + " ms");
        } catch (IOException e) {
            return new Result(Outcome.MALFORMED_RESPONSE, e.getMessage());
        }
    }

    /** Whether the body decodes as a response to this API and version, leaving no byte over; null if it does. */
    private static String wellFormed(byte[] body, short key, short version) {
        if (!ApiKeys.hasId(key) || !ApiKeys.forId(key).isVersionSupported(version)) {
            return null; // nothing to check it against; the correlation id matched
        }
        ApiKeys api = ApiKeys.forId(key);
        String problem = parses(body, api, version);
        if (problem != null && api == ApiKeys.API_VERSIONS) {
            // A broker (and the proxy) answers an ApiVersions it cannot serve in v0.
            return parses(body, api, (short) 0) == null ? null : problem;
        }
        return problem;
    }

    private static String parses(byte[] body, ApiKeys api, short version) {
        try {
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(body));
            new ResponseHeaderData(reader, api.responseHeaderVersion(version));
            ApiMessage response = api.messageType.newResponse();
            response.read(reader, version);
            return reader.remaining() == 0 ? null : api + " v" + version + " response has " + reader.remaining() + " bytes over";
        } catch (RuntimeException e) {
            return api + " v" + version + " response does not decode: " + e;
        }
    }

    private static boolean isProduceWithoutAcks(Mutation mutation) {
        if (mutation.apiKey() != ApiKeys.PRODUCE.id || !ApiKeys.PRODUCE.isVersionSupported(mutation.apiVersion())) {
            return false;
        }
        try {
            byte[] frame = mutation.frame();
            ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(frame, 4, frame.length - 4));
            new RequestHeaderData(reader, ApiKeys.PRODUCE.requestHeaderVersion(mutation.apiVersion()));
            ProduceRequestData produce = new ProduceRequestData();
            produce.read(reader, mutation.apiVersion());
            return produce.acks() == 0;
        } catch (RuntimeException e) {
            // Undecodable: whatever the proxy made of it, closing would have been the answer; the acks byte alone decides.
            return false;
        }
    }

    private byte[] readFrame(DataInputStream in) throws IOException {
        return readFrame(null, in, false);
    }

    /** @param graced whether a frame that has not begun after {@code timeoutMs} gets {@code graceMs} more */
    private byte[] readFrame(Socket socket, DataInputStream in, boolean graced) throws IOException {
        int first;
        try {
            first = in.read();
        } catch (SocketTimeoutException e) {
            if (!graced) {
                throw e;
            }
            // Nothing of the frame was read yet, so waiting again loses no bytes.
            socket.setSoTimeout(graceMs);
            try {
                first = in.read();
            } finally {
                socket.setSoTimeout(timeoutMs);
            }
        }
        if (first < 0) {
            throw new EOFException();
        }
        int size = first << 24 | in.readUnsignedByte() << 16 | in.readUnsignedShort();
        if (size < 0 || size > MAX_RESPONSE) {
            throw new IOException("a response frame of " + size + " bytes");
        }
        byte[] body = new byte[size];
        in.readFully(body);
        return body;
    }

    static byte[] frame(ApiKeys api, short version, int correlation, ApiMessage request) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(api.id).setRequestApiVersion(version)
                .setCorrelationId(correlation).setClientId("fuzz");
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
}
