package io.sluice.bench.profile;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * The methods a JFR recording's execution samples ({@code jdk.ExecutionSample}) land in most: by self samples (the
 * method on top of the stack, where the CPU was) and, beside them, total samples (the method anywhere on the stack,
 * what it and its callees cost).
 */
public final class HotMethods {

    /** One method: samples with it on top, samples with it anywhere on the stack. */
    public record Method(String name, long self, long total) {
    }

    /** All samples of the recording and its hottest methods, by self samples. */
    public record Profile(long samples, List<Method> top) {
    }

    private HotMethods() {
    }

    public static Profile read(Path recording, int limit) throws IOException {
        Map<String, long[]> counts = new HashMap<>();
        long samples = 0;
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedStackTrace stack = event.getStackTrace();
                if (stack == null || stack.getFrames().isEmpty()) {
                    continue;
                }
                samples++;
                List<RecordedFrame> frames = stack.getFrames();
                counts.computeIfAbsent(name(frames.get(0)), k -> new long[2])[0]++;
                // A recursive method counts once per sample in its total.
                Set<String> onStack = new HashSet<>();
                for (RecordedFrame frame : frames) {
                    String name = name(frame);
                    if (onStack.add(name)) {
                        counts.computeIfAbsent(name, k -> new long[2])[1]++;
                    }
                }
            }
        }
        List<Method> top = counts.entrySet().stream()
                .map(e -> new Method(e.getKey(), e.getValue()[0], e.getValue()[1]))
                .filter(m -> m.self() > 0)
                .sorted(Comparator.comparingLong(Method::self).reversed().thenComparing(Method::name))
                .limit(limit)
                .toList();
        return new Profile(samples, top);
    }

    private static String name(RecordedFrame frame) {
        RecordedMethod method = frame.getMethod();
        return method == null ? "(unknown)" : method.getType().getName() + "." + method.getName();
    }
}
