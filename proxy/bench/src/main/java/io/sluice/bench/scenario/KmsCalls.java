package io.sluice.bench.scenario;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many calls a proxy's RecordEncryption made to its KMS, read from the proxy's own {@code /metrics}:
 * {@code sluice_kms_calls_seconds_count} by operation (docs/kms.md), every outcome and retry included. The seed
 * (Kroxylicious) reports "DEK generation calls" per run; this is the same count, plus the unwraps (decryptions) the
 * consumers' fetches cost.
 *
 * @param dataKeyGenerations {@code generate_data_key} calls: a new data key, one Vault {@code datakey} request each
 * @param unwraps            {@code unwrap} calls: a wrapped data key decrypted, one Vault {@code decrypt} request each
 */
public record KmsCalls(long dataKeyGenerations, long unwraps) {

    public static final KmsCalls NONE = new KmsCalls(0, 0);
    private static final Pattern SERIES = Pattern.compile("^sluice_kms_calls_seconds_count\\{([^}]*)\\}\\s+(\\S+)", Pattern.MULTILINE);
    private static final Pattern OPERATION = Pattern.compile("operation=\"([^\"]*)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** Sums the series of every provider and outcome by operation; a proxy without a KMS has none, which reads as zero. */
    public static KmsCalls parse(String exposition) {
        long generations = 0;
        long unwraps = 0;
        Matcher series = SERIES.matcher(exposition);
        while (series.find()) {
            Matcher operation = OPERATION.matcher(series.group(1));
            if (!operation.find()) {
                continue;
            }
            long count = (long) Double.parseDouble(series.group(2));
            switch (operation.group(1)) {
                case "generate_data_key" -> generations += count;
                case "unwrap" -> unwraps += count;
                default -> {
                    // resolve_kek: looking a KEK up is not a key operation; the seed does not count it either
                }
            }
        }
        return new KmsCalls(generations, unwraps);
    }

    /** Reads {@code http://127.0.0.1:PORT/metrics}; a proxy that does not answer is an error, not zero calls. */
    public static KmsCalls scrape(int managementPort) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/metrics"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("the proxy's /metrics answered " + response.statusCode());
        }
        return parse(response.body());
    }

    @Override
    public String toString() {
        return dataKeyGenerations + " data-key generations, " + unwraps + " unwraps";
    }

    /** The calls made since {@code earlier}, a scrape of the same proxy. */
    public KmsCalls since(KmsCalls earlier) {
        return new KmsCalls(dataKeyGenerations - earlier.dataKeyGenerations, unwraps - earlier.unwraps);
    }
}
