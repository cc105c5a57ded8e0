{{/*
What values.schema.json cannot say: rules across fields. Each failure names the field to change.
*/}}
{{- define "sluice.validate" -}}
{{- $g := .Values.proxy.gateway -}}
{{- if and .Values.proxy.enabled (eq $g.mode "sni") (not $g.tls.secretName) -}}
{{- fail "proxy.gateway.tls.secretName: required with proxy.gateway.mode sni (the server name clients ask for is part of the TLS handshake)" -}}
{{- end -}}
{{- if and .Values.proxy.enabled (eq $g.mode "sni") (eq $g.sni.bootstrapHost (replace "$(nodeId)" "0" $g.sni.brokerHostPattern)) -}}
{{- fail "proxy.gateway.sni.bootstrapHost: must differ from every name of proxy.gateway.sni.brokerHostPattern" -}}
{{- end -}}
{{- if .Values.certificate.enabled -}}
{{- if not .Values.proxy.enabled -}}
{{- fail "certificate.enabled: the Certificate is the proxy's gateway's, and proxy.enabled is false" -}}
{{- end -}}
{{- if not $g.tls.secretName -}}
{{- fail "proxy.gateway.tls.secretName: required with certificate.enabled (the Secret cert-manager writes and the proxy mounts)" -}}
{{- end -}}
{{- if not .Values.certificate.issuerRef.name -}}
{{- fail "certificate.issuerRef.name: required with certificate.enabled (your Issuer or ClusterIssuer)" -}}
{{- end -}}
{{- if and (eq $g.mode "portPerBroker") (not $g.portPerBroker.advertisedHost) (not .Values.certificate.dnsNames) -}}
{{- fail "certificate.dnsNames: required with certificate.enabled when proxy.gateway.portPerBroker.advertisedHost is empty (the in-cluster name)" -}}
{{- end -}}
{{- end -}}
{{- $chartKeys := list "KAFKA_BOOTSTRAP" "SLUICE_BRIDGE_TOPICS" "SLUICE_JWKS" "SLUICE_JWT_ISSUER" "SLUICE_JWT_AUDIENCE" -}}
{{- range $key, $_ := .Values.env -}}
{{- if has $key $chartKeys -}}
{{- fail (printf "env.%s: the chart sets %s itself, from kafka.bootstrapServers or bridge.*" $key $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
