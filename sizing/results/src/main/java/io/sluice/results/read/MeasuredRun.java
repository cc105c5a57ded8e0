package io.sluice.results.read;

import java.nio.file.Path;
import java.util.Optional;

import io.sluice.results.RunRecord;
import io.sluice.results.Workload;

/**
 * One result file with what was stored beside it.
 *
 * @param tool which load generator produced it, for the reader of a report
 * @param run  the run.json, absent for an OMB result stored with only its workload
 */
public record MeasuredRun(Path resultFile, String target, String tool, Workload workload, OmbResult result, Optional<RunInfo> run) {

    public static final String TOOL_OMB_WITHOUT_RUN = RunRecord.TOOL_OMB + " (no run.json: no CPU samples)";
}
