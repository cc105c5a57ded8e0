package io.sluice.config;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PasswordSourceTest {

    record Holder(PasswordSource secret) {
    }

    @TempDir
    Path dir;

    @Test
    void aPlainStringIsThePassword() throws Exception {
        Holder holder = bind("secret: hunter2");

        assertThat(holder.secret()).isEqualTo(new PasswordSource("hunter2", null));
        assertThat(holder.secret().resolve()).isEqualTo("hunter2");
    }

    @Test
    void anObjectMayGiveThePassword() throws Exception {
        assertThat(bind("secret: {password: hunter2}").secret().resolve()).isEqualTo("hunter2");
    }

    @Test
    void anObjectMayNameAFileWhoseTrailingNewlineIsDropped() throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), "from-file\r\n");

        PasswordSource source = bind("secret: {passwordFile: '" + file + "'}").secret();

        assertThat(source).isEqualTo(PasswordSource.fromFile(file.toString()));
        assertThat(source.resolve()).isEqualTo("from-file");
    }

    @Test
    void rereadsTheFileSoRotatedSecretsArePickedUp() throws Exception {
        Path file = Files.writeString(dir.resolve("pw"), "one");
        PasswordSource source = PasswordSource.fromFile(file.toString());
        assertThat(source.resolve()).isEqualTo("one");

        Files.writeString(file, "two");

        assertThat(source.resolve()).isEqualTo("two");
    }

    @Test
    void anUnreadableFileIsAConfigException() {
        PasswordSource source = PasswordSource.fromFile(dir.resolve("missing").toString());

        assertThatThrownBy(source::resolve).isInstanceOf(ConfigException.class).hasMessageContaining("missing");
    }

    @Test
    void neverShowsTheSecret() throws Exception {
        PasswordSource inline = PasswordSource.of("hunter2");
        KeyConfig key = KeyConfig.store("ks.p12", inline, null);

        assertThat(inline.toString()).isEqualTo("******");
        assertThat(key.toString()).doesNotContain("hunter2").contains("******");
        assertThat(ConfigLoader.mapper().writeValueAsString(new Holder(inline))).doesNotContain("hunter2");
        assertThat(PasswordSource.fromFile("/run/secrets/pw").toString()).isEqualTo("passwordFile=/run/secrets/pw");
    }

    @Test
    void rejectsAnUnknownField() throws Exception {
        var node = ConfigLoader.mapper().readTree("secret: {pasword: x}");

        assertThatThrownBy(() -> ConfigLoader.bind(node, Holder.class, "x"))
                .hasMessage("Invalid configuration: x.secret.pasword: unknown field");
    }

    private Holder bind(String yaml) throws Exception {
        return ConfigLoader.bind(ConfigLoader.mapper().readTree(yaml), Holder.class, "test");
    }
}
