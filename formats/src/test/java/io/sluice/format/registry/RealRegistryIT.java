package io.sluice.format.registry;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.config.PasswordSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RegistryClient} against a real Confluent-compatible registry, given by {@code SCHEMA_REGISTRY_URL} (Apicurio:
 * {@code http://host:port/apis/ccompat/v7}) and optionally {@code SCHEMA_REGISTRY_USER}/{@code SCHEMA_REGISTRY_PASSWORD}.
 * Skipped, saying why, without it. Schemas are registered with plain HTTP as a serializer would, under subjects unique
 * to the run, and read back through the client. Runs in the ordinary test phase:
 * {@code SCHEMA_REGISTRY_URL=... mvn -o -pl formats -am test -Dtest=RealRegistryIT -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class RealRegistryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
    private static String url;
    private static String user;
    private static String password;

    @BeforeAll
    static void registry() {
        url = System.getenv("SCHEMA_REGISTRY_URL");
        if (url == null || url.isBlank()) {
            System.out.println("RealRegistryIT skipped: SCHEMA_REGISTRY_URL is not set (e.g. http://127.0.0.1:8081 or Apicurio's .../apis/ccompat/v7)");
        }
        Assumptions.assumeTrue(url != null && !url.isBlank(), "SCHEMA_REGISTRY_URL is not set");
        user = System.getenv("SCHEMA_REGISTRY_USER");
        password = System.getenv("SCHEMA_REGISTRY_PASSWORD");
    }

    private static RegistryClient client() {
        RegistryAuth auth = user == null ? null : RegistryAuth.basic(user, PasswordSource.of(password == null ? "" : password));
        return RegistryClient.create(new RegistryConfig(url, auth, null, null, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, null),
                new SimpleMeterRegistry());
    }

    /** POST /subjects/{subject}/versions as serializers do; the id. */
    private static int register(String subject, String type, String schema, List<SchemaReference> references) throws Exception {
        ObjectNode body = JSON.createObjectNode().put("schema", schema);
        if (type != null) {
            body.put("schemaType", type);
        }
        var refs = body.putArray("references");
        references.forEach(r -> refs.addObject().put("name", r.name()).put("subject", r.subject()).put("version", r.version()));
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url.replaceAll("/+$", "") + "/subjects/" + subject + "/versions"))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        if (user != null) {
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
                    (user + ":" + (password == null ? "" : password)).getBytes(StandardCharsets.UTF_8)));
        }
        HttpResponse<String> response = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(response.body());
        return answer.get("id").intValue();
    }

    @Test
    void avroWithAReference() throws Exception {
        String money = "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"it\",\"fields\":[{\"name\":\"cents\",\"type\":\"long\"}]}";
        String payment = "{\"type\":\"record\",\"name\":\"Payment\",\"namespace\":\"it\",\"fields\":[{\"name\":\"amount\",\"type\":\"it.Money\"}]}";
        int moneyId = register("it-money-" + RUN, null, money, List.of());
        SchemaReference ref = new SchemaReference("it.Money", "it-money-" + RUN, 1);
        int paymentId = register("it-payment-" + RUN + "-value", null, payment, List.of(ref));
        try (RegistryClient client = client()) {
            RegisteredSchema byId = client.byId(paymentId);
            assertThat(byId.type()).isEqualTo(SchemaType.AVRO);
            assertThat(JSON.readTree(byId.text())).isEqualTo(JSON.readTree(payment));
            assertThat(byId.references()).containsExactly(ref);
            RegisteredSchema latest = client.latest("it-payment-" + RUN + "-value");
            assertThat(latest.id()).isEqualTo(paymentId);
            assertThat(latest.references()).containsExactly(ref);
            RegisteredSchema referenced = client.bySubjectVersion(ref.subject(), ref.version());
            assertThat(referenced.id()).isEqualTo(moneyId);
            assertThat(JSON.readTree(referenced.text())).isEqualTo(JSON.readTree(money));
        }
    }

    @Test
    void protobuf() throws Exception {
        String proto = "syntax = \"proto3\";\npackage it;\n\nmessage Order {\n  string id = 1;\n  int64 qty = 2;\n}\n";
        int id = register("it-orders-" + RUN + "-value", "PROTOBUF", proto, List.of());
        try (RegistryClient client = client()) {
            RegisteredSchema schema = client.byId(id);
            assertThat(schema.type()).isEqualTo(SchemaType.PROTOBUF);
            assertThat(schema.text()).contains("message Order").contains("int64 qty = 2");
            System.out.println("RealRegistryIT protobuf as returned: " + schema.text().replace("\n", "\\n"));
            assertThat(client.latest("it-orders-" + RUN + "-value").id()).isEqualTo(id);
        }
    }

    @Test
    void jsonSchema() throws Exception {
        String schema = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}";
        int id = register("it-events-" + RUN + "-value", "JSON", schema, List.of());
        try (RegistryClient client = client()) {
            RegisteredSchema read = client.byId(id);
            assertThat(read.type()).isEqualTo(SchemaType.JSON);
            assertThat(JSON.readTree(read.text())).isEqualTo(JSON.readTree(schema));
            assertThat(client.bySubjectVersion("it-events-" + RUN + "-value", 1).id()).isEqualTo(id);
        }
    }

    @Test
    void unknownThingsAreNotFound() throws Exception {
        try (RegistryClient client = client()) {
            assertThatThrownBy(() -> client.byId(Integer.MAX_VALUE - 7)).matches(e -> ((SchemaUnavailableException) e).notFound());
            assertThatThrownBy(() -> client.latest("it-nope-" + RUN)).matches(e -> ((SchemaUnavailableException) e).notFound());
        }
    }
}
