package io.sluice.testkit;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/** The files a {@link LocalKafka} broker is started from, all inside its work directory. */
record BrokerFiles(Path serverProperties, Path dataDir, Path logbackConfig, Path log4j2Config, Path brokerLog,
                   Path formatLog) {

    /** System property read by the logback configuration below, so one file serves both the tool and the broker. */
    static final String LOG_LEVEL_PROPERTY = "sluice.kafka.log.level";

    static BrokerFiles write(Path workDir, int port, int controllerPort, Map<String, String> extraBrokerProperties)
            throws IOException {
        Files.createDirectories(workDir);
        BrokerFiles files = new BrokerFiles(
                workDir.resolve("server.properties"),
                workDir.resolve("data"),
                workDir.resolve("logback-broker.xml"),
                workDir.resolve("log4j2-broker.properties"),
                workDir.resolve("broker.log"),
                workDir.resolve("format.log"));
        files.writeServerProperties(port, controllerPort, extraBrokerProperties);
        Files.writeString(files.logbackConfig, LOGBACK, StandardCharsets.UTF_8);
        Files.writeString(files.log4j2Config, LOG4J2, StandardCharsets.UTF_8);
        return files;
    }

    private void writeServerProperties(int port, int controllerPort, Map<String, String> extra) throws IOException {
        Properties props = new Properties();
        props.setProperty("process.roles", "broker,controller");
        props.setProperty("node.id", "1");
        // A static voter set rather than a bootstrapped dynamic quorum: the controller port is picked afresh on
        // every start, and a dynamic quorum would remember the old one in a reused work directory.
        props.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.setProperty("controller.listener.names", "CONTROLLER");
        props.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.setProperty("inter.broker.listener.name", "PLAINTEXT");
        props.setProperty("log.dirs", dataDir.toString());
        props.setProperty("num.partitions", "1");
        props.setProperty("default.replication.factor", "1");
        props.setProperty("offsets.topic.replication.factor", "1");
        props.setProperty("transaction.state.log.replication.factor", "1");
        props.setProperty("transaction.state.log.min.isr", "1");
        props.setProperty("share.coordinator.state.topic.replication.factor", "1");
        props.setProperty("share.coordinator.state.topic.min.isr", "1");
        props.setProperty("min.insync.replicas", "1");
        props.setProperty("group.initial.rebalance.delay.ms", "0");
        props.setProperty("auto.create.topics.enable", "true");
        extra.forEach(props::setProperty);
        try (Writer out = Files.newBufferedWriter(serverProperties, StandardCharsets.UTF_8)) {
            props.store(out, "Written by Sluice LocalKafka");
        }
    }

    // Kafka logs through SLF4J, which binds to logback on our class path; the broker writes to stdout, which the
    // parent sends to broker.log.
    private static final String LOGBACK = """
            <configuration>
              <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                <encoder>
                  <pattern>[%d{ISO8601}] %-5level [%thread] %logger{36} - %msg%n</pattern>
                </encoder>
              </appender>
              <root level="${LEVEL_PROPERTY:-INFO}">
                <appender-ref ref="OUT"/>
              </root>
            </configuration>
            """.replace("LEVEL_PROPERTY", LOG_LEVEL_PROPERTY);

    // Kafka's log-level MBean drives log4j2 directly; without a configuration log4j2 complains on stderr.
    private static final String LOG4J2 = """
            status = warn
            appender.out.type = Console
            appender.out.name = OUT
            appender.out.layout.type = PatternLayout
            appender.out.layout.pattern = [%d] %p %m (%c)%n
            rootLogger.level = INFO
            rootLogger.appenderRef.out.ref = OUT
            """;
}
