package io.sluice.sizing.report;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The report as a browser sees it: parsed by Chromium, and the chart actually painted. */
class ReportInBrowserTest {

    @Test
    void chromiumLoadsTheReportAndPaintsTheChart(@TempDir Path dir) throws Exception {
        Path chromium = Chromium.requireOrInstall();
        Path report = Files.writeString(dir.resolve("report.html"), HtmlReportTest.report(dir.resolve("runs")));

        String dom = run(chromium, dir, List.of("--dump-dom", report.toUri().toString()));
        assertThat(dom).contains("<svg");
        assertThat(HtmlReportTest.count(dom, "class=\"point healthy\"")).isEqualTo(4);
        assertThat(HtmlReportTest.count(dom, "class=\"point saturated\"")).isEqualTo(1);
        assertThat(dom).contains("class=\"fit-line\"", "class=\"saturation-region\"");

        Path png = dir.resolve("report.png");
        run(chromium, dir, List.of("--screenshot=" + png, "--window-size=1000,1200", "--hide-scrollbars", report.toUri().toString()));
        // Kept for a human to look at after the build.
        Files.copy(png, Path.of("target", "report-in-chromium.png"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        BufferedImage image = ImageIO.read(png.toFile());
        // The healthy points and the fit are drawn in #1f6feb: if the SVG rendered, many pixels have that colour.
        assertThat(pixelsNear(image, 0x1f, 0x6f, 0xeb)).isGreaterThan(200);
    }

    private static String run(Path chromium, Path dir, List<String> arguments) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(chromium.toString());
        command.addAll(Chromium.FLAGS);
        command.add("--user-data-dir=" + Files.createTempDirectory(dir, "profile"));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectError(dir.resolve("chromium.log").toFile()).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try {
                process.getInputStream().transferTo(out);
            } catch (java.io.IOException ignored) {
                // the process died; its exit code tells
            }
        });
        reader.start();
        boolean finished = process.waitFor(120, TimeUnit.SECONDS);
        if (!finished) {
            process.destroyForcibly();
        }
        reader.join(10_000);
        assertThat(finished).as("chromium finished; log: %s", Files.readString(dir.resolve("chromium.log"))).isTrue();
        assertThat(process.exitValue()).as("chromium exit code; log: %s", Files.readString(dir.resolve("chromium.log"))).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int pixelsNear(BufferedImage image, int r, int g, int b) {
        int count = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y);
                int dr = ((rgb >> 16) & 0xff) - r;
                int dg = ((rgb >> 8) & 0xff) - g;
                int db = (rgb & 0xff) - b;
                if (dr * dr + dg * dg + db * db < 30 * 30) {
                    count++;
                }
            }
        }
        return count;
    }
}
