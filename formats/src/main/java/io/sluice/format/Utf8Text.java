package io.sluice.format;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 decoding: malformed or unmappable bytes are an error, never a replacement character. */
final class Utf8Text {

    private Utf8Text() {
    }

    static String decode(byte[] bytes, int offset, int length) throws DecodeException {
        try {
            // A new decoder per call: CharsetDecoder is stateful and codecs are shared between threads.
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, offset, length))
                    .toString();
        }
        catch (CharacterCodingException e) {
            throw new DecodeException("not valid UTF-8");
        }
    }
}
