package io.sluice.adversarial;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The valid requests the fuzzer starts from: frames recorded from a real kafka-clients session, a few of each API
 * and version, in a stable order (by API key, version, then recording order) so a seed picks the same seed frame in
 * every run of the same session.
 */
final class Corpus implements Consumer<FrameRelay.Frame> {

    /** A recorded request: its API, version and bytes, size prefix included. */
    record Seed(ApiKeys api, short version, byte[] frame, boolean beforeAuthentication) {
        String name() {
            return api.name + " v" + version;
        }
    }

    private static final int PER_API_VERSION = 4;

    private final Map<String, List<Seed>> recorded = new LinkedHashMap<>();
    private volatile boolean recording = true;

    @Override
    public synchronized void accept(FrameRelay.Frame frame) {
        if (!recording || frame.bytes().length < 12) {
            return;
        }
        short key = (short) (((frame.bytes()[4] & 0xff) << 8) | (frame.bytes()[5] & 0xff));
        short version = (short) (((frame.bytes()[6] & 0xff) << 8) | (frame.bytes()[7] & 0xff));
        if (!ApiKeys.hasId(key)) {
            return;
        }
        Seed seed = new Seed(ApiKeys.forId(key), version, frame.bytes(), frame.beforeAuthentication());
        List<Seed> same = recorded.computeIfAbsent(seed.name() + (seed.beforeAuthentication() ? " pre-auth" : ""), k -> new ArrayList<>());
        if (same.size() < PER_API_VERSION) {
            same.add(seed);
        }
    }

    /** Stops recording: the healthy clients' traffic afterwards is not part of the corpus. */
    synchronized List<Seed> freeze() {
        recording = false;
        List<Seed> seeds = new ArrayList<>();
        new TreeMap<>(recorded).values().forEach(seeds::addAll);
        seeds.sort(Comparator.comparing((Seed s) -> s.api().id).thenComparing(Seed::version)
                .thenComparing(Seed::beforeAuthentication));
        return List.copyOf(seeds);
    }
}
