package io.sluice.omb.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.Set;

/**
 * The workloads this module ships ({@code omb/workloads/*.yaml}, listed with their group in {@code INDEX}), chosen
 * by name, by group, {@code all}, or given as a path to a workload file of one's own. A workload may have producer
 * settings beside it ({@code NAME.producer.properties}), merged into the driver's when it runs.
 */
public final class WorkloadCatalog {

    private static final String DIR = "/omb/workloads/";
    static final String PRODUCER_SUFFIX = ".producer.properties";

    private final Map<String, String> groupByName = new LinkedHashMap<>();

    private WorkloadCatalog() {
    }

    public static WorkloadCatalog load() {
        WorkloadCatalog catalog = new WorkloadCatalog();
        for (String line : resource("INDEX").split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] parts = trimmed.split("\\s+");
            catalog.groupByName.put(parts[0], parts[1]);
        }
        return catalog;
    }

    public List<String> names() {
        return List.copyOf(groupByName.keySet());
    }

    public Set<String> groups() {
        return new LinkedHashSet<>(groupByName.values());
    }

    /**
     * @param spec comma-separated workload names, group names, {@code all}, or paths of .yaml files
     * @throws IllegalArgumentException naming what is neither, with what is known
     */
    public List<WorkloadFile> select(String spec) {
        Map<String, WorkloadFile> chosen = new LinkedHashMap<>();
        for (String item : spec.split(",")) {
            String s = item.strip();
            if (s.equals("all")) {
                groupByName.forEach((name, group) -> chosen.put(name, file(name, group)));
            } else if (groupByName.containsKey(s)) {
                chosen.put(s, file(s, groupByName.get(s)));
            } else if (groupByName.containsValue(s)) {
                groupByName.forEach((name, group) -> {
                    if (group.equals(s)) {
                        chosen.put(name, file(name, group));
                    }
                });
            } else if (s.endsWith(".yaml") || s.endsWith(".yml")) {
                Path path = Path.of(s);
                if (!Files.exists(path)) {
                    throw new IllegalArgumentException("workload file " + path + " does not exist");
                }
                String name = path.getFileName().toString().replaceFirst("\\.ya?ml$", "");
                try {
                    chosen.put(name, new WorkloadFile(name, "file", Files.readString(path)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            } else {
                throw new IllegalArgumentException("unknown workload '" + s + "': give a name, a group (" + String.join(", ", groups())
                        + "), all, or a path to a .yaml file; names: " + String.join(", ", names()));
            }
        }
        return new ArrayList<>(chosen.values());
    }

    private static WorkloadFile file(String name, String group) {
        return new WorkloadFile(name, group, resource(name + ".yaml"), producerConfig(name));
    }

    /** {@code NAME.producer.properties} beside the workload, if there is one: the producer settings it varies. */
    private static Map<String, String> producerConfig(String name) {
        try (InputStream in = WorkloadCatalog.class.getResourceAsStream(DIR + name + PRODUCER_SUFFIX)) {
            if (in == null) {
                return Map.of();
            }
            Properties properties = new Properties();
            properties.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
            Map<String, String> config = new TreeMap<>();
            properties.stringPropertyNames().forEach(key -> config.put(key, properties.getProperty(key).strip()));
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String resource(String name) {
        try (InputStream in = WorkloadCatalog.class.getResourceAsStream(DIR + name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + DIR + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
