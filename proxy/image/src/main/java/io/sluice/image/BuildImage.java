package io.sluice.image;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.LogEvent;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.frontend.CredentialRetrieverFactory;

/**
 * Builds the image without a container engine: {@code mvn -Pimage package} in proxy/image runs this
 * (docs/container.md). Arguments, each {@code --name=value}:
 * <ul>
 *   <li>{@code --distribution}: the tarball proxy/app built</li>
 *   <li>{@code --from}: the base image ({@link SluiceImage#DEFAULT_BASE} when empty; {@code scratch} for none)</li>
 *   <li>{@code --to}: the image's name, e.g. {@code sluice:0.1.0} or {@code registry.example.com/sluice:0.1.0}</li>
 *   <li>{@code --output}: {@code tar} (write {@code --tar}, for {@code docker load} / {@code podman load}) or
 *       {@code registry} (push to the registry {@code --to} names, with the credentials in ~/.docker/config.json)</li>
 *   <li>{@code --source}: the repository's URL for the org.opencontainers.image.source label (optional)</li>
 *   <li>{@code --work}: a directory for the unpacked tarball and Jib's layer cache (default: a temporary one)</li>
 * </ul>
 * Exit code 0 on success, 1 when the build fails, 2 for bad arguments (the Maven profile turns a non-zero exit into a
 * build failure instead of letting it end Maven's JVM).
 */
public final class BuildImage {

    private static final Set<String> NAMES = Set.of("distribution", "from", "to", "output", "tar", "source", "work");

    private BuildImage() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            String name = arg.startsWith("--") && equals > 2 ? arg.substring(2, equals) : "";
            if (!NAMES.contains(name)) {
                usage("unknown argument '" + arg + "'");
            }
            options.put(name, arg.substring(equals + 1).strip());
        }
        Path tarball = Path.of(required(options, "distribution"));
        String from = options.getOrDefault("from", "").isEmpty() ? SluiceImage.DEFAULT_BASE : options.get("from");
        String to = required(options, "to");
        String output = options.getOrDefault("output", "tar");

        String workOption = options.getOrDefault("work", "");
        Path work = workOption.isEmpty() ? Files.createTempDirectory("sluice-image-") : Files.createDirectories(Path.of(workOption));
        Distribution distribution = Distribution.unpack(tarball, Files.createTempDirectory(work, "distribution-"));
        Containerizer containerizer;
        switch (output) {
            case "tar" -> containerizer = Containerizer.to(TarImage.at(Path.of(required(options, "tar"))).named(to));
            case "registry" -> {
                ImageReference reference = ImageReference.parse(to);
                containerizer = Containerizer.to(RegistryImage.named(reference)
                        .addCredentialRetriever(CredentialRetrieverFactory.forImage(reference, BuildImage::log).dockerConfig()));
            }
            default -> {
                usage("--output must be tar or registry, not '" + output + "'");
                return;
            }
        }
        containerizer.setToolName("sluice-image").addEventHandler(LogEvent.class, BuildImage::log)
                .setApplicationLayersCache(work.resolve("layers-cache"));
        try {
            JibContainer built = SluiceImage.plan(distribution, from, options.get("source")).containerize(containerizer);
            System.out.println("sluice-image: built " + to + " (" + built.getDigest() + ") from " + from
                    + ("tar".equals(output) ? " into " + options.get("tar") : ""));
        } catch (Exception e) {
            System.err.println("sluice-image: " + e);
            System.exit(1);
        }
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.getOrDefault(name, "");
        if (value.isEmpty()) {
            usage("--" + name + "= is required");
        }
        return value;
    }

    private static void usage(String problem) {
        System.err.println("sluice-image: " + problem
                + "\nusage: BuildImage --distribution=TARBALL --to=NAME [--from=BASE] [--output=tar --tar=FILE | --output=registry] [--source=URL]");
        System.exit(2);
    }

    private static void log(LogEvent event) {
        if (event.getLevel().ordinal() <= LogEvent.Level.LIFECYCLE.ordinal()) {
            System.err.println("sluice-image: " + event.getMessage());
        }
    }
}
