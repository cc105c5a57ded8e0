package io.sluice.bridge.selection;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

import static io.sluice.bridge.selection.FilterTest.json;
import static org.assertj.core.api.Assertions.assertThat;

class ProjectionTest {

    private static Projection fields(String text) {
        try {
            return Projection.parse(json(text), FilterLimits.defaults());
        }
        catch (FilterException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    private static final String QUOTE = "{'price': 101.5, 'qty': 10, 'quote': {'bid': 100, 'ask': 102, 'depth': [1, 2]},"
            + " 'items': [{'sku': 'a', 'price': 1}, {'sku': 'b', 'price': 2}, {'sku': 'c', 'price': 3}], 'n': null,"
            + " 'a/b': {'m~n': 5}}";

    @Test
    void keepsJustTheListedPathsWithTheirNesting() {
        assertThat(fields("['/price', '/quote/bid']").project(json(QUOTE)))
                .isEqualTo(json("{'price': 101.5, 'quote': {'bid': 100}}"));
        assertThat(fields("['/quote', '/quote/bid']").project(json(QUOTE)))
                .isEqualTo(json("{'quote': {'bid': 100, 'ask': 102, 'depth': [1, 2]}}"));
        assertThat(fields("['/n']").project(json(QUOTE))).isEqualTo(json("{'n': null}"));
        assertThat(fields("['/a~1b/m~0n']").project(json(QUOTE))).isEqualTo(json("{'a/b': {'m~n': 5}}"));
    }

    @Test
    void aMissingPathIsAbsentNotNull() {
        assertThat(fields("['/price', '/nope', '/quote/nope', '/price/deeper']").project(json(QUOTE)))
                .isEqualTo(json("{'price': 101.5}"));
        assertThat(fields("['/price']").project(TextNode.valueOf("x"))).isEqualTo(json("{}"));
        assertThat(fields("['/price']").project(NullNode.getInstance())).isEqualTo(json("{}"));
        assertThat(fields("['/price']").project(null)).isEqualTo(json("{}"));
    }

    @Test
    void arrayIndexesRebuildAsObjectsSoEveryPointerResolvesTheSameOnTheProjection() {
        String[] pointers = {"/items/2/price", "/items/0/sku", "/quote/depth/1", "/items/9", "/items/-"};
        Projection projection = fields("['" + String.join("', '", pointers) + "']");
        var value = json(QUOTE);
        var projected = projection.project(value);
        assertThat(projected).isEqualTo(json("{'items': {'0': {'sku': 'a'}, '2': {'price': 3}}, 'quote': {'depth': {'1': 2}}}"));
        for (String pointer : pointers) {
            assertThat(projected.at(pointer)).as(pointer).isEqualTo(value.at(pointer));
        }
        assertThat(fields("['/items']").project(value).get("items").isArray()).isTrue();
    }

    @Test
    void canonicalFormSortsAndDropsDuplicatesAndCoveredPaths() {
        Projection a = fields("['/quote/bid', '/price', '/quote/ask', '/price']");
        Projection b = fields("['/price', '/quote/ask', '/quote/bid']");
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a.canonical()).isEqualTo("[\"/price\",\"/quote/ask\",\"/quote/bid\"]");
        assertThat(fields("['/quote/bid', '/quote']").canonical()).isEqualTo("[\"/quote\"]");
        // segment order, not text order: /a/x and /a/y stay together before /ab
        assertThat(fields("['/ab', '/a/y', '/a/x']").canonical()).isEqualTo("[\"/a/x\",\"/a/y\",\"/ab\"]");
        assertThat(fields("['/a~1b']")).isNotEqualTo(fields("['/a/b']"));
    }
}
