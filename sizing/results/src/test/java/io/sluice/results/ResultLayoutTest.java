package io.sluice.results;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ResultLayoutTest {

    @Test
    void filesOfARunSitSideBySideUnderTheTarget() {
        Path out = Path.of("runs");

        assertThat(ResultLayout.result(out, "passthrough", "1topic-1kb")).isEqualTo(Path.of("runs/passthrough/1topic-1kb.json"));
        assertThat(ResultLayout.run(out, "passthrough", "1topic-1kb")).isEqualTo(Path.of("runs/passthrough/1topic-1kb.run.json"));
        assertThat(ResultLayout.workload(out, "passthrough", "1topic-1kb")).isEqualTo(Path.of("runs/passthrough/1topic-1kb.workload.yaml"));
    }

    @Test
    void onlyTheOmbResultCountsAsAResult() {
        assertThat(ResultLayout.isResult(Path.of("x/w.json"))).isTrue();
        assertThat(ResultLayout.isResult(Path.of("x/w.run.json"))).isFalse();
        assertThat(ResultLayout.isResult(Path.of("x/w.workload.yaml"))).isFalse();
    }

    @Test
    void namesThatWouldEscapeTheDirectoryAreRefused() {
        assertThatThrownBy(() -> ResultLayout.result(Path.of("runs"), "../etc", "w")).hasMessageContaining("target name '../etc'");
    }
}
