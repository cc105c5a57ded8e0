package io.sluice.kms;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.kms.fakes.ConfigYaml;
import io.sluice.kms.inprocess.InProcessKmsConfig;
import io.sluice.kms.vault.VaultKmsConfig;

import static org.assertj.core.api.Assertions.assertThat;

/** The YAML examples in docs/kms.md whose first line names a config record bind to it. */
class KmsDocsTest {

    private static final Map<String, Class<?>> TYPES = Map.of(
            "VaultKmsConfig", VaultKmsConfig.class,
            "InProcessKmsConfig", InProcessKmsConfig.class,
            "KeyCacheConfig", KeyCacheConfig.class);

    @Test
    void yamlExamplesBind() throws Exception {
        String docs = Files.readString(Path.of("../docs/kms.md"));
        Matcher m = Pattern.compile("```yaml\\n# (\\w+)\\n(.*?)```", Pattern.DOTALL).matcher(docs);
        List<String> bound = new ArrayList<>();
        while (m.find()) {
            Class<?> type = TYPES.get(m.group(1));
            if (type == null) {
                continue;
            }
            Object config = ConfigYaml.bind(m.group(2), type);
            if (config instanceof KeyCacheConfig cache) {
                cache.validate();
                assertThat(cache).as("the documented values are the defaults").isEqualTo(KeyCacheConfig.defaults());
            }
            bound.add(m.group(1));
        }
        assertThat(bound).contains("VaultKmsConfig", "InProcessKmsConfig", "KeyCacheConfig").hasSizeGreaterThanOrEqualTo(6);
    }
}
