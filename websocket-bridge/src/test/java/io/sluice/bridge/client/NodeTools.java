package io.sluice.bridge.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.testkit.Executables;
import org.junit.jupiter.api.Assumptions;

import static org.assertj.core.api.Assertions.fail;

/**
 * What the JavaScript client's tests need from the machine: Node.js, npm, Debian's Chromium, and the client's npm
 * dev dependencies (installed here with {@code npm ci} from the committed lock file, so {@code mvn verify} needs no
 * extra step). Missing tools fail the test under CI (the {@code CI} variable set) and skip it elsewhere, saying why.
 */
public final class NodeTools {

    /** The bridge's {@code client-js/}, from the bridge module's tests or another module's (the app's demo test). */
    static final Path CLIENT_JS = clientJs();
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("SLUICE_CHROMIUM", "/usr/bin/chromium"));

    private static boolean installed;

    private NodeTools() {
    }

    public static void requireNode() {
        require(Executables.onPath("node"), "Node.js ('node') is not on the PATH");
    }

    /** Node, npm and the client's dev dependencies in {@code node_modules}; the first call may run {@code npm ci}. */
    public static synchronized void requireNpmPackages() throws Exception {
        requireNode();
        require(Executables.onPath("npm"), "npm is not on the PATH");
        if (!installed && !devDependenciesInstalled()) {
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund").directory(CLIENT_JS.toFile())
                    .redirectErrorStream(true).start();
            String output = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                fail("npm ci in " + CLIENT_JS + " failed:\n" + output);
            }
        }
        installed = true;
    }

    /** Node, npm, Chromium and {@code node_modules}. */
    public static void requireBrowser() throws Exception {
        requireNpmPackages();
        require(Files.isExecutable(CHROMIUM), CHROMIUM + " is missing (apt-get install -y chromium; .ci/run does this as root)");
    }

    /** Whether every dev dependency of package.json is in node_modules (a checkout from before one was added is not). */
    private static boolean devDependenciesInstalled() throws IOException {
        JsonNode devDependencies = new ObjectMapper().readTree(CLIENT_JS.resolve("package.json").toFile()).path("devDependencies");
        for (var names = devDependencies.fieldNames(); names.hasNext(); ) {
            if (!Files.isRegularFile(CLIENT_JS.resolve("node_modules").resolve(names.next()).resolve("package.json"))) {
                return false;
            }
        }
        return true;
    }

    private static Path clientJs() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            for (Path candidate : List.of(dir.resolve("client-js"), dir.resolve("websocket-bridge/client-js"))) {
                if (Files.isRegularFile(candidate.resolve("package.json"))) {
                    return candidate;
                }
            }
        }
        return Path.of("client-js").toAbsolutePath();
    }

    private static void require(boolean present, String problem) {
        if (present) {
            return;
        }
        if (System.getenv("CI") != null) {
            fail("JavaScript client tests cannot run: " + problem);
        }
        System.out.println("Skipping the JavaScript client tests: " + problem);
        Assumptions.abort(problem);
    }

    /** Runs a command in client-js and returns its exit code and output. */
    static Result run(List<String> command) throws IOException, InterruptedException {
        return run(CLIENT_JS, command);
    }

    /** Runs a command in a folder and returns its exit code and output. */
    static Result run(Path directory, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return new Result(-1, output + "\n(timed out)");
        }
        return new Result(p.exitValue(), output);
    }

    record Result(int exitCode, String output) {
    }
}
