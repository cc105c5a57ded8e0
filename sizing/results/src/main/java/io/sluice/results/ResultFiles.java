package io.sluice.results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

/** Writes a run's files in the {@link ResultLayout}. */
public final class ResultFiles {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

    private ResultFiles() {
    }

    /** Writes a result produced here (by the bench), the run record and the workload. */
    public static Path write(Path out, RunRecord run, JsonNode ombResult) throws IOException {
        Path result = ResultLayout.result(out, run.target(), run.workload().name());
        Files.createDirectories(result.getParent());
        JSON.writeValue(result.toFile(), ombResult);
        writeRecordAndWorkload(out, run);
        return result;
    }

    /**
     * Stores a result file OMB wrote, with the run record and the workload file as it was given to OMB (verbatim:
     * it may hold fields, such as randomized payloads, that {@link Workload} does not model).
     */
    public static Path store(Path out, RunRecord run, Path ombResultFile, String workloadYaml) throws IOException {
        Path result = ResultLayout.result(out, run.target(), run.workload().name());
        Files.createDirectories(result.getParent());
        Files.copy(ombResultFile, result, StandardCopyOption.REPLACE_EXISTING);
        JSON.writeValue(ResultLayout.run(out, run.target(), run.workload().name()).toFile(), run);
        Files.writeString(ResultLayout.workload(out, run.target(), run.workload().name()), workloadYaml);
        return result;
    }

    public static String workloadYaml(Workload workload) throws IOException {
        return YAML.writeValueAsString(workload);
    }

    private static void writeRecordAndWorkload(Path out, RunRecord run) throws IOException {
        JSON.writeValue(ResultLayout.run(out, run.target(), run.workload().name()).toFile(), run);
        Files.writeString(ResultLayout.workload(out, run.target(), run.workload().name()), workloadYaml(run.workload()));
    }
}
