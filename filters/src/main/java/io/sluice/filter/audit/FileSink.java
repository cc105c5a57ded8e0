package io.sluice.filter.audit;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Audit lines appended to a file that rolls by size: when the next line would take {@code path} past
 * {@code maxFileBytes}, it becomes {@code path.1}, {@code path.1} becomes {@code path.2} and so on, the oldest beyond
 * {@code maxFiles - 1} rolled files is deleted, and a new {@code path} starts. So the sink holds at most
 * {@code maxFiles × maxFileBytes} bytes on disk (a single line longer than a file gets a file of its own). An existing
 * file is appended to. Lines are whole: a roll happens between lines, never inside one.
 *
 * <p>A write that fails (a full disk) counts its lines as failed and closes the file; the next batch opens it again.
 * Lines are handed to the operating system when the buffer is empty (not fsync'd: docs/audit.md).</p>
 */
final class FileSink extends QueuedSink {

    private final Path path;
    private final long maxFileBytes;
    private final int maxFiles;
    private OutputStream out;
    private long size;

    /** @throws IllegalArgumentException naming {@code file.path} when the file cannot be opened for appending */
    FileSink(String filterName, AuditConfig.File config, AuditMetrics metrics) {
        super("file", filterName, config.bufferBytes(), metrics);
        this.path = Path.of(config.path());
        this.maxFileBytes = config.maxFileBytes();
        this.maxFiles = config.maxFiles();
        try {
            open();
        } catch (IOException e) {
            throw new IllegalArgumentException("file.path: cannot open " + path + " for appending: " + e, e);
        }
        start();
    }

    private void open() throws IOException {
        out = new BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE),
                64 * 1024);
        size = Files.size(path);
    }

    @Override
    protected void write(List<Line> lines) {
        int done = 0;
        try {
            if (out == null) {
                open();
            }
            for (Line line : lines) {
                byte[] bytes = line.bytes();
                if (size > 0 && size + bytes.length > maxFileBytes) {
                    roll();
                }
                out.write(bytes);
                size += bytes.length;
                done++;
            }
            written(done);
        } catch (IOException e) {
            written(done);
            failed(lines.size() - done);
            problems.log("audit file {}: {} events not written: {}", path, lines.size() - done, e.toString());
            closeQuietly();
        }
    }

    private void roll() throws IOException {
        out.close();
        out = null;
        if (maxFiles > 1) {
            Files.deleteIfExists(rolled(maxFiles - 1));
            for (int i = maxFiles - 2; i >= 1; i--) {
                if (Files.exists(rolled(i))) {
                    Files.move(rolled(i), rolled(i + 1), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.move(path, rolled(1), StandardCopyOption.REPLACE_EXISTING);
        } else {
            Files.delete(path);
        }
        open();
    }

    private Path rolled(int index) {
        return path.resolveSibling(path.getFileName() + "." + index);
    }

    @Override
    protected void flush() {
        if (out == null) {
            return;
        }
        try {
            out.flush();
        } catch (IOException e) {
            problems.log("audit file {}: flush failed: {}", path, e.toString());
            closeQuietly();
        }
    }

    @Override
    protected void release() {
        flush();
        closeQuietly();
    }

    private void closeQuietly() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                // already reported by the write or flush that failed
            }
            out = null;
        }
    }
}
