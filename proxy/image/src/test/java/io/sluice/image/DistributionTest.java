package io.sluice.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Unpacking a tarball into the image's files: only a distribution's shape, nothing outside the working directory. */
class DistributionTest {

    @TempDir
    Path work;

    @Test
    void readsTheVersionAndCommitTheDistributionsBuildRecorded() throws IOException {
        Path tarball = tarball(new Entry("sluice-1.2.3/bin/sluice", "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8)),
                new Entry("sluice-1.2.3/lib/io.sluice-sluice-common-1.2.3.jar", buildInfoJar("version=1.2.3\ncommit=0123456789ab\n")));
        Distribution distribution = Distribution.unpack(tarball, work.resolve("out"));
        assertThat(distribution.home().getFileName()).hasToString("sluice-1.2.3");
        assertThat(distribution.home().resolve("bin/sluice")).hasContent("#!/bin/sh");
        assertThat(distribution.version()).isEqualTo("1.2.3");
        assertThat(distribution.revision()).isEqualTo("0123456789ab");
    }

    @Test
    void theBuildInfoComesFromTheCommonJarNotTheJarsBesideIt() throws IOException {
        Path tarball = tarball(new Entry("sluice-1.2.3/bin/sluice", new byte[0]),
                new Entry("sluice-1.2.3/lib/io.sluice-sluice-proxy-1.2.3.jar", buildInfoJar("")),
                new Entry("sluice-1.2.3/lib/io.sluice-sluice-common-1.2.3.jar", buildInfoJar("version=1.2.3\ncommit=0123456789ab\n")));
        Distribution distribution = Distribution.unpack(tarball, work.resolve("out"));
        assertThat(distribution.version()).isEqualTo("1.2.3");
        assertThat(distribution.revision()).isEqualTo("0123456789ab");
    }

    @Test
    void aCommitTheBuildCouldNotFillInIsUnknown() throws IOException {
        Path tarball = tarball(new Entry("sluice-1/bin/sluice", new byte[0]),
                new Entry("sluice-1/lib/io.sluice-sluice-common-1.jar", buildInfoJar("version=1\ncommit=${git.commit.id.abbrev}\n")));
        assertThat(Distribution.unpack(tarball, work.resolve("out")).revision()).isEqualTo("unknown");
    }

    @Test
    void refusesAnEntryThatLeavesTheWorkingDirectory() throws IOException {
        Path tarball = tarball(new Entry("sluice-1/bin/sluice", new byte[0]), new Entry("sluice-1/../../escaped", new byte[1]));
        assertThatThrownBy(() -> Distribution.unpack(tarball, work.resolve("deep/out")))
                .isInstanceOf(IOException.class).hasMessageContaining("refusing entry sluice-1/../../escaped");
        assertThat(work.resolve("deep/escaped")).doesNotExist();
    }

    @Test
    void refusesATarballThatIsNotADistribution() throws IOException {
        Path tarball = tarball(new Entry("something/README", new byte[1]));
        assertThatThrownBy(() -> Distribution.unpack(tarball, work.resolve("out")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a Sluice distribution");
    }

    private record Entry(String name, byte[] content) {
    }

    private Path tarball(Entry... entries) throws IOException {
        Path file = work.resolve("in.tar.gz");
        try (OutputStream out = Files.newOutputStream(file);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
            for (Entry entry : entries) {
                TarArchiveEntry header = new TarArchiveEntry(entry.name(), true);
                header.setSize(entry.content().length);
                tar.putArchiveEntry(header);
                tar.write(entry.content());
                tar.closeArchiveEntry();
            }
        }
        return file;
    }

    /** A jar holding only the build-info resource proxy/common's build writes. */
    private static byte[] buildInfoJar(String buildInfo) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(bytes)) {
            jar.putNextEntry(new JarEntry("io/sluice/build/build-info.properties"));
            jar.write(buildInfo.getBytes(StandardCharsets.ISO_8859_1));
            jar.closeEntry();
        }
        return bytes.toByteArray();
    }
}
