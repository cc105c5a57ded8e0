package io.sluice.proxy.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.config.RequiredFieldException;

/** A named, inclusive range of broker node ids, e.g. {@code brokers: 0..2}. */
public record NodeIdRange(String name, int start, int end) {

    @JsonCreator
    static NodeIdRange fromYaml(@JsonProperty("name") String name,
                                @JsonProperty("start") Integer start,
                                @JsonProperty("end") Integer end) {
        if (start == null) {
            throw new RequiredFieldException("start");
        }
        if (end == null) {
            throw new RequiredFieldException("end");
        }
        return new NodeIdRange(name, start, end);
    }

    public boolean contains(int nodeId) {
        return nodeId >= start && nodeId <= end;
    }

    /** Number of node ids in the range; 0 for an inverted range (which validation rejects). */
    public long size() {
        return Math.max(0L, (long) end - start + 1);
    }

    /** Whether some node id is in both; an inverted range holds none, so it overlaps nothing. */
    public boolean overlaps(NodeIdRange other) {
        return size() > 0 && other.size() > 0 && start <= other.end && other.start <= end;
    }

    @Override
    public String toString() {
        return (name == null ? "" : name + ":") + "[" + start + ".." + end + "]";
    }
}
