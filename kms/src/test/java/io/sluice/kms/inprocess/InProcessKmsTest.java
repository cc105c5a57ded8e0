package io.sluice.kms.inprocess;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsService;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.fakes.ConfigYaml;
import io.sluice.kms.metrics.MeteredKms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class InProcessKmsTest {

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    @Test
    void keysGeneratedAtStartWrapAndUnwrap() {
        InProcessKms kms = InProcessKms.generate(List.of("kek-orders"));
        KekRef kek = join(kms.resolveKek("kek-orders"));
        DataKey dataKey = join(kms.generateDataKey(kek));

        assertThat(kek).isEqualTo(new KekRef("kek-orders", 1));
        assertThat(dataKey.key().getEncoded()).hasSize(32);
        assertThat(dataKey.key().getAlgorithm()).isEqualTo("AES");
        assertThat(dataKey.wrapped().ciphertextText()).startsWith("inprocess:v1:");
        assertThat(dataKey.toString()).doesNotContain(java.util.Base64.getEncoder().encodeToString(dataKey.key().getEncoded()));
        assertThat(join(kms.unwrap(dataKey.wrapped())).getEncoded()).isEqualTo(dataKey.key().getEncoded());
    }

    @Test
    void eachDataKeyIsNew() {
        InProcessKms kms = InProcessKms.generate(List.of("k"));
        DataKey a = join(kms.generateDataKey(new KekRef("k", 1)));
        DataKey b = join(kms.generateDataKey(new KekRef("k", 1)));
        assertThat(a.key().getEncoded()).isNotEqualTo(b.key().getEncoded());
        assertThat(a.wrapped()).isNotEqualTo(b.wrapped());
    }

    @Test
    void unknownKeysAreReportedAsSuch() {
        InProcessKms kms = InProcessKms.generate(List.of("k"));
        assertThatThrownBy(() -> join(kms.resolveKek("nope"))).hasCauseInstanceOf(UnknownKeyException.class);
        assertThatThrownBy(() -> join(kms.generateDataKey(new KekRef("nope", 1)))).hasCauseInstanceOf(UnknownKeyException.class);
        DataKey dataKey = join(kms.generateDataKey(new KekRef("k", 1)));
        WrappedKey renamed = new WrappedKey("nope", dataKey.wrapped().ciphertext());
        assertThatThrownBy(() -> join(kms.unwrap(renamed))).hasCauseInstanceOf(UnknownKeyException.class);
    }

    @Test
    void aKeyWrappedByOneKekDoesNotUnwrapWithAnother() {
        InProcessKms kms = InProcessKms.generate(List.of("a", "b"));
        DataKey dataKey = join(kms.generateDataKey(new KekRef("a", 1)));
        WrappedKey moved = new WrappedKey("b", dataKey.wrapped().ciphertext());
        assertThatThrownBy(() -> join(kms.unwrap(moved)))
                .cause().isExactlyInstanceOf(KmsException.class).hasMessageContaining("not wrapped by this KEK");
        WrappedKey garbage = new WrappedKey("a", "something else".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> join(kms.unwrap(garbage))).cause().isExactlyInstanceOf(KmsException.class);
    }

    @Test
    void rotationWrapsNewKeysWithTheNewVersionAndOldKeysStillUnwrap() {
        InProcessKms kms = InProcessKms.generate(List.of("k"));
        DataKey before = join(kms.generateDataKey(new KekRef("k", 1)));

        assertThat(kms.rotate("k")).isEqualTo(2);
        KekRef rotated = join(kms.resolveKek("k"));
        DataKey after = join(kms.generateDataKey(rotated));

        assertThat(rotated.version()).isEqualTo(2);
        assertThat(after.kek()).isEqualTo(new KekRef("k", 2));
        assertThat(after.wrapped().ciphertextText()).startsWith("inprocess:v2:");
        assertThat(join(kms.unwrap(before.wrapped())).getEncoded()).isEqualTo(before.key().getEncoded());
        assertThat(join(kms.unwrap(after.wrapped())).getEncoded()).isEqualTo(after.key().getEncoded());
    }

    @Test
    void keysSavedToAFileLoadAgain(@TempDir Path dir) throws Exception {
        InProcessKms first = InProcessKms.generate(List.of("k", "other"));
        first.rotate("k");
        DataKey v2 = join(first.generateDataKey(new KekRef("k", 2)));
        Path file = dir.resolve("keks.json");
        first.save(file);

        InProcessKms second = InProcessKms.load(file);

        assertThat(join(second.resolveKek("k"))).isEqualTo(new KekRef("k", 2));
        assertThat(join(second.resolveKek("other"))).isEqualTo(new KekRef("other", 1));
        SecretKey unwrapped = join(second.unwrap(v2.wrapped()));
        assertThat(unwrapped.getEncoded()).isEqualTo(v2.key().getEncoded());
        assertThat(Files.getPosixFilePermissions(file)).hasSize(2);
    }

    @Test
    void badKeyFilesAreRefusedWithTheReason(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> InProcessKms.load(dir.resolve("missing.json"))).hasMessageContaining("does not exist");
        Path shortKey = Files.writeString(dir.resolve("short.json"), "{\"k\": [\"AAAA\"]}");
        assertThatThrownBy(() -> InProcessKms.load(shortKey)).hasMessageContaining("k version 1 is not a base64 AES-256 key");
        Path notBase64 = Files.writeString(dir.resolve("bad.json"), "{\"k\": [\"%%%\"]}");
        assertThatThrownBy(() -> InProcessKms.load(notBase64)).hasMessageContaining("not a base64");
        Path list = Files.writeString(dir.resolve("list.json"), "[]");
        assertThatThrownBy(() -> InProcessKms.load(list)).hasMessageContaining("JSON object");
    }

    @Test
    void closeWipesTheKeks() {
        InProcessKms kms = InProcessKms.generate(List.of("k"));
        kms.close();
        assertThatThrownBy(() -> join(kms.resolveKek("k"))).hasCauseInstanceOf(UnknownKeyException.class);
    }

    @Test
    void serviceIsFoundByNameAndBuildsFromYaml(@TempDir Path dir) throws Exception {
        InProcessKms saved = InProcessKms.generate(List.of("from-file"));
        Path file = dir.resolve("keks.json");
        saved.save(file);
        KmsService<?> service = find("InProcessKmsService");
        Object config = ConfigYaml.bind("keys: [kek-orders]\nkeyFile: " + file + "\n", service.configType());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();

        try (Kms kms = service.createFrom(config, registry)) {
            assertThat(join(kms.resolveKek("kek-orders")).version()).isEqualTo(1);
            assertThat(join(kms.resolveKek("from-file")).version()).isEqualTo(1);
            assertThatThrownBy(() -> join(kms.resolveKek("nope"))).hasCauseInstanceOf(UnknownKeyException.class);
        }
        assertThat(registry.get(MeteredKms.CALLS).tag("provider", "inprocess").tag("operation", "resolve_kek")
                .tag("outcome", "success").timer().count()).isEqualTo(2);
        assertThat(registry.get(MeteredKms.CALLS).tag("outcome", "unknown_key").timer().count()).isEqualTo(1);
        assertThat(find("io.sluice.kms.inprocess.InProcessKmsService")).isNotNull();
    }

    @Test
    void kekGeneratedForAKeyFileIsWrittenToItAndSurvivesARestart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("keks.json");
        InProcessKms.generate(List.of("from-file")).save(file);
        InProcessKmsConfig config = new InProcessKmsConfig(List.of("kek-orders"), file.toString());
        DataKey before;
        try (Kms kms = new InProcessKmsService().create(config, new SimpleMeterRegistry())) {
            before = join(kms.generateDataKey(join(kms.resolveKek("kek-orders"))));
        }

        try (Kms restarted = new InProcessKmsService().create(config, new SimpleMeterRegistry())) {
            assertThat(join(restarted.unwrap(before.wrapped())).getEncoded()).isEqualTo(before.key().getEncoded());
        }
        assertThat(Files.readString(file)).contains("kek-orders", "from-file");
        assertThat(Files.getPosixFilePermissions(file)).hasSize(2);
    }

    @Test
    void serviceRefusesUnusableConfig() {
        InProcessKmsService service = new InProcessKmsService();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        assertThatThrownBy(() -> service.create(new InProcessKmsConfig(null, null), registry)).hasMessageStartingWith("keys:");
        assertThatThrownBy(() -> service.create(new InProcessKmsConfig(List.of("a", "a"), null), registry)).hasMessageStartingWith("keys: 'a' is listed twice");
        assertThatThrownBy(() -> service.create(new InProcessKmsConfig(null, "/nonexistent/keks.json"), registry))
                .hasMessageStartingWith("keyFile:").hasMessageContaining("does not exist");
    }

    static KmsService<?> find(String name) {
        for (KmsService<?> service : ServiceLoader.load(KmsService.class)) {
            if (service.getClass().getSimpleName().equals(name) || service.getClass().getName().equals(name)) {
                return service;
            }
        }
        throw new AssertionError("no KmsService named " + name);
    }
}
