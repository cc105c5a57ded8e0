package io.sluice.bridge.config;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Bounds on computing a JSON Patch delta, which the node's one Kafka reader does for every record that a delta
 * subscriber receives: a diff is only attempted when its worst case is known to be cheap, otherwise the record is sent
 * whole (always allowed by the protocol). The diff's cost grows with the product of array lengths (its longest common
 * subsequence search), so a size limit alone does not bound it.
 *
 * @param maxValueBytes both values (the previous one and the new one) at most this many bytes; 0 turns deltas off
 * @param maxDiffWork   the most work a diff may cost in the worst case, in node comparisons (a few nanoseconds each),
 *                      estimated from the two parsed values before diffing as (nodes of both) x ((deepest nesting + 1)
 *                      x (2 x longest array + 1) + 500); 0 turns deltas off
 */
public record DeltaConfig(int maxValueBytes, long maxDiffWork) {

    public static final int DEFAULT_MAX_VALUE_BYTES = 64 * 1024;
    public static final long DEFAULT_MAX_DIFF_WORK = 1_000_000;

    public static DeltaConfig defaults() {
        return new DeltaConfig(DEFAULT_MAX_VALUE_BYTES, DEFAULT_MAX_DIFF_WORK);
    }

    @JsonCreator
    static DeltaConfig fromYaml(@JsonProperty("maxValueBytes") Integer maxValueBytes,
                                @JsonProperty("maxDiffWork") Long maxDiffWork) {
        return new DeltaConfig(maxValueBytes == null ? DEFAULT_MAX_VALUE_BYTES : maxValueBytes,
                maxDiffWork == null ? DEFAULT_MAX_DIFF_WORK : maxDiffWork);
    }

    /** Problems, each naming its field under {@code delta.}. */
    void validate(List<String> problems) {
        if (maxValueBytes < 0) {
            problems.add("delta.maxValueBytes: must be 0 (no deltas) or more");
        }
        if (maxDiffWork < 0) {
            problems.add("delta.maxDiffWork: must be 0 (no deltas) or more");
        }
    }
}
