package io.sluice.results;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where a run's files go, the same for OMB and {@code sluice bench} so that {@code sluice size} reads either:
 * <pre>
 * OUT/TARGET/WORKLOAD.json           OMB's result (or the bench's, in OMB's field names and units)
 * OUT/TARGET/WORKLOAD.run.json       what OMB does not record: tool, target rate, window, proxy CPU samples, versions
 * OUT/TARGET/WORKLOAD.workload.yaml  the workload that was run
 * </pre>
 */
public final class ResultLayout {

    public static final String RESULT_SUFFIX = ".json";
    public static final String RUN_SUFFIX = ".run.json";
    public static final String WORKLOAD_SUFFIX = ".workload.yaml";

    // Names become file and directory names; keep them to characters every file system and shell takes literally.
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private ResultLayout() {
    }

    public static Path result(Path out, String target, String workload) {
        return dir(out, target).resolve(checked("workload", workload) + RESULT_SUFFIX);
    }

    public static Path run(Path out, String target, String workload) {
        return dir(out, target).resolve(checked("workload", workload) + RUN_SUFFIX);
    }

    public static Path workload(Path out, String target, String workload) {
        return dir(out, target).resolve(checked("workload", workload) + WORKLOAD_SUFFIX);
    }

    public static Path dir(Path out, String target) {
        return out.resolve(checked("target", target));
    }

    /** Whether a file in a target directory is an OMB result, as opposed to one of the files stored beside it. */
    public static boolean isResult(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(RESULT_SUFFIX) && !name.endsWith(RUN_SUFFIX);
    }

    private static String checked(String what, String name) {
        if (name == null || !SAFE.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name '" + name + "' must be letters, digits, '.', '_' or '-'");
        }
        return name;
    }
}
