package io.sluice.bridge.selection;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;

import static io.sluice.bridge.selection.FilterTest.json;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Filters and field lists a hostile client (or a broken token issuer) could send: each refused with its code and spot. */
class FilterHostileInputTest {

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final FilterLimits LIMITS = FilterLimits.defaults();

    private static void refused(JsonNode filter, String code, String message) {
        assertThatThrownBy(() -> SubscriptionFilter.parse(filter, LIMITS))
                .isInstanceOf(FilterException.class)
                .hasMessage(message)
                .extracting(e -> ((FilterException) e).code()).isEqualTo(code);
    }

    private static void invalid(String filter, String message) {
        refused(json(filter), FilterException.INVALID_FILTER, message);
    }

    private static void tooLarge(JsonNode filter, String message) {
        refused(filter, FilterException.FILTER_TOO_LARGE, message);
    }

    @Test
    void theLanguageIsCheckedAndErrorsNameTheSpot() {
        invalid("[1]", "filter: a filter is a JSON object with one operator, such as {\"eq\": [\"/value/x\", 1]}");
        invalid("'eq'", "filter: a filter is a JSON object with one operator, such as {\"eq\": [\"/value/x\", 1]}");
        invalid("{}", "filter: an operator object has exactly one member, such as {\"eq\": [\"/value/x\", 1]}");
        invalid("{'eq': ['/key', 1], 'ne': ['/key', 2]}",
                "filter: an operator object has exactly one member, such as {\"eq\": [\"/value/x\", 1]}");
        invalid("{'like': ['/key', 1]}",
                "filter: unknown operator 'like' (eq, ne, lt, le, gt, ge, in, prefix, exists, all, any, not)");
        invalid("{'eq': ['/key']}", "filter.eq: expected [POINTER, LITERAL]");
        invalid("{'eq': ['/key', 1, 2]}", "filter.eq: expected [POINTER, LITERAL]");
        invalid("{'eq': {'/key': 1}}", "filter.eq: expected [POINTER, LITERAL]");
        invalid("{'all': [{'exists': '/key'}, {'exists': '/key'}, {'eq': [7, 1]}]}",
                "filter.all[2].eq[0]: not a JSON Pointer (a string such as \"/value/price\")");
        invalid("{'all': [{'exists': '/key'}, {'exists': '/key'}, {'eq': ['value', 1]}]}",
                "filter.all[2].eq[0]: not a JSON Pointer: it must be empty or start with '/': 'value'");
        invalid("{'eq': ['/value/a~2', 1]}", "filter.eq[0]: not a JSON Pointer: '~' must be followed by 0 or 1: '/value/a~2'");
        invalid("{'eq': ['/value/a~', 1]}", "filter.eq[0]: not a JSON Pointer: '~' must be followed by 0 or 1: '/value/a~'");
        invalid("{'exists': '/timestamp'}",
                "filter.exists: a filter's JSON Pointer starts with /value, /key or /headers: '/timestamp'");
        invalid("{'exists': ''}", "filter.exists: a filter's JSON Pointer starts with /value, /key or /headers: ''");
        invalid("{'lt': ['/value/x', true]}", "filter.lt[1]: lt compares with a number or a string");
        invalid("{'ge': ['/value/x', [1]]}", "filter.ge[1]: ge compares with a number or a string");
        invalid("{'in': ['/value/x', 1]}", "filter.in[1]: expected a list of literals");
        invalid("{'prefix': ['/value/x', 1]}", "filter.prefix[1]: prefix takes a string");
        invalid("{'all': {'exists': '/key'}}", "filter.all: expected a list of filters");
        invalid("{'not': [{'exists': '/key'}]}", "filter.not: expected an operator object, such as {\"eq\": [\"/value/x\", 1]}");
        invalid("{'any': [1]}", "filter.any[0]: expected an operator object, such as {\"eq\": [\"/value/x\", 1]}");
        String longOp = "x".repeat(1_000);
        invalid("{'" + longOp + "': 1}", "filter: unknown operator '" + "x".repeat(32)
                + "...' (eq, ne, lt, le, gt, ge, in, prefix, exists, all, any, not)");
    }

    @Test
    void nonJsonAndNonFiniteLiteralsAreRefused() {
        ObjectNode pojo = F.objectNode();
        pojo.putArray("eq").add("/value/x").add(new POJONode(new Object()));
        refused(pojo, FilterException.INVALID_FILTER, "filter.eq[1]: not a JSON literal");
        ObjectNode nan = F.objectNode();
        nan.putArray("gt").add("/value/x").add(DoubleNode.valueOf(Double.NaN));
        refused(nan, FilterException.INVALID_FILTER, "filter.gt[1]: not a finite number");
        refused(json("{'eq': ['/value/x', 1e999]}"), FilterException.INVALID_FILTER, "filter.eq[1]: not a finite number");
    }

    @Test
    void everyLimitIsEnforcedWithItsCode() {
        FilterLimits small = new FilterLimits(3, 2, 2, 4, 12, 3, 2, 200);
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'all': [{'exists': '/key'}, {'exists': '/key'}, {'exists': '/key'}]}"), small))
                .hasMessage("filter.all: more than 3 operators");
        FilterLimits threeNodes = new FilterLimits(3, 8, 2, 4, 12, 3, 2, 200);
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'all': [{'not': {'exists': '/key'}}, {'exists': '/key'}]}"), threeNodes))
                .hasMessage("filter.all[1]: more than 3 operators");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'not': {'not': {'exists': '/key'}}}"), small))
                .hasMessage("filter.not.not: operators nested deeper than 2");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'in': ['/key', [1, 2, 3]]}"), small))
                .hasMessage("filter.in[1]: more than 2 literals");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'eq': ['/key', 'abcde']}"), small))
                .hasMessage("filter.eq[1]: string longer than 4 characters");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'eq': ['/key', {'abcde': 1}]}"), small))
                .hasMessage("filter.eq[1]: string longer than 4 characters");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'prefix': ['/key', 'abcde']}"), small))
                .hasMessage("filter.prefix[1]: string longer than 4 characters");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'eq': ['/key', [[[1]]]]}"), small))
                .hasMessage("filter.eq[1]: literal nested deeper than 2");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'exists': '/value/abcdefgh'}"), small))
                .hasMessage("filter.exists: JSON Pointer longer than 12 characters");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'exists': '/value/a/b/c'}"), small))
                .hasMessage("filter.exists: JSON Pointer with more than 3 segments");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'in': ['/key', ['" + "x".repeat(300) + "']]}"), small))
                .hasMessage("filter: larger than 200 characters as compact JSON");
        assertThatThrownBy(() -> Projection.parse(json("['/a', '/b', '/c']"), small))
                .hasMessage("fields: more than 2 fields");
        assertThatThrownBy(() -> Projection.parse(json("['/a/b/c/d']"), small))
                .hasMessage("fields[0]: JSON Pointer with more than 3 segments");
        assertThatThrownBy(() -> SubscriptionFilter.parse(json("{'in': ['/key', [1, 2, 3]]}"), small))
                .extracting(e -> ((FilterException) e).code()).isEqualTo(FilterException.FILTER_TOO_LARGE);
    }

    @Test
    void theDefaultsAcceptWhatTheyPromise() throws FilterException {
        ArrayNode list = F.arrayNode();
        for (int i = 0; i < FilterLimits.DEFAULT_MAX_IN_LIST; i++) {
            list.add(i);
        }
        ObjectNode in = F.objectNode();
        in.putArray("in").add("/value/x").add(list);
        SubscriptionFilter.parse(in, LIMITS);
        list.add(256);
        tooLarge(in, "filter.in[1]: more than 256 literals");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void aTenMegabyteInListIsRefusedByItsSizeWithoutBeingRead() {
        ArrayNode list = F.arrayNode();
        for (int i = 0; i < 2_000_000; i++) {
            list.add("abcde");
        }
        ObjectNode in = F.objectNode();
        in.putArray("in").add("/value/x").add(list);
        tooLarge(in, "filter: larger than 4096 characters as compact JSON");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void operatorNesting100kDeepFailsWithTheFilterErrorNotAStackOverflow() {
        JsonNode node = json("{'exists': '/key'}");
        for (int i = 0; i < 100_000; i++) {
            ObjectNode not = F.objectNode();
            not.set("not", node);
            node = not;
        }
        tooLarge(node, "filter: larger than 4096 characters as compact JSON");
        FilterLimits noSizeLimit = new FilterLimits(64, 8, 256, 1024, 256, 16, 64, Integer.MAX_VALUE);
        JsonNode bomb = node;
        assertThatThrownBy(() -> SubscriptionFilter.parse(bomb, noSizeLimit))
                .hasMessage("filter.not.not.not.not.not.not.not.not: operators nested deeper than 8");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void aLiteral100kDeepFailsWithTheFilterErrorNotAStackOverflow() {
        JsonNode literal = F.numberNode(1);
        for (int i = 0; i < 100_000; i++) {
            literal = F.arrayNode().add(literal);
        }
        ObjectNode eq = F.objectNode();
        eq.putArray("eq").add("/value/x").add(literal);
        tooLarge(eq, "filter: larger than 4096 characters as compact JSON");
        FilterLimits noSizeLimit = new FilterLimits(64, 8, 256, 1024, 256, 16, 64, Integer.MAX_VALUE);
        assertThatThrownBy(() -> SubscriptionFilter.parse(eq, noSizeLimit)).hasMessage("filter.eq[1]: literal nested deeper than 8");
    }

    @Test
    void aDepthBombInTheRequestTextIsStoppedByTheParserBeforeAFilterExists() {
        // The protocol reads frames with a nesting limit (ClientRequests: 64); Jackson's own default is 1000.
        String bomb = "{\"not\":".repeat(100_000) + "{\"exists\":\"/key\"}" + "}".repeat(100_000);
        assertThatThrownBy(() -> new com.fasterxml.jackson.databind.ObjectMapper().readTree(bomb))
                .isInstanceOf(com.fasterxml.jackson.core.exc.StreamConstraintsException.class);
    }

    @Test
    void badFieldListsAreRefused() {
        assertThatThrownBy(() -> Projection.parse(json("{'a': 1}"), LIMITS))
                .hasMessage("fields: expected a list of JSON Pointers, such as [\"/price\", \"/quote/bid\"]");
        assertThatThrownBy(() -> Projection.parse(json("[]"), LIMITS))
                .hasMessage("fields: empty: leave fields out to receive the whole value");
        assertThatThrownBy(() -> Projection.parse(json("['/a', 3]"), LIMITS))
                .hasMessage("fields[1]: not a JSON Pointer (a string such as \"/value/price\")");
        assertThatThrownBy(() -> Projection.parse(json("['/a', '']"), LIMITS))
                .hasMessage("fields[1]: \"\" is the whole value: leave fields out instead");
        assertThatThrownBy(() -> Projection.parse(json("['price']"), LIMITS))
                .hasMessage("fields[0]: not a JSON Pointer: it must be empty or start with '/': 'price'");
        ArrayNode many = F.arrayNode();
        for (int i = 0; i < 1_000_000; i++) {
            many.add("/a");
        }
        assertThatThrownBy(() -> Projection.parse(many, LIMITS))
                .hasMessage("fields: more than 64 fields")
                .extracting(e -> ((FilterException) e).code()).isEqualTo(FilterException.FILTER_TOO_LARGE);
    }
}
