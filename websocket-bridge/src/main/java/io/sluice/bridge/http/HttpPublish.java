package io.sluice.bridge.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.format.ExactJson;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.PayloadFormat;
import io.sluice.bridge.protocol.RequestRefusedException;

/**
 * Reads a {@code POST {server.path}/publish} into the publish a WebSocket client would send (docs/bridge-http.md). In:
 * the whole request (its body already bounded by {@link BodyLimit}); out: its endpoint and a
 * {@link ClientRequest.Publish}, or the refusal: {@link RequestRefusedException} (400: the query, the body's JSON or
 * UTF-8) or {@link UnsupportedType} (415: the {@code Content-Type}). Stateless; {@link HttpRoutes} checks the token
 * between the two (the refusals come in that order) and publishes.
 */
final class HttpPublish {

    // One JSON value and nothing after it, read as a WebSocket publish's payload is (ClientRequests): exact numbers,
    // no key twice. The body is bounded by server.maxInboundMessageBytes; nesting is bounded as on WebSocket.
    private static final ExactJson JSON = ExactJson.withDepth(64);

    /** A body whose {@code Content-Type} the bridge does not take: answered 415. */
    static final class UnsupportedType extends Exception {
        private static final long serialVersionUID = 1L;

        UnsupportedType(String message) {
            super(message, null, false, false);
        }
    }

    private HttpPublish() {
    }

    /**
     * The one {@code endpoint} query parameter; any other parameter (tokens aside: see {@link HttpCredentials}) is
     * refused. Read before the credentials, the body after them: the order the refusals come in.
     *
     * @param maxEndpointBytes requests.maxEndpointBytes
     */
    static String endpoint(String uri, int maxEndpointBytes) throws RequestRefusedException {
        Map<String, List<String>> query = new QueryStringDecoder(uri).parameters();
        for (Map.Entry<String, List<String>> parameter : query.entrySet()) {
            String name = parameter.getKey();
            if (!name.equals("endpoint") && !name.equals("token") && !name.equals("access_token") && !name.equals("jwt")) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "unknown query parameter '" + bounded(name) + "'", null);
            }
        }
        List<String> endpoints = query.getOrDefault("endpoint", List.of());
        if (endpoints.size() != 1) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, endpoints.isEmpty()
                    ? "name the endpoint: publish?endpoint=/..." : "endpoint given " + endpoints.size() + " times; publish takes one", null);
        }
        String endpoint = endpoints.get(0);
        if (endpoint.getBytes(StandardCharsets.UTF_8).length > maxEndpointBytes) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "the endpoint is longer than requests.maxEndpointBytes ("
                    + maxEndpointBytes + ")", null);
        }
        return endpoint;
    }

    private static String bounded(String name) {
        return name.length() > 64 ? name.substring(0, 64) + "..." : name;
    }

    /**
     * The body as a WebSocket publish would carry it, by {@code Content-Type}: JSON (must parse), text (must be UTF-8),
     * bytes (carried as base64, as a WebSocket client sends them); no type and no body is a tombstone.
     */
    static ClientRequest.Publish payload(String endpoint, FullHttpRequest request) throws RequestRefusedException, UnsupportedType {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        int length = request.content().readableBytes();
        if (contentType == null) {
            if (length == 0) {
                return new ClientRequest.Publish(null, endpoint, PayloadFormat.NONE, NullNode.getInstance());
            }
            throw new UnsupportedType("a body needs a Content-Type: application/json, text/plain or application/octet-stream");
        }
        String[] parts = contentType.split(";");
        String type = parts[0].strip().toLowerCase(Locale.ROOT);
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip().toLowerCase(Locale.ROOT).replace("\"", "");
            if (parameter.startsWith("charset=") && !parameter.equals("charset=utf-8") && !parameter.equals("charset=us-ascii")) {
                throw new UnsupportedType("only UTF-8 bodies are accepted");
            }
        }
        byte[] body = ByteBufUtil.getBytes(request.content());
        switch (type) {
            case "application/json": {
                try {
                    JsonNode json = JSON.read(body);
                    if (json == null || json.isMissingNode()) {
                        throw new RequestRefusedException(ErrorCodes.INVALID_PAYLOAD, "the body is empty; an application/json body must be one JSON value", null);
                    }
                    return new ClientRequest.Publish(null, endpoint, PayloadFormat.JSON, json);
                }
                catch (java.io.IOException e) {
                    throw new RequestRefusedException(ErrorCodes.INVALID_PAYLOAD, "the body is not one JSON value: "
                            + firstLine(e.getMessage()), null);
                }
            }
            case "text/plain": {
                try {
                    String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
                    return new ClientRequest.Publish(null, endpoint, PayloadFormat.TEXT, TextNode.valueOf(text));
                }
                catch (CharacterCodingException e) {
                    throw new RequestRefusedException(ErrorCodes.INVALID_PAYLOAD, "a text/plain body must be UTF-8", null);
                }
            }
            case "application/octet-stream":
                return new ClientRequest.Publish(null, endpoint, PayloadFormat.BASE64, TextNode.valueOf(Base64.getEncoder().encodeToString(body)));
            default:
                throw new UnsupportedType("Content-Type " + bounded(type) + " is not accepted: use application/json, text/plain or application/octet-stream");
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
