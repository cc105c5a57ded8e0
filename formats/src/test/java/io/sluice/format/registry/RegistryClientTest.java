package io.sluice.format.registry;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.format.registry.RegistryStandIn.Misbehaviour;
import io.sluice.config.PasswordSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RegistryClient} against the stand-in: what it reads, and what it does with answers that are wrong. */
class RegistryClientTest {

    static final String PAYMENT = "{\"type\":\"record\",\"name\":\"Payment\",\"namespace\":\"t\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"}]}";
    static final String MONEY = "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"t\",\"fields\":[{\"name\":\"cents\",\"type\":\"long\"}]}";

    private RegistryStandIn registry;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeEach
    void start() throws Exception {
        registry = RegistryStandIn.start();
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    private RegistryClient client(RegistryConfig config) {
        return RegistryClient.create(config, meters);
    }

    private RegistryClient client() {
        return client(RegistryConfig.of(registry.url()));
    }

    private static RegistryConfig withTimeout(String url, Duration timeout) {
        return new RegistryConfig(url, null, null, timeout, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null);
    }

    private double requests(String outcome) {
        return meters.get(RegistryClient.REQUESTS).tag("outcome", outcome).counter().count();
    }

    @Test
    void readsSchemasByIdLatestAndVersionWithTheirTypesAndReferences() throws Exception {
        int money = registry.register("money", MONEY);
        String proto = "syntax = \"proto3\"; package t; message Order { string id = 1; }";
        int order = registry.register("orders-value", SchemaType.PROTOBUF, proto, List.of());
        String withRef = "{\"type\":\"record\",\"name\":\"Payment\",\"namespace\":\"t\",\"fields\":[{\"name\":\"amount\",\"type\":\"t.Money\"}]}";
        int payment = registry.register("payments-value", SchemaType.AVRO, withRef, List.of(new SchemaReference("t.Money", "money", 1)));
        int json = registry.register("events-value", SchemaType.JSON, "{\"type\":\"object\"}", List.of());
        try (RegistryClient client = client()) {
            assertThat(client.byId(money)).isEqualTo(new RegisteredSchema(money, SchemaType.AVRO, MONEY, List.of()));
            assertThat(client.byId(order).type()).isEqualTo(SchemaType.PROTOBUF);
            assertThat(client.byId(order).text()).isEqualTo(proto);
            assertThat(client.byId(json).type()).isEqualTo(SchemaType.JSON);
            assertThat(client.byId(payment).references()).containsExactly(new SchemaReference("t.Money", "money", 1));
            assertThat(client.latest("payments-value")).isEqualTo(client.byId(payment));
            assertThat(client.bySubjectVersion("money", 1)).isEqualTo(client.byId(money));
        }
        assertThat(requests("ok")).isEqualTo(9);
    }

    @Test
    void aSchemaIsLookedUpUnderASubjectWithItsReferencesAndIsNotFoundUnderAnother() throws Exception {
        int money = registry.register("money", MONEY);
        String withRef = "{\"type\":\"record\",\"name\":\"Payment\",\"namespace\":\"t\",\"fields\":[{\"name\":\"amount\",\"type\":\"t.Money\"}]}";
        int payment = registry.register("payments-value", SchemaType.AVRO, withRef, List.of(new SchemaReference("t.Money", "money", 1)));
        String proto = "syntax = \"proto3\"; package t; message Order { string id = 1; }";
        int order = registry.register("orders/value with space", SchemaType.PROTOBUF, proto, List.of());
        try (RegistryClient client = client()) {
            RegisteredSchema schema = client.byId(payment);
            assertThat(client.lookUp("payments-value", schema)).isEqualTo(schema);
            assertThat(client.lookUp("orders/value with space", client.byId(order)).id()).isEqualTo(order);
            assertThatThrownBy(() -> client.lookUp("money", schema)).isInstanceOfSatisfying(SchemaUnavailableException.class,
                    e -> assertThat(e.notFound()).isTrue()).hasMessageContaining("schema id " + payment + " under subject 'money'");
            assertThatThrownBy(() -> client.lookUp("nobody", client.byId(money))).isInstanceOfSatisfying(SchemaUnavailableException.class,
                    e -> assertThat(e.notFound()).isTrue());
        }
        assertThat(registry.requests("lookup")).isEqualTo(4);
        assertThat(requests("not_found")).isEqualTo(2);
    }

    @Test
    void theLatestVersionIsTheLastRegistered() throws Exception {
        registry.register("s", PAYMENT);
        int second = registry.register("s", MONEY);
        try (RegistryClient client = client()) {
            assertThat(client.latest("s").id()).isEqualTo(second);
            assertThat(client.bySubjectVersion("s", 2).id()).isEqualTo(second);
        }
    }

    @Test
    void subjectsWithAnyCharacterArePathEncoded() throws Exception {
        int id = registry.register("a/b c?d#e", PAYMENT);
        try (RegistryClient client = client()) {
            assertThat(client.latest("a/b c?d#e").id()).isEqualTo(id);
        }
    }

    @Test
    void unknownIdsSubjectsAndVersionsAreNotFound() throws Exception {
        registry.register("s", PAYMENT);
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(999)).isInstanceOf(SchemaUnavailableException.class)
                    .matches(e -> ((SchemaUnavailableException) e).notFound()).hasMessageContaining("schema id 999").hasMessageContaining("40403");
            assertThatThrownBy(() -> client.latest("nope")).matches(e -> ((SchemaUnavailableException) e).notFound())
                    .hasMessageContaining("40401");
            assertThatThrownBy(() -> client.bySubjectVersion("s", 7)).matches(e -> ((SchemaUnavailableException) e).notFound())
                    .hasMessageContaining("40402");
        }
        assertThat(requests("not_found")).isEqualTo(3);
    }

    @Test
    void aBasePathLikeApicuriosIsKeptAndABare404SaysTheUrlMayBeWrong() throws Exception {
        try (RegistryStandIn apicurio = RegistryStandIn.start(null, "/apis/ccompat/v7")) {
            int id = apicurio.register("s", PAYMENT);
            try (RegistryClient client = client(RegistryConfig.of(apicurio.url() + "/"))) {
                assertThat(client.byId(id).text()).isEqualTo(PAYMENT);
            }
            String withoutBase = apicurio.url().replace("/apis/ccompat/v7", "");
            try (RegistryClient client = client(RegistryConfig.of(withoutBase))) {
                assertThatThrownBy(() -> client.byId(id)).isInstanceOf(SchemaUnavailableException.class)
                        .matches(e -> !((SchemaUnavailableException) e).notFound())
                        .hasMessageContaining("without a registry error code").hasMessageContaining("/apis/ccompat/v7");
            }
        }
    }

    @Test
    void sendsBasicCredentials() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.requireBasic("bridge", "basic-s3cret");
        RegistryConfig config = new RegistryConfig(registry.url(), RegistryAuth.basic("bridge", PasswordSource.of("basic-s3cret")),
                null, null, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null);
        try (RegistryClient client = client(config)) {
            assertThat(client.byId(id).text()).isEqualTo(PAYMENT);
        }
        assertThat(registry.authorizations()).containsExactly("Basic YnJpZGdlOmJhc2ljLXMzY3JldA==");
    }

    @Test
    void sendsABearerTokenReadFromAFileOnEveryRequest(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        int id = registry.register("s", PAYMENT);
        java.nio.file.Path file = dir.resolve("token");
        java.nio.file.Files.writeString(file, "token-one\n");
        registry.requireBearer("token-one");
        RegistryConfig config = new RegistryConfig(registry.url(), RegistryAuth.bearer(PasswordSource.fromFile(file.toString())),
                null, null, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null);
        try (RegistryClient client = client(config)) {
            client.byId(id);
            java.nio.file.Files.writeString(file, "token-two\n");
            registry.requireBearer("token-two");
            client.byId(id);
        }
        assertThat(registry.authorizations()).containsExactly("Bearer token-one", "Bearer token-two");
    }

    @Test
    void refusedCredentialsAreSaidPlainlyWithoutTheCredentials() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.requireBasic("bridge", "right-password");
        RegistryConfig config = new RegistryConfig(registry.url(), RegistryAuth.basic("bridge", PasswordSource.of("wrong-pa55word")),
                null, null, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null);
        try (RegistryClient client = client(config)) {
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(SchemaUnavailableException.class)
                    .hasMessageContaining("refused the bridge (HTTP 401)").hasMessageContaining("basic credentials")
                    .hasMessageNotContaining("wrong-pa55word").hasMessageNotContaining(java.util.Base64.getEncoder()
                            .encodeToString("bridge:wrong-pa55word".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("no credentials are configured");
        }
        assertThat(requests("refused")).isEqualTo(2);
    }

    // ---- hostile registries ----

    @Test
    void aHugeAnswerWithoutALengthIsCutOffAtTheLimitAndNotReadToTheEnd() throws Exception {
        int id = registry.register("s", PAYMENT);
        long fifty = 50L * 1024 * 1024;
        registry.misbehave(Misbehaviour.hugeBody(fifty, false));
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(SchemaUnavailableException.class)
                    .matches(e -> !((SchemaUnavailableException) e).notFound())
                    .hasMessageContaining("longer than maxResponseBytes (1048576 bytes)");
        }
        assertThat(requests("too_large")).isEqualTo(1);
        // The server's writes fail once the client has closed the connection: what it got out is the limit plus what
        // the sockets' buffers held, far from the 50 MB it tried to send.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(registry.hugeBodiesCompleted()).isZero());
        assertThat(registry.misbehavingBodyBytesSent()).isLessThan(fifty / 2);
    }

    @Test
    void aHugeDeclaredLengthIsRefusedBeforeReading() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.misbehave(Misbehaviour.hugeBody(50L * 1024 * 1024, true));
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("longer than maxResponseBytes");
        }
        assertThat(registry.hugeBodiesCompleted()).isZero();
    }

    @Test
    void anAnswerJustUnderTheLimitIsRead() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.misbehave(Misbehaviour.hugeBody(RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, false));
        try (RegistryClient client = client()) {
            assertThat(client.byId(id).text()).hasSize((int) RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES - 13);
        }
    }

    @Test
    void aSlowRegistryTimesOut() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.misbehave(Misbehaviour.delay(Duration.ofSeconds(30)));
        try (RegistryClient client = client(withTimeout(registry.url(), Duration.ofMillis(300)))) {
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(RegistryUnreachableException.class)
                    .hasMessageContaining("did not answer within 300 ms");
        }
        assertThat(requests("timeout")).isEqualTo(1);
    }

    @Test
    void aBodyThatTricklesInTimesOutToo() throws Exception {
        int id = registry.register("s", PAYMENT);
        // Headers at once, then a byte every 200 ms: the JDK's request timeout alone would wait for all of them.
        registry.misbehave(Misbehaviour.trickle(Duration.ofMillis(200)));
        try (RegistryClient client = client(withTimeout(registry.url(), Duration.ofMillis(500)))) {
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(RegistryUnreachableException.class)
                    .hasMessageContaining("did not answer within 500 ms");
        }
        assertThat(requests("timeout")).isEqualTo(1);
    }

    @Test
    void malformedJsonIsRefused() throws Exception {
        int id = registry.register("s", PAYMENT);
        try (RegistryClient client = client()) {
            registry.misbehave(Misbehaviour.malformed("{\"schema\": \"x\""));
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("not valid JSON");
            registry.misbehave(Misbehaviour.malformed("[1,2,3]"));
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("not a schema (not a JSON object)");
            registry.misbehave(Misbehaviour.malformed("{\"schema\": 42}"));
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("not a schema (no schema text)");
            registry.misbehave(Misbehaviour.malformed("{\"schema\": \"x\", \"schemaType\": \"XML\"}"));
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("schemaType 'XML' is not supported");
            registry.misbehave(Misbehaviour.malformed("{\"schema\": \"x\", \"references\": [{\"name\": \"n\"}]}"));
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("a reference lacks");
            registry.misbehave(Misbehaviour.malformed("[".repeat(100) + "]".repeat(100)));
            assertThatThrownBy(() -> client.byId(id)).hasMessageContaining("not valid JSON").hasMessageContaining("nesting");
        }
        assertThat(requests("malformed")).isEqualTo(2);
    }

    @Test
    void a500IsAFailureThatIsNotNotFound() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.misbehave(Misbehaviour.status(500, 50001));
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(SchemaUnavailableException.class)
                    .isNotInstanceOf(RegistryUnreachableException.class)
                    .matches(e -> !((SchemaUnavailableException) e).notFound())
                    .hasMessageContaining("HTTP 500").hasMessageContaining("50001");
        }
        assertThat(requests("http_error")).isEqualTo(1);
    }

    @Test
    void aConnectionClosedMidAnswerIsUnreachable() throws Exception {
        int id = registry.register("s", PAYMENT);
        registry.misbehave(Misbehaviour.closeConnection());
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(id)).isInstanceOf(RegistryUnreachableException.class)
                    .hasMessageContaining("connection to the schema registry");
        }
        assertThat(requests("unreachable")).isEqualTo(1);
    }

    @Test
    void aRefusedConnectionIsUnreachable() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (RegistryClient client = client(RegistryConfig.of("http://127.0.0.1:" + port))) {
            assertThatThrownBy(() -> client.byId(1)).isInstanceOf(RegistryUnreachableException.class)
                    .hasMessageContaining("cannot connect to the schema registry at http://127.0.0.1:" + port);
        }
    }

    @Test
    void aBadConfigIsRefusedWithTheFieldsNamed() {
        assertThatThrownBy(() -> client(RegistryConfig.of("ftp://registry")))
                .isInstanceOf(io.sluice.config.ConfigException.class).hasMessageContaining("schemaRegistry.url: must start with http:// or https://");
    }
}
