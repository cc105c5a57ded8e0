package io.sluice.sizing.fit;

import java.util.List;

/**
 * Which terms explain the proxy's CPU. Each is linear with an intercept (what the proxy costs with no traffic):
 * <ul>
 *   <li>{@link #PER_BYTE}: millicores = a + b × MB/s</li>
 *   <li>{@link #PER_RECORD}: millicores = a + c × thousand records/s</li>
 *   <li>{@link #PER_BYTE_AND_RECORD}: millicores = a + b × MB/s + c × thousand records/s</li>
 * </ul>
 * At a single message size bytes and records are proportional, so only the two-term models can be fitted; it takes
 * runs at two or more sizes to tell the cost of a byte from the cost of a record.
 */
public enum CpuModel {

    PER_BYTE(List.of("baseline", "per MB/s"), true, false),
    PER_RECORD(List.of("baseline", "per 1000 records/s"), false, true),
    PER_BYTE_AND_RECORD(List.of("baseline", "per MB/s", "per 1000 records/s"), true, true);

    private final List<String> names;
    private final boolean bytes;
    private final boolean records;

    CpuModel(List<String> names, boolean bytes, boolean records) {
        this.names = names;
        this.bytes = bytes;
        this.records = records;
    }

    public List<String> coefficientNames() {
        return names;
    }

    /** The regressors for traffic of {@code totalMBps} in messages of {@code messageBytes}. */
    public double[] row(double totalMBps, int messageBytes) {
        double kRecords = totalMBps * 1e6 / messageBytes / 1000;
        if (bytes && records) {
            return new double[] { 1, totalMBps, kRecords };
        }
        return new double[] { 1, bytes ? totalMBps : kRecords };
    }

    /** The gradient of the row with respect to MB/s: the millicores one more MB/s costs, as a linear combination. */
    double[] slopeRow(int messageBytes) {
        double kRecordsPerMB = 1e6 / messageBytes / 1000;
        if (bytes && records) {
            return new double[] { 0, 1, kRecordsPerMB };
        }
        return new double[] { 0, bytes ? 1 : kRecordsPerMB };
    }

    public String formula() {
        return switch (this) {
            case PER_BYTE -> "millicores = baseline + b x MB/s";
            case PER_RECORD -> "millicores = baseline + c x (1000 records/s)";
            case PER_BYTE_AND_RECORD -> "millicores = baseline + b x MB/s + c x (1000 records/s)";
        };
    }
}
