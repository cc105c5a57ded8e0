package io.sluice.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule in docs/architecture.md that no two public classes share a simple name (so an import or a stack trace says
 * which one is meant), checked over every module's sources, main and test. It lives in the launcher's tests because
 * this is the module whose build comes after all the others; it reads the source tree, not the class path, so a
 * package-private helper class may repeat a name (it cannot be imported from elsewhere). The sample filter in
 * docs/examples is a plugin author's code, outside the rule.
 */
class PublicNamesTest {

    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:(?:final|abstract|sealed|non-sealed|static|strictfp)\\s+)*"
                    + "(?:class|interface|record|enum|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);

    @Test
    void noTwoPublicClassesShareASimpleName() {
        Map<String, List<Path>> shared = sharedNames(repositoryRoot());

        assertThat(shared).as("public classes sharing a simple name (rename one; docs/architecture.md)").isEmpty();
    }

    @Test
    void findsTwoPublicClassesOfOneNameInDifferentModules(@TempDir Path root) throws IOException {
        write(root.resolve("a/src/main/java/io/x/Filter.java"), "package io.x;\n\npublic final class Filter {\n}\n");
        write(root.resolve("b/src/test/java/io/y/Filter.java"), "package io.y;\n\npublic interface Filter {\n}\n");
        write(root.resolve("b/src/main/java/io/y/Other.java"), "package io.y;\n\n/** public class Filter */\n"
                + "final class Other {\n    public static class Filter {\n    }\n}\n");
        write(root.resolve("b/target/generated/src/main/java/io/z/Filter.java"), "public class Filter {}\n");

        Map<String, List<Path>> shared = sharedNames(root);

        assertThat(shared).containsOnlyKeys("Filter");
        assertThat(shared.get("Filter")).containsExactly(
                Path.of("a/src/main/java/io/x/Filter.java"), Path.of("b/src/test/java/io/y/Filter.java"));
    }

    /** Names declared public at the top level of more than one source file, each with the files, relative to root. */
    static Map<String, List<Path>> sharedNames(Path root) {
        Map<String, TreeSet<Path>> byName = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(file -> file.toString().endsWith(".java"))
                    .map(root::relativize)
                    .filter(PublicNamesTest::isModuleSource)
                    .forEach(file -> publicTypes(root.resolve(file)).forEach(
                            name -> byName.computeIfAbsent(name, any -> new TreeSet<>()).add(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, List<Path>> shared = new TreeMap<>();
        byName.forEach((name, files) -> {
            if (files.size() > 1) {
                shared.put(name, List.copyOf(files));
            }
        });
        return shared;
    }

    /** A file under some module's {@code src/<set>/java}, not build output, installed packages or the docs' examples. */
    private static boolean isModuleSource(Path relative) {
        String path = relative.toString().replace('\\', '/');
        return path.matches("(?:.*/)?src/[^/]+/java/.*")
                && !path.matches("(?:.*/)?(?:target|node_modules)/.*")
                && !path.startsWith("docs/")
                && !path.startsWith(".");
    }

    private static List<String> publicTypes(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Matcher matcher = PUBLIC_TYPE.matcher(text);
        List<String> names = new ArrayList<>();
        while (matcher.find()) {
            names.add(matcher.group(1));
        }
        return names;
    }

    /** The checkout's root: the first directory upwards from this module whose pom.xml is the Sluice parent. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            try {
                if (Files.isRegularFile(pom)
                        && Files.readString(pom, StandardCharsets.UTF_8).contains("<artifactId>sluice-parent</artifactId>")
                        && !Files.readString(pom, StandardCharsets.UTF_8).contains("<parent>")) {
                    return dir;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no Sluice parent pom.xml above " + Path.of("").toAbsolutePath());
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }
}
