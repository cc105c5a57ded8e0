package io.sluice.bridge.selection;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Evaluations per second of a typical three-clause filter on decoded JSON records, and projections per second of a
 * three-field list. Run by hand ({@code main}); not a test, asserts nothing about time.
 */
public final class FilterBenchmark {

    private FilterBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        SubscriptionFilter filter = SubscriptionFilter.parse(json.readTree("{\"all\": [{\"eq\": [\"/value/side\", \"buy\"]},"
                + " {\"gt\": [\"/value/price\", 100.5]}, {\"in\": [\"/headers/region\", [\"eu\", \"uk\", \"ch\"]]}]}"),
                FilterLimits.defaults());
        Projection fields = Projection.parse(json.readTree("[\"/price\", \"/quote/bid\", \"/quote/ask\"]"),
                FilterLimits.defaults());
        RecordView[] records = new RecordView[64];
        for (int i = 0; i < records.length; i++) {
            JsonNode value = json.readTree("{\"sym\": \"ACME\", \"side\": \"" + (i % 2 == 0 ? "buy" : "sell")
                    + "\", \"price\": " + (95 + i % 11 + 0.25) + ", \"qty\": " + i
                    + ", \"quote\": {\"bid\": " + i + ", \"ask\": " + (i + 1) + "}}");
            records[i] = RecordView.of(value, json.readTree("\"k-" + i + "\""),
                    Map.of("region", i % 3 == 0 ? "us" : "eu"));
        }
        long evaluations = 20_000_000;
        for (int round = 0; round < 5; round++) {
            long matched = 0;
            long start = System.nanoTime();
            for (long n = 0; n < evaluations; n++) {
                matched += filter.matches(records[(int) (n & 63)]) ? 1 : 0;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            int projected = 0;
            long projectStart = System.nanoTime();
            for (int n = 0; n < 2_000_000; n++) {
                projected += fields.project(records[n & 63].value()).size();
            }
            double projectSeconds = (System.nanoTime() - projectStart) / 1e9;
            System.out.printf("round %d: %.1f M evaluations/s (%d matched), %.1f M projections/s (%d fields)%n", round,
                    evaluations / seconds / 1e6, matched, 2_000_000 / projectSeconds / 1e6, projected);
        }
    }
}
