package io.sluice.format;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The one JSON reader's number bounds: exact decimals as written, and no exponent that turns eleven characters of
 * text into a billion-digit integer further on (a schema's multipleOf, an Avro or Protobuf integer field).
 */
class ExactJsonTest {

    private final ExactJson json = ExactJson.withDepth(64);

    @Test
    void numbersAreExactAsWrittenUpToTheExponentBound() throws Exception {
        assertThat(json.read("{\"a\":1000.0000000000000001}").get("a").decimalValue())
                .isEqualTo(new BigDecimal("1000.0000000000000001"));
        assertThat(json.read("[1e400,-1E-400,2.50]").toString()).isEqualTo("[1E+400,-1E-400,2.50]");
        assertThat(json.read("[1e" + ExactJson.MAX_EXPONENT + "]").get(0).decimalValue().scale()).isEqualTo(-ExactJson.MAX_EXPONENT);
    }

    @Test
    void aNumberWithAnExponentBeyondTheBoundIsNotJsonTheCodecsRead() {
        for (String hostile : new String[] {"{\"n\":1e999999999}", "[1e-999999999]", "[1e" + (ExactJson.MAX_EXPONENT + 1) + "]",
                "{\"deep\":{\"n\":-9.9e2147483647}}"}) {
            assertThatThrownBy(() -> json.read(hostile)).as(hostile).isInstanceOf(StreamConstraintsException.class)
                    .hasMessageContaining("exponent");
            assertThatThrownBy(() -> json.read(hostile.getBytes(StandardCharsets.UTF_8))).as(hostile)
                    .isInstanceOf(StreamConstraintsException.class);
        }
    }

    @Test
    void aRecordWithSuchANumberDoesNotDecode() {
        assertThatThrownBy(() -> new Json(64).read("{\"n\":1e999999999}")).isInstanceOf(DecodeException.class)
                .hasMessageContaining("number larger");
    }
}
