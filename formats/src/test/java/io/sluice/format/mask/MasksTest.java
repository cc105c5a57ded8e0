package io.sluice.format.mask;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MasksTest {

    static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final ObjectMapper JSON = new ObjectMapper();

    static MaskViewer viewer(String principal, String... grants) {
        return new MaskViewer() {
            @Override
            public String principal() {
                return principal;
            }

            @Override
            public boolean unmasked(String topic, String path) {
                for (String g : grants) {
                    if (path.equals(g) || path.startsWith(g + "/")) {
                        return true;
                    }
                }
                return false;
            }
        };
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    private static Masks orders(MaskFailure onFailure) {
        return Masks.build(List.of(new MaskRule("orders(\\..*)?", List.of(
                new FieldMaskConfig("/card/number", MaskKind.KEEP_LAST, null, 4),
                new FieldMaskConfig("/card/holder", MaskKind.KEEP_FIRST, null, 1),
                new FieldMaskConfig("/email", MaskKind.HASH, null, null),
                new FieldMaskConfig("/cvv", MaskKind.REMOVE, null, null),
                new FieldMaskConfig("/note", MaskKind.NULL, null, null),
                new FieldMaskConfig("/lines/0/sku", MaskKind.FIXED, TextNode.valueOf("hidden"), null)),
                List.of("payments-.*"), onFailure)), KEY);
    }

    @Test
    void eachKindReplacesItsFieldAndLeavesTheRestAndTheOriginalAlone() throws Exception {
        JsonNode order = json("""
                {"id": 7, "card": {"number": "4111111111111111", "holder": "Ada Lovelace"}, "email": "ada@example.com",
                 "cvv": "123", "note": "call first", "lines": [{"sku": "X-1", "qty": 2}, {"sku": "Y-2", "qty": 1}]}""");
        ValueMask mask = orders(MaskFailure.REFUSE).forViewer("orders.eu", MaskViewer.NOBODY);

        JsonNode masked = mask.apply(order);

        assertThat(masked.at("/card/number").textValue()).isEqualTo("************1111");
        assertThat(masked.at("/card/holder").textValue()).isEqualTo("A***********");
        assertThat(masked.at("/email").textValue()).hasSize(43).doesNotContain("ada").matches("[A-Za-z0-9_-]{43}");
        assertThat(masked.has("cvv")).isFalse();
        assertThat(masked.get("note").isNull()).isTrue();
        assertThat(masked.at("/lines/0/sku").textValue()).isEqualTo("hidden");
        assertThat(masked.at("/lines/1/sku").textValue()).as("another element").isEqualTo("Y-2");
        assertThat(masked.get("id").intValue()).isEqualTo(7);
        assertThat(order.at("/card/number").textValue()).as("the decoded value is not changed").isEqualTo("4111111111111111");
    }

    @Test
    void hashesAreKeyedAndJoinable() throws Exception {
        ValueMask mask = orders(MaskFailure.REFUSE).forViewer("orders", MaskViewer.NOBODY);
        String a = mask.apply(json("{\"email\": \"ada@example.com\"}")).get("email").textValue();
        String again = mask.apply(json("{\"email\": \"ada@example.com\", \"id\": 2}")).get("email").textValue();
        String other = mask.apply(json("{\"email\": \"bob@example.com\"}")).get("email").textValue();
        byte[] otherKey = KEY.clone();
        otherKey[0] ^= 1;
        String otherSecret = Masks.build(List.of(new MaskRule("orders", List.of(new FieldMaskConfig("/email", MaskKind.HASH, null, null)),
                null, null)), otherKey).forViewer("orders", MaskViewer.NOBODY).apply(json("{\"email\": \"ada@example.com\"}")).get("email").textValue();

        assertThat(again).as("equal values, equal hashes").isEqualTo(a);
        assertThat(other).isNotEqualTo(a);
        assertThat(otherSecret).as("another secret, another hash").isNotEqualTo(a);
    }

    @Test
    void absentFieldsStayAbsentAndShortValuesAreMaskedWhole() throws Exception {
        ValueMask mask = orders(MaskFailure.REFUSE).forViewer("orders", MaskViewer.NOBODY);
        JsonNode masked = mask.apply(json("{\"card\": {\"number\": \"411\"}, \"lines\": []}"));

        assertThat(masked.toString()).isEqualTo("{\"card\":{\"number\":\"***\"},\"lines\":[]}");
        assertThat(mask.apply(json("{\"card\": {\"number\": null, \"holder\": null}, \"email\": null}")).toString())
                .as("an optional field left empty").isEqualTo("{\"card\":{\"number\":null,\"holder\":null},\"email\":null}");
        assertThat(FieldMask.keep("😀😀ab", 2, false)).as("code points, not chars").isEqualTo("**ab");
        assertThat(FieldMask.keep("😀😀ab", 1, true)).isEqualTo("😀***");
    }

    @Test
    void whoSeesWhat() throws Exception {
        Masks masks = orders(MaskFailure.REFUSE);

        assertThat(masks.forViewer("orders", viewer("payments-eu"))).as("a principal pattern of the rule").isNull();
        assertThat(masks.forViewer("orders", viewer("support"))).isNotNull();
        ValueMask partly = masks.forViewer("orders", viewer("support", "/card"));
        assertThat(partly.paths()).as("a grant of /card shows what is under it").doesNotContain("/card/number", "/card/holder")
                .contains("/email", "/cvv");
        assertThat(masks.forViewer("orders", viewer("support", "/card", "/email", "/cvv", "/note", "/lines"))).as("every field granted").isNull();
        assertThat(masks.forViewer("invoices", viewer("support"))).as("a topic no rule names").isNull();
        assertThat(masks.names("orders.eu")).isTrue();
        assertThat(masks.names("ordersX")).isFalse();
        assertThat(partly).isEqualTo(masks.forViewer("orders.us", viewer("other", "/card")))
                .as("the same masks of the same rule are one view").hasSameHashCodeAs(masks.forViewer("orders.us", viewer("x", "/card")));
        assertThat(partly).isNotEqualTo(masks.forViewer("orders", MaskViewer.NOBODY));
    }

    @Test
    void aValueTheMaskCannotTakeIsTheRecordsFailureNamingTheFieldNeverItsValue() throws Exception {
        ValueMask mask = orders(MaskFailure.DROP).forViewer("orders", MaskViewer.NOBODY);

        assertThatThrownBy(() -> mask.apply(json("{\"card\": {\"number\": 4111111111111111}}")))
                .isInstanceOf(UnmaskableException.class).hasMessage("/card/number: keepLast needs a string, the value is a number");
        assertThatThrownBy(() -> mask.apply(TextNode.valueOf("card 4111111111111111")))
                .isInstanceOf(UnmaskableException.class).hasMessageContaining("not a JSON object or array").hasMessageNotContaining("4111");
        assertThatThrownBy(() -> mask.apply(IntNode.valueOf(3))).isInstanceOf(UnmaskableException.class);
        assertThatThrownBy(() -> mask.apply(null)).isInstanceOf(UnmaskableException.class);
        ValueMask removeElement = Masks.build(List.of(new MaskRule("t", List.of(new FieldMaskConfig("/a/0", MaskKind.REMOVE, null, null)), null, null)),
                KEY).forViewer("t", MaskViewer.NOBODY);
        assertThatThrownBy(() -> removeElement.apply(json("{\"a\": [1, 2]}"))).hasMessageContaining("/a/0: remove cannot take an array element");
        assertThat(removeElement.apply(json("{\"a\": {\"0\": 1, \"1\": 2}}")).toString()).as("a member named 0").isEqualTo("{\"a\":{\"1\":2}}");
        assertThat(mask.onFailure()).isEqualTo(MaskFailure.DROP);
    }

    @Test
    void configProblemsNameTheirField(@TempDir Path dir) throws Exception {
        List<String> problems = new ArrayList<>();
        new MaskingConfig(null, List.of(
                new MaskRule("orders(", List.of(
                        new FieldMaskConfig("", MaskKind.NULL, null, null),
                        new FieldMaskConfig("card", MaskKind.NULL, null, null),
                        new FieldMaskConfig("/a~2", MaskKind.NULL, null, null),
                        new FieldMaskConfig("/b", null, null, null),
                        new FieldMaskConfig("/c", MaskKind.FIXED, null, null),
                        new FieldMaskConfig("/d", MaskKind.KEEP_LAST, null, null),
                        new FieldMaskConfig("/e", MaskKind.HASH, null, 3),
                        new FieldMaskConfig("/f", MaskKind.NULL, TextNode.valueOf("x"), null),
                        new FieldMaskConfig("/f", MaskKind.NULL, null, null)), List.of("[x"), null),
                new MaskRule(null, List.of(), null, null))).validate("masking", problems);

        assertThat(problems).containsExactly(
                "masking.rules[0].topics: not a regular expression: Unclosed group",
                "masking.rules[0].fields[0].path: required: a JSON Pointer such as /card/number (the whole value cannot be masked)",
                "masking.rules[0].fields[1].path: not a JSON Pointer: it must start with '/'",
                "masking.rules[0].fields[2].path: not a JSON Pointer: '~' must be followed by 0 or 1",
                "masking.rules[0].fields[3].mask: required (null, fixed, hash, keepFirst, keepLast or remove)",
                "masking.rules[0].fields[4].value: required by mask fixed",
                "masking.rules[0].fields[5].chars: mask keepLast needs chars, 0..1000",
                "masking.rules[0].fields[6].chars: only masks keepFirst and keepLast take chars",
                "masking.rules[0].fields[7].value: only mask fixed takes a value",
                "masking.rules[0].fields[8].path: /f is masked twice in this rule",
                "masking.rules[0].unmaskPrincipals[0]: not a regular expression: Unclosed character class",
                "masking.rules[1].topics: required (a topic name or a regular expression)",
                "masking.rules[1].fields: at least one field is required",
                "masking.hashKeyFile: required: a rule masks with hash, whose HMAC needs a secret");

        Path shortKey = Files.writeString(dir.resolve("short.key"), "too short\n");
        MaskingConfig hashing = new MaskingConfig(shortKey.toString(), List.of(new MaskRule("t",
                List.of(new FieldMaskConfig("/e", MaskKind.HASH, null, null)), null, null)));
        assertThatThrownBy(() -> Masks.build(hashing, "masking"))
                .hasMessage("masking.hashKeyFile: " + shortKey + " holds 9 bytes; a hash key needs at least 32")
                .hasMessageNotContaining("too short");
        Path key = Files.write(dir.resolve("good.key"), (new String(KEY, StandardCharsets.US_ASCII) + "\n").getBytes(StandardCharsets.US_ASCII));
        String fromFile = Masks.build(new MaskingConfig(key.toString(), hashing.rules()), "masking").forViewer("t", MaskViewer.NOBODY)
                .apply(json("{\"e\": \"x\"}")).get("e").textValue();
        String direct = Masks.build(hashing.rules(), KEY).forViewer("t", MaskViewer.NOBODY).apply(json("{\"e\": \"x\"}")).get("e").textValue();
        assertThat(fromFile).as("the file's trailing newline is not part of the secret").isEqualTo(direct);
        assertThat(Masks.build(new MaskingConfig(null, null), "masking").any()).isFalse();
    }
}
