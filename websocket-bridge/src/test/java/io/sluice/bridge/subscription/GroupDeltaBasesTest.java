package io.sluice.bridge.subscription;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.bridge.config.DeltaConfig;
import io.sluice.bridge.selection.FilterLimits;
import io.sluice.bridge.selection.Projection;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bases a projecting group keeps for the next delta, bounded by bytes: a producer writing large values to many
 * endpoints of a topic a delta subscriber selects made the reader keep up to 10,000 of them, whatever their size.
 */
class GroupDeltaBasesTest {

    private static final MessageEncoder ENCODER = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);

    private static Group deltaGroup() throws Exception {
        Group group = new Group(null, Projection.parse(new ObjectMapper().readTree("[\"/pad\", \"/n\"]"), FilterLimits.defaults()));
        group.deltaMembers = 1;
        return group;
    }

    /** The group's message for one record; the caller's reference to it is released, as the hub does once delivered. */
    private static EncodedMessage live(Group group, String endpoint, long seq, String value, DeltaConfig limits) {
        EncodedMessage record = ENCODER.message(endpoint, "epoch-0", 0, seq, 1L, value.getBytes(StandardCharsets.UTF_8));
        EncodedMessage projected = group.live(record, new MessageView(record), UnpooledByteBufAllocator.DEFAULT, ENCODER, limits);
        record.release();
        return projected;
    }

    @Test
    void basesOfLargeValuesOnManyEndpointsAreBoundedByBytesAndTheRecentOnesStillGiveDeltas() throws Exception {
        Group group = deltaGroup();
        String pad = "p".repeat(60 * 1024);
        List<EncodedMessage> sent = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            EncodedMessage projected = live(group, "/t/e" + i, i, "{\"n\":" + i + ",\"pad\":\"" + pad + "\"}", DeltaConfig.defaults());
            sent.add(projected);
        }
        long held = 0;
        int kept = 0;
        for (EncodedMessage m : sent) {
            // The group's reference is what is left once the caller's is released.
            m.release();
            if (m.frame().refCnt() > 0) {
                held += m.bytes();
                kept++;
            }
        }
        assertThat(held).as("frames the group keeps (%d bases)", kept).isLessThanOrEqualTo(Group.MAX_DELTA_BASE_BYTES);
        assertThat(group.deltaBaseBytes()).isLessThanOrEqualTo(Group.MAX_DELTA_BASE_BYTES);
        assertThat(kept).isPositive();
        // The most recent endpoint kept its base: its next message is a delta.
        EncodedMessage next = live(group, "/t/e399", 400, "{\"n\":1000,\"pad\":\"" + pad + "\"}", DeltaConfig.defaults());
        assertThat(next.deltaFrame()).isNotNull();
        next.release();
        group.clearDeltaBases();
        assertThat(group.deltaBaseBytes()).isZero();
    }

    @Test
    void aValueTooLargeToDiffIsNotKeptAndTheNextMessageIsWhole() throws Exception {
        Group group = deltaGroup();
        DeltaConfig limits = new DeltaConfig(1024, DeltaConfig.DEFAULT_MAX_DIFF_WORK);
        EncodedMessage small = live(group, "/t/e", 1, "{\"n\":1,\"pad\":\"x\"}", limits);
        small.release();
        EncodedMessage large = live(group, "/t/e", 2, "{\"n\":2,\"pad\":\"" + "p".repeat(4096) + "\"}", limits);
        large.release();
        assertThat(large.frame().refCnt()).as("the large value is not kept as a base").isZero();
        assertThat(small.frame().refCnt()).as("nor the one before it").isZero();
        // No delta against the older small value: the client holds the large one.
        EncodedMessage after = live(group, "/t/e", 3, "{\"n\":3,\"pad\":\"x\"}", limits);
        assertThat(after.deltaFrame()).isNull();
        after.release();
        group.clearDeltaBases();
    }
}
