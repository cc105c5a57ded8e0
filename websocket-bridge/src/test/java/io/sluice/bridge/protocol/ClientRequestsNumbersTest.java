package io.sluice.bridge.protocol;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.sluice.bridge.config.RequestLimitsConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A publish is parsed with the codecs' one JSON reader (io.sluice.format.ExactJson), so its number bounds hold for
 * requests too: a payload with an exponent that would become a billion-digit integer further on is malformed.
 */
class ClientRequestsNumbersTest {

    @Test
    void aPublishOfANumberBeyondTheExponentBoundIsRefusedAsMalformed() {
        String publish = "{\"type\":\"publish\",\"id\":1,\"endpoint\":\"/t/k\",\"payload\":{\"n\":1e999999999}}";
        assertThatThrownBy(() -> ClientRequests.parse(Unpooled.copiedBuffer(publish, StandardCharsets.UTF_8),
                RequestLimitsConfig.defaults()))
                .isInstanceOfSatisfying(RequestRefusedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCodes.MALFORMED));
    }
}
