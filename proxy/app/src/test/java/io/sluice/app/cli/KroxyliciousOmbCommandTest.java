package io.sluice.app.cli;

import io.sluice.bench.scenario.KmsCalls;
import io.sluice.bench.scenario.ScenarioKms;
import io.sluice.bench.scenario.ScenarioProxy;
import io.sluice.cli.CommandLines;
import io.sluice.cli.ExitCodes;
import io.sluice.omb.scenario.KroxyliciousOmbRun;
import io.sluice.testkit.MotoServer;
import io.sluice.testkit.fixtures.PythonClients;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import picocli.CommandLine;

/**
 * OMB is not available where tests run, so the scenario's parts are tested apart: the clear refusal without OMB, the
 * KMS calls counted through a real encrypting proxy calling its KMS over HTTP with real produce and consume (the Vault
 * stand-in, and the AWS KMS provider against moto: ciphertext at the broker, plaintext through the proxy, a restart
 * with an empty cache), and (OmbFiguresTest) the report built from a stored OMB result.
 */
class KroxyliciousOmbCommandTest {

    // Topics of this test's own on the shared broker, per KMS.
    private String orders;
    private String payments;

    @TempDir
    Path results;

    @Test
    void withoutOmbItRefusesBeforeMeasuringAndSaysHowToGetIt() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = CommandLines.configure(new CommandLine(new KroxyliciousOmbCommand(new PrintStream(out, true, StandardCharsets.UTF_8))));
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));

        int exit = cli.execute("--omb-home=", "--quiet-below", "100", "--results", results.toString());

        String message = err.toString(StandardCharsets.UTF_8);
        assertThat(exit).isEqualTo(ExitCodes.USAGE);
        assertThat(message).contains("OMB_HOME is not set", "https://github.com/openmessaging/benchmark", "mvn install");
        assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("differs from the published run");
        assertThat(results).isEmptyDirectory();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "vault", "aws" })
    void countsTheEncryptingProxysKmsCallsAsTheKmsServedThem(String kind) throws Exception {
        String kafka = SharedKafka.bootstrap();
        if (kind.equals("aws") && MotoServer.venv().venv() == null) {
            PythonClients.unavailable("moto cannot be installed: " + MotoServer.venv().unavailable());
        }
        orders = SharedKafka.topic("orders-" + kind);
        payments = SharedKafka.topic("payments-" + kind);
        try (ScenarioKms kms = ScenarioKms.from(kind, Map.of())) {
            kms.ensureKey(KroxyliciousOmbRun.KEK);
            io.sluice.testkit.Topics.createTopics(Map.of("bootstrap.servers", kafka), List.of(new NewTopic(orders, 1, (short) 1), new NewTopic(payments, 1, (short) 1)));
            try (ScenarioProxy proxy = ScenarioProxy.start(Main.class.getName(), kafka, kms.filterDefinition("encrypt", KroxyliciousOmbRun.KEK),
                    kms.proxyEnvironment())) {
                KmsCalls servedBefore = kms.servedCalls().orElseThrow();
                KmsCalls before = proxy.kmsCalls();
                produce(proxy.bootstrap(), 200);
                List<String> readBack = consume(proxy.bootstrap(), 400);
                KmsCalls producing = proxy.kmsCalls().since(before);

                // The proxy that generated a data key holds it unwrapped: only a proxy that has not seen it asks the KMS.
                proxy.stop();
                proxy.startAgain();
                List<String> readAfterRestart = consume(proxy.bootstrap(), 400);
                KmsCalls reading = proxy.kmsCalls();
                List<String> stored = consume(kafka, 400);

                assertThat(readBack).hasSize(400).allMatch(v -> v.startsWith("record-"));
                assertThat(readAfterRestart).hasSize(400).allMatch(v -> v.startsWith("record-"));
                assertThat(stored).hasSize(400).noneMatch(v -> v.contains("record-"));
                assertThat(producing.dataKeyGenerations()).isPositive();
                assertThat(producing.unwraps()).isZero();
                assertThat(reading.dataKeyGenerations()).isZero();
                assertThat(reading.unwraps()).isPositive();
                // What the proxy counted is what the KMS API served over HTTP.
                assertThat(kms.servedCalls().orElseThrow().since(servedBefore))
                        .isEqualTo(new KmsCalls(producing.dataKeyGenerations(), reading.unwraps()));
            }
        }
    }

    private void produce(String bootstrap, int perTopic) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < perTopic; i++) {
                producer.send(new ProducerRecord<>(orders, "k" + i, "record-" + i));
                producer.send(new ProducerRecord<>(payments, "k" + i, "record-" + i));
            }
            producer.flush();
        }
    }

    private List<String> consume(String bootstrap, int expected) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "kms-calls-" + System.nanoTime());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(orders, payments));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }
}
