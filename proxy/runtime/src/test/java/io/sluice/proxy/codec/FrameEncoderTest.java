package io.sluice.proxy.codec;

import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;

import static org.assertj.core.api.Assertions.assertThat;

class FrameEncoderTest {

    @Test
    void aResponseThatCannotBeSerialisedClosesTheConnectionInsteadOfVanishing() {
        EmbeddedChannel channel = new EmbeddedChannel(FrameEncoder.INSTANCE);
        // A Kafka string holds at most 32,767 UTF-8 bytes: this error message cannot be written.
        FindCoordinatorResponseData body = new FindCoordinatorResponseData().setErrorMessage("x".repeat(40_000));
        DecodedResponse response = new DecodedResponse(ApiKeys.FIND_COORDINATOR, (short) 3, new ResponseHeaderData().setCorrelationId(7), body, null, null);

        ChannelFuture write = channel.writeAndFlush(response);

        assertThat(write.isSuccess()).isFalse();
        assertThat(channel.isOpen()).as("connection open after a response was lost").isFalse();
        assertThat((ByteBuf) channel.readOutbound()).isNull();
    }

    @Test
    void aSerialisableResponseIsWritten() {
        EmbeddedChannel channel = new EmbeddedChannel(FrameEncoder.INSTANCE);
        FindCoordinatorResponseData body = new FindCoordinatorResponseData().setErrorMessage("fine");
        channel.writeAndFlush(new DecodedResponse(ApiKeys.FIND_COORDINATOR, (short) 3, new ResponseHeaderData().setCorrelationId(7), body, null, null));

        ByteBuf written = channel.readOutbound();
        assertThat(written.getInt(0)).isEqualTo(written.readableBytes() - 4);
        written.release();
        assertThat(channel.isOpen()).isTrue();
    }
}
