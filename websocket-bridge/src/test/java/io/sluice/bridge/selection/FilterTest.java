package io.sluice.bridge.selection;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;

import static org.assertj.core.api.Assertions.assertThat;

class FilterTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text.replace('\'', '"'));
        }
        catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static SubscriptionFilter filter(String text) {
        try {
            return SubscriptionFilter.parse(json(text), FilterLimits.defaults());
        }
        catch (FilterException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    private static final RecordView ORDER = RecordView.of(
            json("{'price': 101.5, 'qty': 10, 'side': 'buy', 'sym': 'ACME.L', 'tags': ['a', 'b'], 'n': null,"
                    + " 'quote': {'bid': 100, 'ask': 102}, 'a/b': 1, 'm~n': 2, 'flag': true}"),
            json("'order-7'"),
            headers("region", "eu", "trace", null));

    private static Map<String, String> headers(String... pairs) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    private static boolean matches(String filter) {
        return filter(filter).matches(ORDER);
    }

    @Test
    void equalityIsJsonEqualityWithNumbersByValue() {
        assertThat(matches("{'eq': ['/value/qty', 10]}")).isTrue();
        assertThat(matches("{'eq': ['/value/qty', 10.0]}")).isTrue();
        assertThat(matches("{'eq': ['/value/qty', 1E1]}")).isTrue();
        assertThat(matches("{'eq': ['/value/qty', '10']}")).isFalse();
        assertThat(matches("{'eq': ['/value/price', 101.50]}")).isTrue();
        assertThat(matches("{'eq': ['/value/quote', {'ask': 102.0, 'bid': 100}]}")).isTrue();
        assertThat(matches("{'eq': ['/value/quote', {'bid': 100}]}")).isFalse();
        assertThat(matches("{'eq': ['/value/tags', ['a', 'b']]}")).isTrue();
        assertThat(matches("{'eq': ['/value/tags', ['b', 'a']]}")).isFalse();
        assertThat(matches("{'eq': ['/value/n', null]}")).isTrue();
        assertThat(matches("{'eq': ['/value/flag', true]}")).isTrue();
        assertThat(matches("{'eq': ['/key', 'order-7']}")).isTrue();
        assertThat(matches("{'eq': ['/headers/region', 'eu']}")).isTrue();
        assertThat(matches("{'eq': ['/headers/trace', null]}")).isTrue();
        assertThat(matches("{'eq': ['/headers', {'region': 'eu', 'trace': null}]}")).isTrue();
    }

    @Test
    void numbersOfEveryJacksonKindCompareByValue() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        RecordView view = RecordView.of(f.objectNode().set("x", new DecimalNode(new java.math.BigDecimal("10.000"))),
                LongNode.valueOf(10), Map.of());
        assertThat(filter("{'eq': ['/value/x', 10]}").matches(view)).isTrue();
        assertThat(filter("{'lt': ['/value/x', 10.5]}").matches(view)).isTrue();
        assertThat(filter("{'in': ['/key', [1, 10.0]]}").matches(view)).isTrue();
        assertThat(filter("{'gt': ['/key', 9.99]}").matches(view)).isTrue();
        assertThat(filter("{'gt': ['/key', 99999999999999999999999]}").matches(view)).isFalse();
        assertThat(filter("{'gt': ['/key', -99999999999999999999999]}").matches(view)).isTrue();
    }

    @Test
    void orderingComparesNumbersAsNumbersStringsByCodePointAndNeverMixedTypes() {
        assertThat(matches("{'gt': ['/value/price', 100]}")).isTrue();
        assertThat(matches("{'ge': ['/value/qty', 10]}")).isTrue();
        assertThat(matches("{'lt': ['/value/qty', 10]}")).isFalse();
        assertThat(matches("{'le': ['/value/qty', 10.0]}")).isTrue();
        assertThat(matches("{'lt': ['/value/sym', 'B']}")).isTrue();
        assertThat(matches("{'gt': ['/value/qty', '1']}")).isFalse();
        assertThat(matches("{'lt': ['/value/qty', '99']}")).isFalse();
        assertThat(matches("{'lt': ['/value/flag', 2]}")).isFalse();
        assertThat(matches("{'lt': ['/value/quote', 'z']}")).isFalse();
        // U+FFFD is below U+1F600 by code point, above its UTF-16 high surrogate
        RecordView emoji = RecordView.of(json("{'s': '\\uD83D\\uDE00'}"), NullNode.getInstance(), Map.of());
        assertThat(filter("{'gt': ['/value/s', '\\uFFFD']}").matches(emoji)).isTrue();
    }

    @Test
    void aMissingFieldMatchesNoComparisonButItsNegationMatches() {
        for (String op : new String[] {"eq", "ne", "lt", "le", "gt", "ge"}) {
            assertThat(matches("{'" + op + "': ['/value/missing', 1]}")).as(op).isFalse();
            assertThat(matches("{'not': {'" + op + "': ['/value/missing', 1]}}")).as(op).isTrue();
        }
        assertThat(matches("{'in': ['/value/missing', [1]]}")).isFalse();
        assertThat(matches("{'prefix': ['/value/missing', '']}")).isFalse();
        assertThat(matches("{'eq': ['/headers/absent', null]}")).isFalse();
        assertThat(matches("{'eq': ['/value/quote/bid/deeper', 1]}")).isFalse();
        assertThat(matches("{'ne': ['/value/qty', '10']}")).isTrue();
        assertThat(matches("{'ne': ['/value/qty', 10]}")).isFalse();
    }

    @Test
    void inPrefixExistsAndJunctions() {
        assertThat(matches("{'in': ['/value/side', ['sell', 'buy']]}")).isTrue();
        assertThat(matches("{'in': ['/value/qty', [1, 10.0]]}")).isTrue();
        assertThat(matches("{'in': ['/value/qty', ['10']]}")).isFalse();
        assertThat(matches("{'in': ['/value/flag', [false, null]]}")).isFalse();
        assertThat(matches("{'in': ['/value/n', [false, null]]}")).isTrue();
        assertThat(matches("{'in': ['/value/tags', [['a', 'b']]]}")).isTrue();
        assertThat(matches("{'prefix': ['/value/sym', 'ACME.']}")).isTrue();
        assertThat(matches("{'prefix': ['/value/qty', '1']}")).isFalse();
        assertThat(matches("{'exists': '/value/n'}")).isTrue();
        assertThat(matches("{'exists': '/headers/trace'}")).isTrue();
        assertThat(matches("{'exists': '/headers/other'}")).isFalse();
        assertThat(matches("{'exists': '/value/tags/1'}")).isTrue();
        assertThat(matches("{'exists': '/value/tags/2'}")).isFalse();
        assertThat(matches("{'exists': '/value/tags/01'}")).isFalse();
        assertThat(matches("{'exists': '/value/tags/-'}")).isFalse();
        assertThat(matches("{'eq': ['/value/a~1b', 1]}")).isTrue();
        assertThat(matches("{'eq': ['/value/m~0n', 2]}")).isTrue();
        assertThat(matches("{'all': []}")).isTrue();
        assertThat(matches("{'any': []}")).isFalse();
        assertThat(matches("{'all': [{'eq': ['/value/side', 'buy']}, {'gt': ['/value/qty', 5]}]}")).isTrue();
        assertThat(matches("{'all': [{'eq': ['/value/side', 'buy']}, {'gt': ['/value/qty', 50]}]}")).isFalse();
        assertThat(matches("{'any': [{'eq': ['/value/side', 'sell']}, {'gt': ['/value/qty', 5]}]}")).isTrue();
        assertThat(matches("{'not': {'any': [{'eq': ['/value/side', 'sell']}]}}")).isTrue();
    }

    @Test
    void aFilterOnTheKeyOrHeadersNeverReadsTheValue() {
        RecordView view = new RecordView() {
            @Override
            public JsonNode value() {
                throw new AssertionError("value read");
            }

            @Override
            public JsonNode key() {
                return json("'k'");
            }

            @Override
            public JsonNode header(String name) {
                return name.equals("region") ? json("'eu'") : null;
            }

            @Override
            public JsonNode headers() {
                throw new AssertionError("all headers read");
            }
        };
        assertThat(filter("{'all': [{'eq': ['/key', 'k']}, {'eq': ['/headers/region', 'eu']}]}").matches(view)).isTrue();
    }

    @Test
    void canonicalFormGroupsEquivalentSpellings() throws FilterException {
        SubscriptionFilter a = filter("{ 'all' : [ {'eq': ['/value/qty', 1]}, {'eq': ['/value/o', {'x': 1.0, 'y': [2.50]}]} ] }");
        SubscriptionFilter b = filter("{'all':[{'eq':['/value/qty',1.0]},{'eq':['/value/o',{'y':[25E-1],'x':1}]}]}");
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.canonical()).isEqualTo("{\"all\":[{\"eq\":[\"/value/qty\",1]},{\"eq\":[\"/value/o\",{\"x\":1,\"y\":[2.5]}]}]}");
        assertThat(filter(a.canonical())).isEqualTo(a);
        // all/any operands keep their order: different canonical forms (deliberately not reordered)
        assertThat(filter("{'all': [{'exists': '/key'}, {'exists': '/value'}]}"))
                .isNotEqualTo(filter("{'all': [{'exists': '/value'}, {'exists': '/key'}]}"));
        JsonNode escaped = JsonNodeFactory.instance.objectNode().set("eq", JsonNodeFactory.instance.arrayNode()
                .add("/value/s").add("a\"\\\u0001"));
        assertThat(SubscriptionFilter.parse(escaped, FilterLimits.defaults()).canonical())
                .isEqualTo("{\"eq\":[\"/value/s\",\"a\\\"\\\\\\u0001\"]}");
    }

    @Test
    void andCombinesInOrderAndMatchAllIsItsIdentity() {
        SubscriptionFilter mandatory = filter("{'eq': ['/value/region', 'eu']}");
        SubscriptionFilter requested = filter("{'gt': ['/value/qty', 5]}");
        SubscriptionFilter both = mandatory.and(requested);
        assertThat(both.canonical()).isEqualTo("{\"all\":[" + mandatory.canonical() + "," + requested.canonical() + "]}");
        assertThat(SubscriptionFilter.matchAll().and(requested)).isSameAs(requested);
        assertThat(mandatory.and(SubscriptionFilter.matchAll())).isSameAs(mandatory);
        assertThat(filter("{'all': []}").isMatchAll()).isTrue();
        assertThat(SubscriptionFilter.matchAll().canonical()).isEqualTo("{\"all\":[]}");
        RecordView eu = RecordView.of(json("{'region': 'eu', 'qty': 6}"), NullNode.getInstance(), Map.of());
        RecordView us = RecordView.of(json("{'region': 'us', 'qty': 6}"), NullNode.getInstance(), Map.of());
        assertThat(both.matches(eu)).isTrue();
        assertThat(both.matches(us)).isFalse();
    }
}
