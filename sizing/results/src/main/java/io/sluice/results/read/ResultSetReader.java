package io.sluice.results.read;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.sluice.results.ResultLayout;
import io.sluice.results.Workload;

/**
 * Finds the results under a directory, at any depth, so several result sets (a bench sweep, an OMB matrix) can be
 * sized together. A result is {@code W.json} with {@code W.run.json} or {@code W.workload.yaml} beside it: OMB's
 * file alone names neither the target rate nor the shape of the load, so it cannot be interpreted.
 */
public final class ResultSetReader {

    private ResultSetReader() {
    }

    public static ResultSet read(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new MalformedResultException(dir, "is not a directory of results");
        }
        List<MeasuredRun> runs = new ArrayList<>();
        List<Path> ignored = new ArrayList<>();
        List<MalformedResultException> problems = new ArrayList<>();
        for (Path file : files(dir)) {
            String name = file.getFileName().toString();
            if (name.endsWith(ResultLayout.RUN_SUFFIX)) {
                Path result = sibling(file, ResultLayout.RUN_SUFFIX, ResultLayout.RESULT_SUFFIX);
                if (!Files.exists(result)) {
                    problems.add(new MalformedResultException(file, "has no result " + result.getFileName()
                            + " beside it: the run was interrupted, or its result was moved"));
                }
            } else if (ResultLayout.isResult(file)) {
                Path runFile = sibling(file, ResultLayout.RESULT_SUFFIX, ResultLayout.RUN_SUFFIX);
                Path workloadFile = sibling(file, ResultLayout.RESULT_SUFFIX, ResultLayout.WORKLOAD_SUFFIX);
                if (!Files.exists(runFile) && !Files.exists(workloadFile)) {
                    ignored.add(file);
                    continue;
                }
                try {
                    runs.add(read(file, runFile, workloadFile));
                } catch (MalformedResultException e) {
                    problems.add(e);
                }
            }
        }
        return new ResultSet(runs, ignored, problems);
    }

    static MeasuredRun read(Path resultFile, Path runFile, Path workloadFile) {
        OmbResult result = OmbResultReader.read(resultFile);
        Optional<RunInfo> run = Files.exists(runFile) ? Optional.of(RunInfoReader.read(runFile)) : Optional.empty();
        Workload workload = run.map(RunInfo::workload).orElseGet(() -> WorkloadParser.read(workloadFile));
        if (workload.messageSize() != result.messageSize()) {
            throw new MalformedResultException(resultFile, "field 'messageSize' is " + result.messageSize() + " but the workload stored beside it ("
                    + (run.isPresent() ? runFile.getFileName() : workloadFile.getFileName()) + ") says " + workload.messageSize());
        }
        String target = run.map(RunInfo::target).orElseGet(() -> resultFile.getParent().getFileName().toString());
        String tool = run.map(RunInfo::tool).orElse(MeasuredRun.TOOL_OMB_WITHOUT_RUN);
        return new MeasuredRun(resultFile, target, tool, workload, result, run);
    }

    private static Path sibling(Path file, String suffix, String replacement) {
        String name = file.getFileName().toString();
        return file.resolveSibling(name.substring(0, name.length() - suffix.length()) + replacement);
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static List<Path> files(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            // Hidden directories hold working files (OMB's raw output before it is stored, say), not results.
            return walk.filter(Files::isRegularFile)
                    .filter(file -> !hidden(dir.relativize(file)))
                    .sorted(Comparator.naturalOrder()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
