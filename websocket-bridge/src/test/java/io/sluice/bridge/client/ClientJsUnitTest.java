package io.sluice.bridge.client;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The client's own unit tests (JSON Patch, pointers) under Node's built-in test runner. */
class ClientJsUnitTest {

    @Test
    void nodeUnitTestsOfTheClientPass() throws Exception {
        NodeTools.requireNode();
        List<String> command = new ArrayList<>(List.of("node", "--test"));
        // Only the *.test.js files: test/browser holds the browser driver, which is not a unit test.
        try (var files = Files.list(NodeTools.CLIENT_JS.resolve("test"))) {
            files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".test.js")).sorted().forEach(n -> command.add("test/" + n));
        }
        assertThat(command).hasSizeGreaterThan(2);
        NodeTools.Result result = NodeTools.run(command);
        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output()).contains("# fail 0");
    }
}
