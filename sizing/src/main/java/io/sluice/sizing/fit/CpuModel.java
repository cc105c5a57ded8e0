package io.sluice.sizing.fit;

import java.util.List;

/**
 * Which terms explain the proxy's CPU. Each is linear with an intercept (what the proxy costs with no traffic):
 * <ul>
 *   <li>{@link #PER_BYTE}: millicores = a + b × MB/s</li>
 *   <li>{@link #PER_RECORD}: millicores = a + c × thousand records/s</li>
 *   <li>{@link #PER_BYTE_AND_RECORD}: millicores = a + b × MB/s + c × thousand records/s</li>
 *   <li>{@link #PER_REQUEST_AND_BYTE}: millicores = a + r × thousand requests/s + b × MB/s</li>
 * </ul>
 * At a single message size bytes and records are proportional, so only the two-term models can be fitted; it takes
 * runs at two or more sizes to tell the cost of a byte from the cost of a record. Requests (Produce and Fetch, as the
 * proxy counted them) are not tied to bytes: the same bytes come in few large batches or many small ones, so runs
 * that vary batching at a fixed byte rate tell the cost of a request from the cost of a byte. The proxy forwards
 * records it does not filter without decoding them, so its work is per request far more than per record; this model
 * is the one to size with wherever the runs counted requests.
 */
public enum CpuModel {

    PER_BYTE(List.of("baseline", "per MB/s"), true, false, false),
    PER_RECORD(List.of("baseline", "per 1000 records/s"), false, true, false),
    PER_BYTE_AND_RECORD(List.of("baseline", "per MB/s", "per 1000 records/s"), true, true, false),
    PER_REQUEST_AND_BYTE(List.of("baseline", "per MB/s", "per 1000 requests/s"), true, false, true);

    private final List<String> names;
    private final boolean bytes;
    private final boolean records;
    private final boolean requests;

    CpuModel(List<String> names, boolean bytes, boolean records, boolean requests) {
        this.names = names;
        this.bytes = bytes;
        this.records = records;
        this.requests = requests;
    }

    public List<String> coefficientNames() {
        return names;
    }

    /** Whether predicting with this model needs the traffic's requests per second, not only its bytes. */
    public boolean usesRequests() {
        return requests;
    }

    /** The regressors of a measured point: its MB/s, thousands of records/s and thousands of requests/s. */
    public double[] row(double totalMBps, double kRecordsPerSecond, double kRequestsPerSecond) {
        double[] row = new double[names.size()];
        int i = 0;
        row[i++] = 1;
        if (bytes) {
            row[i++] = totalMBps;
        }
        if (records) {
            row[i++] = kRecordsPerSecond;
        }
        if (requests) {
            row[i] = kRequestsPerSecond;
        }
        return row;
    }

    /**
     * The regressors for traffic of {@code totalMBps} in messages of {@code messageBytes}, with {@code requestsPerMB}
     * requests per MB of it (the traffic's shape: its batching; ignored by the models without requests).
     */
    public double[] row(double totalMBps, int messageBytes, double requestsPerMB) {
        return row(totalMBps, totalMBps * 1e6 / messageBytes / 1000, totalMBps * requestsPerMB / 1000);
    }

    /**
     * The gradient of the row with respect to MB/s at a fixed shape (message size, requests per MB): the millicores one
     * more MB/s costs, as a linear combination of the coefficients.
     */
    double[] slopeRow(int messageBytes, double requestsPerMB) {
        double[] row = row(1, messageBytes, requestsPerMB);
        row[0] = 0;
        return row;
    }

    public String formula() {
        return switch (this) {
            case PER_BYTE -> "millicores = baseline + b x MB/s";
            case PER_RECORD -> "millicores = baseline + c x (1000 records/s)";
            case PER_BYTE_AND_RECORD -> "millicores = baseline + b x MB/s + c x (1000 records/s)";
            case PER_REQUEST_AND_BYTE -> "millicores = baseline + b x MB/s + r x (1000 requests/s)";
        };
    }
}
