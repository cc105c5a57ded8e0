package io.sluice.bridge.sse;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import io.sluice.bridge.protocol.ClientRequest.Position;
import io.sluice.bridge.protocol.ClientRequests;

/**
 * An SSE stream's {@code id:}: its whole position, so that the last id a browser saw is all any node needs to resume it
 * (docs/bridge-http.md#ids). {@code 1.} then base64url without padding of: for each {@code endpoint} parameter in URL
 * order, a varint count of positions, then per position a varint byte length, the UTF-8 epoch and a varint of
 * {@code seq + 1} (so that -1, "nothing of this partition yet", is 0). Varints are unsigned LEB128.
 *
 * <p>Decoding trusts nothing: the text's length, the version, the alphabet, every count and length is bounded before
 * it is used, and a problem is reported by what was wrong, never by quoting the id.
 */
final class EventIds {

    static final String VERSION = "1.";
    static final int MAX_POSITIONS_PER_ENDPOINT = 1024;
    static final int MAX_POSITIONS = 4096;

    /** A malformed id; the message names the problem and quotes nothing of it. */
    static final class MalformedIdException extends Exception {
        MalformedIdException(String message) {
            super(message);
        }
    }

    private EventIds() {
    }

    /** @param positions per endpoint parameter, in URL order: epoch to the last seq delivered or covered */
    static String encode(List<Map<String, Long>> positions) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 + 24 * positions.size());
        for (Map<String, Long> endpoint : positions) {
            varint(out, endpoint.size());
            endpoint.forEach((epoch, seq) -> {
                byte[] bytes = epoch.getBytes(StandardCharsets.UTF_8);
                varint(out, bytes.length);
                out.writeBytes(bytes);
                varint(out, seq + 1);
            });
        }
        return VERSION + Base64.getUrlEncoder().withoutPadding().encodeToString(out.toByteArray());
    }

    /**
     * @param id        the {@code Last-Event-ID} (or {@code lastEventId} parameter)
     * @param endpoints how many {@code endpoint} parameters the stream has
     * @param maxBytes  {@code http.maxLastEventIdBytes}
     * @return per endpoint parameter, the positions to recover from
     */
    static List<List<Position>> decode(String id, int endpoints, int maxBytes) throws MalformedIdException {
        if (id.length() > maxBytes) {
            throw new MalformedIdException("longer than http.maxLastEventIdBytes (" + maxBytes + ")");
        }
        if (!id.startsWith(VERSION)) {
            throw new MalformedIdException("not an id of this bridge (version 1.)");
        }
        byte[] bytes;
        try {
            // The URL-safe decoder refuses '+', '/' and whitespace; padding is not written, so it is refused too.
            if (id.indexOf('=') >= 0) {
                throw new IllegalArgumentException();
            }
            bytes = Base64.getUrlDecoder().decode(id.substring(VERSION.length()));
        }
        catch (IllegalArgumentException e) {
            throw new MalformedIdException("not base64url after the version");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        List<List<Position>> all = new ArrayList<>(endpoints);
        int total = 0;
        for (int i = 0; i < endpoints; i++) {
            if (!in.hasRemaining()) {
                throw new MalformedIdException("holds positions for " + i + " endpoints, the stream names " + endpoints);
            }
            long count = varint(in);
            if (count > MAX_POSITIONS_PER_ENDPOINT) {
                throw new MalformedIdException("more than " + MAX_POSITIONS_PER_ENDPOINT + " positions for one endpoint");
            }
            total += (int) count;
            if (total > MAX_POSITIONS) {
                throw new MalformedIdException("more than " + MAX_POSITIONS + " positions in all");
            }
            List<Position> positions = new ArrayList<>((int) count);
            for (int p = 0; p < count; p++) {
                long length = varint(in);
                if (length < 1 || length > ClientRequests.MAX_EPOCH_CHARS) {
                    throw new MalformedIdException("an epoch is not 1.." + ClientRequests.MAX_EPOCH_CHARS + " bytes");
                }
                if (in.remaining() < length) {
                    throw new MalformedIdException("ends inside an epoch");
                }
                byte[] epoch = new byte[(int) length];
                in.get(epoch);
                long seq = varint(in) - 1;
                positions.add(new Position(utf8(epoch), seq));
            }
            all.add(positions);
        }
        if (in.hasRemaining()) {
            throw new MalformedIdException("holds positions for more endpoints than the stream names (" + endpoints + ")");
        }
        return all;
    }

    private static String utf8(byte[] bytes) throws MalformedIdException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        }
        catch (CharacterCodingException e) {
            throw new MalformedIdException("an epoch is not UTF-8");
        }
    }

    private static void varint(ByteArrayOutputStream out, long value) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** At most 9 bytes (63 bits): every value written is a non-negative long. */
    private static long varint(ByteBuffer in) throws MalformedIdException {
        long value = 0;
        for (int shift = 0; shift < 63; shift += 7) {
            if (!in.hasRemaining()) {
                throw new MalformedIdException("ends inside a number");
            }
            byte b = in.get();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MalformedIdException("a number is longer than 63 bits");
    }
}
