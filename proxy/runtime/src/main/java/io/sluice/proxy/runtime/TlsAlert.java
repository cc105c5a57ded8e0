package io.sluice.proxy.runtime;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * The one TLS record an SNI listener writes itself: a fatal {@code unrecognized_name} alert (RFC 6066 section 3), in
 * clear, as the only answer to a ClientHello it cannot route. Before the server's first flight no keys exist, so a
 * plaintext alert is what a TLS 1.2 or 1.3 server sends here too; clients report it as "unrecognized_name"
 * (kafka-clients' SSLHandshakeException) or "tlsv1 unrecognized name" (OpenSSL, under librdkafka).
 */
final class TlsAlert {

    private static final byte CONTENT_TYPE_ALERT = 21;
    private static final byte LEVEL_FATAL = 2;
    private static final byte UNRECOGNIZED_NAME = 112;
    // Record header (type, legacy version 3.3 as TLS 1.3 sends every record after the ClientHello, length 2), then the alert.
    private static final byte[] UNRECOGNIZED_NAME_RECORD = {CONTENT_TYPE_ALERT, 3, 3, 0, 2, LEVEL_FATAL, UNRECOGNIZED_NAME};

    private TlsAlert() {
    }

    static ByteBuf unrecognizedName() {
        return Unpooled.wrappedBuffer(UNRECOGNIZED_NAME_RECORD.clone());
    }
}
