{{/*
The proxy's proxy.yaml (docs/configuration.md), rendered from the values; the ConfigMap <fullname>-proxy holds it.
${NAME} is the proxy's own substitution from the environment (the ConfigMap <fullname>-env), not Helm's.
*/}}

{{/* The SNI gateway: the one place that maps the chart's proxy.gateway.sni values to the proxy's config keys. The
chart's $(nodeId) placeholder is the config's own (configuration.md, "SNI routing"). */}}
{{- define "sluice.proxy.sniGateway" -}}
{{- $sni := .Values.proxy.gateway.sni -}}
sniHostIdentifiesNode:
  listenAddress: 0.0.0.0:{{ $sni.listenPort }}
  bootstrapHost: {{ $sni.bootstrapHost }}
  brokerHostPattern: {{ $sni.brokerHostPattern | quote }}
  advertisedPort: {{ $sni.advertisedPort }}
{{- end -}}

{{- define "sluice.proxy.portPerBrokerGateway" -}}
{{- $p := .Values.proxy.gateway.portPerBroker -}}
portIdentifiesNode:
  bootstrapAddress: 0.0.0.0:{{ $p.bootstrapPort }}
  # Every replica serves every broker, so the one advertised host is right for all of them.
  advertisedBrokerAddressPattern: ${SLUICE_ADVERTISED_HOST}
  # A fixed block of node ids: the Services list each port.
  nodeStartPort: {{ $p.nodeStartPort }}
  nodeIdRanges:
    {{- toYaml $p.nodeIdRanges | nindent 4 }}
{{- end -}}

{{- define "sluice.proxy.config" -}}
{{- $proxy := .Values.proxy -}}
{{- if $proxy.config -}}
{{ $proxy.config }}
{{- else -}}
# Health and metrics must be reachable by the kubelet's probes and by Prometheus, so not loopback.
management:
  bindAddress: 0.0.0.0
  port: {{ $proxy.managementPort }}
{{- with $proxy.filterDefinitions }}
filterDefinitions:
  {{- toYaml . | nindent 2 }}
{{- end }}
virtualClusters:
  - name: {{ $proxy.virtualCluster }}
    targetCluster:
      bootstrapServers: ${KAFKA_BOOTSTRAP}
      {{- if $proxy.targetCluster.tls.enabled }}
      {{- if $proxy.targetCluster.tls.caSecret.name }}
      tls:
        trust:
          storeFile: /var/run/secrets/kafka-ca/{{ $proxy.targetCluster.tls.caSecret.key }}
          storeType: PEM
      {{- else }}
      tls: {}
      {{- end }}
      {{- end }}
      {{- with $proxy.targetCluster.sasl }}
      sasl:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    gateways:
      - name: default
        {{- if eq $proxy.gateway.mode "sni" }}
        {{- include "sluice.proxy.sniGateway" . | nindent 8 }}
        {{- else }}
        {{- include "sluice.proxy.portPerBrokerGateway" . | nindent 8 }}
        {{- end }}
        {{- if $proxy.gateway.tls.secretName }}
        tls:
          key:
            certificateFile: /var/run/secrets/gateway-tls/tls.crt
            privateKeyFile: /var/run/secrets/gateway-tls/tls.key
        {{- end }}
    filters: {{ toJson $proxy.filters }}
{{- include "sluice.extraConfig" (list "proxy.extraConfig" $proxy.extraConfig (list "management" "filterDefinitions" "virtualClusters")) }}
{{- end -}}
{{- end -}}
