package io.sluice.bench.targets;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The targets benchmarks know by name, and those a user names with a configuration file. Built in: {@code direct}
 * (the broker), {@code passthrough}, {@code encryption}, {@code jwt}, {@code jwt-audit}, {@code governance}, {@code keyrouting}, {@code validating} and {@code masking}
 * (the proxy with the configuration of that name beside this class). Anything else is {@code name=path/to/proxy.yaml}.
 */
public final class BenchTargets {

    private static final Map<String, String> BUILT_IN = new LinkedHashMap<>();

    static {
        BUILT_IN.put("direct", "the broker itself, no proxy");
        BUILT_IN.put("passthrough", "the proxy with no filters");
        BUILT_IN.put("encryption", "the proxy with RecordEncryption on every topic");
        BUILT_IN.put("jwt", "the proxy authenticating clients with JWTs (JwtAuth)");
        BUILT_IN.put("jwt-audit", "the jwt target with the Audit filter in front, its trail in a file");
        BUILT_IN.put("governance", "the jwt-audit target with Quotas after JwtAuth, counting every byte and request, throttling none");
        BUILT_IN.put("keyrouting", "the proxy routing every benchmark topic as a virtual topic (KeyRouting)");
        BUILT_IN.put("validating", "the proxy checking every value is JSON (RecordValidation), the clients writing JSON");
        BUILT_IN.put("masking", "the proxy masking a field of every fetched JSON value (FieldMasking), the clients writing JSON");
    }

    private BenchTargets() {
    }

    /** What the benchmark's clients add for a built-in target ({@link BenchTarget#clientConfig}). */
    private static final Map<String, Map<String, Object>> CLIENT_CONFIG =
            Map.of("validating", Map.of("interceptor.classes", JsonBenchValues.class.getName()),
                    "masking", Map.of("interceptor.classes", JsonBenchValues.class.getName()));

    public static List<String> builtInNames() {
        return List.copyOf(BUILT_IN.keySet());
    }

    /**
     * Resolves names and {@code name=file} pairs, in order.
     *
     * @throws IllegalArgumentException for a name that is neither built in nor given a file, or a missing file;
     *                                  the message names it and lists the known targets
     */
    public static List<BenchTarget> resolve(List<String> specs) {
        List<BenchTarget> targets = new ArrayList<>();
        for (String spec : specs) {
            targets.add(resolve(spec.trim()));
        }
        return targets;
    }

    public static BenchTarget resolve(String spec) {
        int eq = spec.indexOf('=');
        if (eq > 0) {
            String name = spec.substring(0, eq);
            Path file = Path.of(spec.substring(eq + 1));
            try {
                return new BenchTarget(name, "the proxy with " + file, Files.readString(file, StandardCharsets.UTF_8));
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("target '" + name + "': configuration file " + file + " does not exist");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        String description = BUILT_IN.get(spec);
        if (description == null) {
            throw new IllegalArgumentException("unknown target '" + spec + "' (known: " + String.join(", ", BUILT_IN.keySet())
                    + "; or name=path/to/proxy.yaml)");
        }
        return new BenchTarget(spec, description, spec.equals("direct") ? null : resource(spec + ".yaml"), CLIENT_CONFIG.get(spec));
    }

    private static String resource(String name) {
        try (InputStream in = BenchTargets.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name + " beside " + BenchTargets.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
