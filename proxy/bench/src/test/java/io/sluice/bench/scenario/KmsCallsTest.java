package io.sluice.bench.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KmsCallsTest {

    @Test
    void sumsEveryOutcomeOfEachOperationAndIgnoresTheRest() {
        String exposition = """
                # HELP sluice_kms_calls_seconds Calls to the KMS, by operation and outcome
                # TYPE sluice_kms_calls_seconds summary
                sluice_kms_calls_seconds_count{operation="generate_data_key",outcome="success",provider="vault"} 5.0
                sluice_kms_calls_seconds_sum{operation="generate_data_key",outcome="success",provider="vault"} 0.12
                sluice_kms_calls_seconds_count{operation="generate_data_key",outcome="unavailable",provider="vault"} 2.0
                sluice_kms_calls_seconds_count{operation="unwrap",outcome="success",provider="vault"} 7.0
                sluice_kms_calls_seconds_count{operation="resolve_kek",outcome="success",provider="vault"} 3.0
                sluice_kms_calls_seconds_max{operation="unwrap",outcome="success",provider="vault"} 0.01
                sluice_kms_retries_total{operation="unwrap"} 4.0
                """;

        assertThat(KmsCalls.parse(exposition)).isEqualTo(new KmsCalls(7, 7));
        assertThat(KmsCalls.parse("jvm_gc_pause_seconds_count 3.0\n")).isEqualTo(KmsCalls.NONE);
    }

    @Test
    void sinceSubtractsAnEarlierScrape() {
        assertThat(new KmsCalls(9, 20).since(new KmsCalls(4, 5))).isEqualTo(new KmsCalls(5, 15));
    }
}
