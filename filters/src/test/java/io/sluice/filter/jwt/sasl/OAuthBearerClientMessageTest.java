package io.sluice.filter.jwt.sasl;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OAuthBearerClientMessageTest {

    private static OAuthBearerClientMessage parse(String message) {
        return OAuthBearerClientMessage.parse(message.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheMessageKafkaClientsSend() {
        OAuthBearerClientMessage m = parse("n,,\u0001auth=Bearer aaa.bbb.ccc\u0001\u0001");

        assertThat(m.token()).isEqualTo("aaa.bbb.ccc");
        assertThat(m.authorizationId()).isNull();
        assertThat(m.extensions()).isEmpty();
    }

    @Test
    void readsAuthorizationIdAndExtensions() {
        OAuthBearerClientMessage m = parse("n,a=al=2Cice,\u0001auth=bearer x.y.z\u0001traceId=42\u0001\u0001");

        assertThat(m.authorizationId()).isEqualTo("al,ice");
        assertThat(m.token()).isEqualTo("x.y.z");
        assertThat(m.extensions()).containsEntry("traceId", "42");
    }

    @Test
    void rejectsWhatIsNotAnOauthbearerMessage() {
        assertThatThrownBy(() -> parse("y,,\u0001auth=Bearer t\u0001\u0001")).hasMessageContaining("GS2 header");
        assertThatThrownBy(() -> parse("n,,auth=Bearer t")).hasMessageContaining("^A");
        assertThatThrownBy(() -> parse("n,,\u0001host=x\u0001\u0001")).hasMessageContaining("no auth=Bearer");
        assertThatThrownBy(() -> parse("n,,\u0001auth=Basic abc\u0001\u0001")).hasMessageContaining("not 'Bearer <token>'");
    }

    @Test
    void toStringNeverShowsTheToken() {
        assertThat(parse("n,,\u0001auth=Bearer secret.token.value\u0001\u0001").toString()).doesNotContain("secret");
    }
}
