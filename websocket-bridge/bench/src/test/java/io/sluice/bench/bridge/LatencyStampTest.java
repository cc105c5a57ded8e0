package io.sluice.bench.bridge;

import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyStampTest {

    @Test
    void stampWrittenIntoAPayloadReadsBackFromTheSamePosition() {
        long stamp = LatencyStamp.now();
        byte[] payload = LatencyStamp.payload(stamp, 64);

        assertThat(payload).hasSize(64);
        assertThat(LatencyStamp.read(Unpooled.wrappedBuffer(payload), 0)).isEqualTo(stamp);
        assertThat(payload[LatencyStamp.DIGITS]).isEqualTo((byte) ' ');
    }

    @Test
    void bytesThatAreNotAStampReadAsMinusOne() {
        assertThat(LatencyStamp.read(Unpooled.wrappedBuffer("{\"home\":1,\"away\":0,\"minute\":12}".getBytes()), 0)).isEqualTo(-1);
    }
}
