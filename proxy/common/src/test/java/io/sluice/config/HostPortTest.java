package io.sluice.config;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostPortTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "localhost:9092      | localhost   | 9092 | localhost:9092",
            "kafka-1.example.com:1 | kafka-1.example.com | 1 | kafka-1.example.com:1",
            "10.0.0.7:65535      | 10.0.0.7    | 65535 | 10.0.0.7:65535",
            "[::1]:9092          | ::1         | 9092 | [::1]:9092",
            "[fe80::1%eth0]:9092 | fe80::1%eth0 | 9092 | [fe80::1%eth0]:9092",
            "[::]:0              | ::          | 0    | [::]:0",
            "':9192'             | ''          | 9192 | :9192",
            "' host:1 '          | host        | 1    | host:1",
    })
    void parsesAndPrintsBack(String text, String host, int port, String printed) {
        HostPort parsed = HostPort.parse(text);

        assertThat(parsed).isEqualTo(new HostPort(host, port));
        assertThat(parsed.toString()).isEqualTo(printed);
        assertThat(HostPort.parse(parsed.toString())).isEqualTo(parsed);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "localhost          | the port is missing",
            "localhost:         | the port is missing",
            "localhost:http     | 'http' is not a port number",
            "localhost:-1       | '-1' is not a port number",
            "localhost:65536    | port 65536 is out of range 0..65535",
            "localhost:99999999 | is not a port number",
            "::1:9092           | IPv6 addresses must be written in brackets",
            "[::1:9092          | missing ']'",
            "[::1]9092          | expected ':port' after ']'",
            "[nothex]:1         | is not an IPv6 address",
            "my host:1          | 'my host' is not a valid host name",
            "http://h:1         | is not a valid host name",
    })
    void rejectsGarbageSayingWhy(String text, String why) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("invalid host:port '" + text + "'")
                .hasMessageContaining(why);
    }

    @Test
    void rejectsEmptyText() {
        assertThatThrownBy(() -> HostPort.parse(" ")).hasMessageContaining("empty");
        assertThatThrownBy(() -> HostPort.parse(null)).hasMessageContaining("empty");
    }

    @Test
    void knowsWildcards() {
        assertThat(HostPort.parse(":1").wildcard()).isTrue();
        assertThat(HostPort.parse("0.0.0.0:1").wildcard()).isTrue();
        assertThat(HostPort.parse("[::]:1").wildcard()).isTrue();
        assertThat(HostPort.parse("127.0.0.1:1").wildcard()).isFalse();
        assertThat(HostPort.parse("[::1]:1").wildcard()).isFalse();
    }
}
