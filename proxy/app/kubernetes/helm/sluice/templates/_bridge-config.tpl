{{/*
The bridge's bridge.yaml (docs/bridge.md), rendered from the values; the ConfigMap <fullname>-bridge holds it.
${NAME} is the bridge's own substitution from the environment (the ConfigMap <fullname>-env), not Helm's.
*/}}
{{- define "sluice.bridge.config" -}}
{{- $bridge := .Values.bridge -}}
{{- if $bridge.config -}}
{{ $bridge.config }}
{{- else -}}
server:
  listen: 0.0.0.0:{{ $bridge.port }}
  path: {{ $bridge.path }}
kafka:
  bootstrapServers: ${KAFKA_BOOTSTRAP}
topics: ${SLUICE_BRIDGE_TOPICS}
auth:
  jwt:
    jwks: ${SLUICE_JWKS}
    issuer: ${SLUICE_JWT_ISSUER}
    audience: ${SLUICE_JWT_AUDIENCE}
# Health and metrics must be reachable by the kubelet's probes and by Prometheus, so not loopback.
management:
  bindAddress: 0.0.0.0
  port: {{ $bridge.managementPort }}
{{- include "sluice.extraConfig" (list "bridge.extraConfig" $bridge.extraConfig (list "server" "kafka" "topics" "auth" "management")) }}
{{- end -}}
{{- end -}}
