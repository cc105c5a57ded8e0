package io.sluice.omb.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.sluice.results.Workload;

/**
 * An OMB workload file: its text exactly as OMB will read it, and the fields a runner needs from it.
 *
 * @param group          the catalogue group it belongs to (sweep, multitopic, ...), or "file" for one given by path
 * @param producerConfig producer properties over the driver's own (linger.ms, batch.size, ...), empty for most: OMB's
 *                       workload has no place for them, so a workload that varies them carries them beside it
 */
public record WorkloadFile(String name, String group, String yaml, Map<String, String> producerConfig) {

    public WorkloadFile {
        producerConfig = Map.copyOf(producerConfig);
    }

    /** A workload run with the driver's producer settings as they are. */
    public WorkloadFile(String name, String group, String yaml) {
        this(name, group, yaml, Map.of());
    }

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public Workload workload() {
        try {
            Workload workload = YAML.readValue(yaml, Workload.class);
            if (workload.name() == null || !workload.name().equals(name)) {
                throw new IllegalArgumentException("workload file '" + name + "' must have name: " + name + " (OMB names its result after it), not "
                        + workload.name());
            }
            return workload;
        } catch (IOException e) {
            throw new UncheckedIOException("workload '" + name + "' is not a readable OMB workload: " + e.getMessage(), e);
        }
    }

    /** How long OMB runs it: warm-up (OMB defaults to a minute) plus test. Building a backlog comes on top. */
    public double expectedMinutes() {
        Workload w = workload();
        double warmup = w.warmupDurationMinutes() == null ? 1 : w.warmupDurationMinutes();
        return warmup + w.testDurationMinutes();
    }
}
