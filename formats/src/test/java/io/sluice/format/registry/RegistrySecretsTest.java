package io.sluice.format.registry;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.config.PasswordSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Credentials reach the registry and nothing else: not logs, not exception messages, not toString. */
class RegistrySecretsTest {

    @Test
    void credentialsAreSentButNeverLoggedOrPrinted() throws Exception {
        String password = "pa55-" + System.nanoTime();
        String basic = Base64.getEncoder().encodeToString(("bridge:" + password).getBytes(StandardCharsets.UTF_8));
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        List<String> printed = new ArrayList<>();
        try (RegistryStandIn registry = RegistryStandIn.start()) {
            int id = registry.register("s", RegistryClientTest.PAYMENT);
            registry.requireBasic("bridge", "something-else");
            RegistryConfig config = new RegistryConfig(registry.url(), RegistryAuth.basic("bridge", PasswordSource.of(password)),
                    null, null, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null);
            printed.add(config.toString());
            try (CachingSchemaSource source = CachingSchemaSource.create(config, new SimpleMeterRegistry())) {
                printed.add(source.toString());
                assertThatThrownBy(() -> source.byId(id)).satisfies(e -> printed.add(e.toString()));
                registry.misbehave(RegistryStandIn.Misbehaviour.status(500, 50001));
                assertThatThrownBy(() -> source.latest("s")).satisfies(e -> printed.add(e.toString()));
                registry.stop();
                assertThatThrownBy(() -> source.latest("t")).satisfies(e -> printed.add(e.toString()));
            }
            assertThat(registry.authorizations()).contains("Basic " + basic);
        }
        finally {
            root.detachAppender(logs);
        }
        List<String> logged = new ArrayList<>();
        synchronized (logs) {
            for (ILoggingEvent event : logs.list) {
                logged.add(event.getFormattedMessage());
                for (IThrowableProxy t = event.getThrowableProxy(); t != null; t = t.getCause()) {
                    logged.add(t.getMessage());
                }
            }
        }
        assertThat(logged).anyMatch(line -> line.contains("Schema registry"));
        assertThat(printed).hasSize(5);
        assertThat(String.join("\n", logged) + String.join("\n", printed)).doesNotContain(password).doesNotContain(basic);
    }
}
