package io.sluice.filter.audit;

import java.io.PrintStream;
import java.util.List;

/**
 * Audit lines on the process's standard output, for a container platform that collects it. Each line is one write of
 * the whole line to {@link System#out}, whose writes are whole under its lock, so log lines written there too (the
 * proxy's console log) never split an audit line; a collector tells them apart by the JSON's {@code version} field.
 */
final class StdoutSink extends QueuedSink {

    private final PrintStream out;

    StdoutSink(String filterName, AuditConfig.Stdout config, AuditMetrics metrics, PrintStream out) {
        super("stdout", filterName, config.bufferBytes(), metrics);
        this.out = out;
        start();
    }

    @Override
    protected void write(List<Line> lines) {
        for (Line line : lines) {
            out.write(line.bytes(), 0, line.bytes().length);
        }
        if (out.checkError()) {
            failed(lines.size());
            problems.log("audit stdout: the stream reports an error");
        } else {
            written(lines.size());
        }
    }

    @Override
    protected void flush() {
        out.flush();
    }

    @Override
    protected void release() {
        out.flush();
    }
}
