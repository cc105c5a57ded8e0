package io.sluice.bridge.web;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StaticContentTest {

    private final StaticContent content = StaticContent.fromClasspath(StaticContent.CLIENT_JS, "browser-test");

    @Test
    void servesTheClientAndPagesFromTheClassPathRootsInOrderWithTheirTypes() {
        assertThat(content.find("/sluice-bridge.js")).hasValueSatisfying(f -> {
            assertThat(f.contentType()).isEqualTo("text/javascript; charset=utf-8");
            assertThat(new String(f.bytes(), java.nio.charset.StandardCharsets.UTF_8)).contains("export class SluiceBridge");
        });
        assertThat(content.find("/test.html")).hasValueSatisfying(f -> assertThat(f.contentType()).startsWith("text/html"));
    }

    @Test
    void theClientsModulesAreExactlyItsJavaScriptFilesAndAllAreServed() throws java.io.IOException {
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("client-js"))) {
            assertThat(files.map(f -> "/" + f.getFileName()).filter(n -> n.endsWith(".js")))
                    .as("client-js/*.js, which the build puts in the jar").containsExactlyInAnyOrderElementsOf(StaticContent.CLIENT_MODULES);
        }
        for (String module : StaticContent.CLIENT_MODULES) {
            assertThat(content.find(module)).as(module).isPresent();
        }
    }

    @Test
    void nothingOutsideTheRootsOrWithoutAWebExtensionIsServed() {
        assertThat(content.find("/../web/StaticContent.class")).isEmpty();
        assertThat(content.find("/%2e%2e/x.js")).isEmpty();
        assertThat(content.find("//etc/passwd.js")).isEmpty();
        assertThat(content.find("/logback-test.xml")).isEmpty();
        assertThat(content.find("/nothing-here.js")).isEmpty();
        assertThat(content.find("/")).isEmpty();
        assertThat(StaticContent.none().find("/sluice-bridge.js")).isEmpty();
    }
}
