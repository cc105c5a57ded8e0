package io.sluice.results.read;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything found under a {@code --runs} directory.
 *
 * @param ignored  JSON files that are not results (nothing stored beside them to say what was run)
 * @param problems files that look like results but cannot be used, each message naming the file and field
 */
public record ResultSet(List<MeasuredRun> runs, List<Path> ignored, List<MalformedResultException> problems) {
}
