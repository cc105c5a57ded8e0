package io.sluice.omb.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * An OpenMessaging Benchmark build on this machine. OMB is not published to Maven Central, so it cannot be a
 * dependency: users build it (https://github.com/openmessaging/benchmark#build) and point {@code OMB_HOME} at the
 * checkout, whose {@code bin/benchmark} runs from that directory.
 */
public record OmbInstallation(Path home) {

    public static final String BUILD_INSTRUCTIONS = "OMB is not on Maven Central: build it as its README says"
            + " (https://github.com/openmessaging/benchmark#build: git clone https://github.com/openmessaging/benchmark && cd benchmark"
            + " && mvn install -DskipTests), then set OMB_HOME to that directory. Without OMB, `./sluice bench proxy --rates 5,10,20,40`"
            + " writes the same result layout for `./sluice size`.";

    /** @throws IllegalArgumentException when the directory is not a built OMB, with how to get one */
    public static OmbInstallation at(String home) {
        if (home == null || home.isBlank()) {
            throw new IllegalArgumentException("OMB_HOME is not set (or give --omb-home). " + BUILD_INSTRUCTIONS);
        }
        Path dir = Path.of(home).toAbsolutePath();
        if (!Files.isExecutable(dir.resolve("bin/benchmark"))) {
            throw new IllegalArgumentException(dir + " has no executable bin/benchmark, so it is not an OMB checkout. " + BUILD_INSTRUCTIONS);
        }
        return new OmbInstallation(dir);
    }

    /** Local mode (no workers): OMB runs producers and consumers in its own JVM and writes the result to {@code output}. */
    public List<String> command(Path driver, Path workload, Path output) {
        return List.of(home.resolve("bin/benchmark").toString(), "--drivers", driver.toString(), "--output", output.toString(), workload.toString());
    }

    /** The benchmark-framework jar's name, the nearest thing OMB has to a version; "unknown" when not found. */
    public String version() {
        try (Stream<Path> files = Files.walk(home, 4)) {
            Optional<String> jar = files.map(p -> p.getFileName().toString())
                    .filter(name -> name.startsWith("benchmark-framework") && name.endsWith(".jar"))
                    .findFirst();
            return jar.map(name -> name.substring(0, name.length() - 4)).orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
