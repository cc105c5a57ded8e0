package io.sluice.bench.sweep;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchingTest {

    @Test
    void pairsOfLingerAndBatchSizeAreParsedAndNamed() {
        assertThat(FixedRateLoad.Batching.parseList("0:16384, 50:1048576,1:131072"))
                .containsExactly(new FixedRateLoad.Batching(0, 16_384), new FixedRateLoad.Batching(50, 1 << 20), FixedRateLoad.Batching.OMB_DRIVER);
        assertThat(new FixedRateLoad.Batching(0, 16_384).label()).isEqualTo("linger0-16kb");
        assertThat(new FixedRateLoad.Batching(50, 1 << 20).label()).isEqualTo("linger50-1mb");
        assertThat(new FixedRateLoad.Batching(5, 1000).label()).isEqualTo("linger5-1000b");
    }

    @Test
    void aBadPairIsNamed() {
        for (String bad : new String[] { "5", "a:1", "1:0", "-1:16384", "1:2:3" }) {
            assertThatThrownBy(() -> FixedRateLoad.Batching.parseList("0:16384," + bad)).as(bad)
                    .hasMessageContaining("--batching takes LINGER_MS:BATCH_BYTES").hasMessageContaining("'" + bad + "'");
        }
    }
}
