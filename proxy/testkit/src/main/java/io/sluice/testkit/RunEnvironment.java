package io.sluice.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.utils.AppInfoParser;

import io.sluice.results.RunRecord;

/** The machine and software versions a benchmark ran with, recorded beside its results. */
public final class RunEnvironment {

    private RunEnvironment() {
    }

    /** @param note what a reader should know about the machine, e.g. that the broker shares it */
    public static RunRecord.Machine machine(String note) {
        return new RunRecord.Machine(Runtime.getRuntime().availableProcessors(), cpuModel(), memoryBytes(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"), note,
                loadAverage());
    }

    /** The 1-, 5- and 15-minute load averages as /proc/loadavg shows them ("0.52 0.30 0.21"), or "n/a" where there is none. */
    public static String loadAverages() {
        String[] fields = loadavgFields();
        return fields == null ? "n/a" : fields[0] + " " + fields[1] + " " + fields[2];
    }

    private static Double loadAverage() {
        String[] fields = loadavgFields();
        try {
            return fields == null ? null : Double.parseDouble(fields[0]);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The fields of /proc/loadavg, at least three; null where there is no such file or it reads otherwise. */
    private static String[] loadavgFields() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return fields.length >= 3 ? fields : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Sluice, Java and kafka-clients versions; callers add their load generator's. */
    public static Map<String, String> versions() {
        Map<String, String> versions = new LinkedHashMap<>();
        String sluice = RunEnvironment.class.getPackage().getImplementationVersion();
        versions.put("sluice", sluice == null ? "development build" : sluice);
        versions.put("java", System.getProperty("java.vm.vendor") + " " + Runtime.version());
        versions.put("kafka-clients", AppInfoParser.getVersion());
        return versions;
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: the model is a nicety
        }
        return "unknown";
    }

    private static long memoryBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    return Long.parseLong(line.replaceAll("\\D+", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // as above
        }
        return 0;
    }
}
