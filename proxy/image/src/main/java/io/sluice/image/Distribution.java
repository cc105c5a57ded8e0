package io.sluice.image;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * The distribution tarball ({@code sluice-VERSION.tar.gz}, built by proxy/app) unpacked into a working directory:
 * the image is made of exactly its files, as the Dockerfile's first stage makes it of them.
 *
 * @param home     the unpacked {@code sluice-VERSION/} directory (bin, lib, config, kubernetes, LICENSE, NOTICE)
 * @param version  the version the distribution's build recorded
 * @param revision the git commit the distribution's build recorded ({@code unknown} outside a checkout)
 */
public record Distribution(Path home, String version, String revision) {

    /** Where proxy/common's build writes what was built (io.sluice.build.BuildInfo reads the same resource). */
    private static final String BUILD_INFO = "io/sluice/build/build-info.properties";
    private static final String UNKNOWN = "unknown";

    /**
     * The jar that holds the build facts, group-artifact-version: the version starts with a digit, which tells it from
     * any later {@code sluice-common-*} artifact.
     */
    private static final Pattern BUILD_INFO_JAR = Pattern.compile("io\\.sluice-sluice-common-\\d.*\\.jar");

    /** Unpacks {@code tarball} into the empty or absent directory {@code into}. */
    public static Distribution unpack(Path tarball, Path into) throws IOException {
        Files.createDirectories(into);
        Path root = into.toRealPath();
        try (InputStream file = new BufferedInputStream(Files.newInputStream(tarball));
             TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(file))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path target = root.resolve(entry.getName()).normalize();
                if (!target.startsWith(root) || entry.isSymbolicLink() || entry.isLink()) {
                    // The distribution has neither; an archive that does is not one this build made.
                    throw new IOException(tarball + ": refusing entry " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(tar, target);
                }
            }
        }
        Path home;
        try (Stream<Path> top = Files.list(root)) {
            home = top.filter(Files::isDirectory).reduce((a, b) -> {
                throw new IllegalArgumentException(tarball + " holds more than one top-level directory");
            }).orElseThrow(() -> new IllegalArgumentException(tarball + " holds no sluice-VERSION/ directory"));
        }
        if (!Files.isRegularFile(home.resolve(SluiceImage.LAUNCHER)) || !Files.isDirectory(home.resolve("lib"))) {
            throw new IllegalArgumentException(tarball + " is not a Sluice distribution: no " + SluiceImage.LAUNCHER + " or lib/");
        }
        return withBuildInfo(home);
    }

    /** Reads the version and commit recorded in the distribution's sluice-common jar, so the labels name its build. */
    private static Distribution withBuildInfo(Path home) throws IOException {
        Path jar;
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            jar = lib.filter(p -> BUILD_INFO_JAR.matcher(p.getFileName().toString()).matches()).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(home + "/lib has no io.sluice-sluice-common jar"));
        }
        Properties info = new Properties();
        try (JarFile file = new JarFile(jar.toFile())) {
            ZipEntry entry = file.getEntry(BUILD_INFO);
            if (entry != null) {
                try (InputStream in = file.getInputStream(entry)) {
                    info.load(in);
                }
            }
        }
        return new Distribution(home, known(info.getProperty("version")), known(info.getProperty("commit")));
    }

    /** A value the build left unset or as its ${placeholder} (no git at build time) is unknown. */
    private static String known(String value) {
        return value == null || value.isBlank() || value.contains("${") ? UNKNOWN : value.strip();
    }
}
