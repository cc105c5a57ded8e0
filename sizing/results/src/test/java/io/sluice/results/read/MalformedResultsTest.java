package io.sluice.results.read;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.testing.SyntheticRuns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every unusable file is refused with its name and the field at fault, never with a bare parser error. */
class MalformedResultsTest {

    @TempDir
    Path runs;

    @Test
    void aResultCutShortNamesTheFileAndWhereItStops() throws IOException {
        Path file = copyRealResult("cut");
        String text = Files.readString(file);
        Files.writeString(file, text.substring(0, text.length() / 2));

        assertThatThrownBy(() -> OmbResultReader.read(file))
                .isInstanceOf(MalformedResultException.class)
                .hasMessageStartingWith(file.toString())
                .hasMessageContaining("is not valid JSON at line");
    }

    @Test
    void aMissingFieldIsNamed() throws IOException {
        Path file = copyRealResult("missing");
        Files.writeString(file, Files.readString(file).replace("\"publishRate\"", "\"publishRateX\""));

        assertThatThrownBy(() -> OmbResultReader.read(file))
                .hasMessage(file + ": field 'publishRate' is missing");
    }

    @Test
    void aWrongValueIsNamedWithItsIndex() throws IOException {
        Path file = copyRealResult("wrong");
        Files.writeString(file, Files.readString(file).replaceFirst("\"consumeRate\" : \\[ [0-9.]+, [0-9.]+, ", "\"consumeRate\" : [ 1.0, 2.0, \"n/a\", "));

        assertThatThrownBy(() -> OmbResultReader.read(file))
                .hasMessageContaining(file + ": field 'consumeRate[2]' must be a number, not \"n/a\" (string)");
    }

    @Test
    void seriesOfDifferentLengthsMeanAPartialFile() throws IOException {
        Path file = copyRealResult("partial");
        Files.writeString(file, Files.readString(file).replaceFirst("(\"consumeRate\" : \\[ )[0-9.]+, ", "$1"));

        assertThatThrownBy(() -> OmbResultReader.read(file))
                .hasMessageContaining(file + ": field 'consumeRate' has 5 intervals but 'publishRate' has 6");
    }

    @Test
    void anEmptySeriesSaysNothingWasRecorded() throws IOException {
        Path file = copyRealResult("empty");
        Files.writeString(file, Files.readString(file).replaceFirst("\"publishRate\" : \\[[^]]*]", "\"publishRate\" : []"));

        assertThatThrownBy(() -> OmbResultReader.read(file)).hasMessageContaining("field 'publishRate' is empty: the run recorded no stats interval");
    }

    @Test
    void aRunRecordWithoutItsResultIsAnInterruptedRun() throws IOException {
        Path result = SyntheticRuns.write(runs, "passthrough", "interrupted", 1024, 1000, 1, 100, 1 << 20);
        Files.delete(result);

        ResultSet set = ResultSetReader.read(runs);

        assertThat(set.problems()).singleElement().satisfies(e -> assertThat(e.getMessage())
                .contains("interrupted.run.json").contains("has no result interrupted.json beside it"));
    }

    @Test
    void aBadCpuSampleInARunRecordIsNamedWithItsPath() throws IOException {
        Path result = SyntheticRuns.write(runs, "passthrough", "badsample", 1024, 1000, 1, 100, 1 << 20);
        Path run = result.resolveSibling("badsample.run.json");
        Files.writeString(run, Files.readString(run).replaceFirst("\"cpuNanos\" : [0-9]+", "\"cpuNanos\" : \"lots\""));

        ResultSet set = ResultSetReader.read(runs);

        assertThat(set.problems()).singleElement().satisfies(e -> assertThat(e.getMessage())
                .startsWith(run.toString()).contains("field 'proxy.samples[0].cpuNanos' must be a whole number"));
        assertThat(set.runs()).isEmpty();
    }

    @Test
    void aWorkloadThatContradictsItsResultIsRefused() throws IOException {
        Path result = copyRealResult("contradicts");
        Files.writeString(result.resolveSibling("contradicts.workload.yaml"), Files.readString(RealOmbResultsTest.dir()
                .resolve("10topics-1partition-1kb-5k.workload.yaml")).replace("messageSize: 1024", "messageSize: 2048"));

        assertThat(ResultSetReader.read(runs).problems()).singleElement().satisfies(e -> assertThat(e.getMessage())
                .contains("field 'messageSize' is 1024 but the workload stored beside it (contradicts.workload.yaml) says 2048"));
    }

    @Test
    void aWorkloadWithoutARateIsNamed() throws IOException {
        Path result = copyRealResult("norate");
        Files.writeString(result.resolveSibling("norate.workload.yaml"), "name: x\nmessageSize: 1024\n");

        assertThat(ResultSetReader.read(runs).problems()).singleElement().satisfies(e -> assertThat(e.getMessage())
                .endsWith("norate.workload.yaml: field 'producerRate' is missing"));
    }

    @Test
    void jsonWithNothingBesideItIsIgnoredNotGuessedAt() throws IOException {
        Files.writeString(runs.resolve("notes.json"), "{}");

        ResultSet set = ResultSetReader.read(runs);

        assertThat(set.runs()).isEmpty();
        assertThat(set.problems()).isEmpty();
        assertThat(set.ignored()).containsExactly(runs.resolve("notes.json"));
    }

    private Path copyRealResult(String name) throws IOException {
        Path dir = Files.createDirectories(runs.resolve("omb"));
        Path file = dir.resolve(name + ".json");
        Files.copy(RealOmbResultsTest.dir().resolve("10topics-1partition-1kb-5k.json"), file);
        Files.copy(RealOmbResultsTest.dir().resolve("10topics-1partition-1kb-5k.workload.yaml"), dir.resolve(name + ".workload.yaml"));
        return file;
    }
}
