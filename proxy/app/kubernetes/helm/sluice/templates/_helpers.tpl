{{/*
Names and labels shared by every template.
*/}}

{{/* The prefix of every resource name: the release name when it contains the chart's name, else <release>-<chart>.
Cut to 48 characters so that "-bridge-metrics" still fits a Service name (63). */}}
{{- define "sluice.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 48 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Helm's bookkeeping labels, on every resource besides the labels the Kustomize base has. */}}
{{- define "sluice.helmLabels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* Labels of a resource that belongs to no one component (ConfigMaps of both, the PDBs, the ServiceMonitor). */}}
{{- define "sluice.labels" -}}
app.kubernetes.io/part-of: sluice
{{ include "sluice.helmLabels" . }}
{{- end -}}

{{/* What selects a component's pods: its name (sluice-proxy, sluice-bridge) and the release, so that two releases in
one namespace never select each other's pods. Call with (list $ "proxy"). */}}
{{- define "sluice.selectorLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: sluice-{{ index . 1 }}
app.kubernetes.io/instance: {{ $.Release.Name }}
{{- end -}}

{{/* A component's resource labels. Call with (list $ "proxy"). */}}
{{- define "sluice.componentLabels" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: sluice-{{ index . 1 }}
app.kubernetes.io/part-of: sluice
{{ include "sluice.helmLabels" $ }}
{{- end -}}

{{- define "sluice.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The proxy gateway's ports as a list of {name, port}: the bootstrap and one per node id of nodeIdRanges (portPerBroker),
or the one SNI port. The container, the Service and the config all come from this list. */}}
{{- define "sluice.proxy.ports" -}}
{{- $g := .Values.proxy.gateway -}}
{{- if eq $g.mode "sni" -}}
- name: kafka-sni
  port: {{ $g.sni.listenPort }}
  servicePort: {{ $g.sni.advertisedPort }}
{{- else -}}
{{- $p := $g.portPerBroker -}}
- name: bootstrap
  port: {{ $p.bootstrapPort }}
  servicePort: {{ $p.bootstrapPort }}
{{- $port := int $p.nodeStartPort -}}
{{- range $r := $p.nodeIdRanges -}}
{{- if lt (int $r.end) (int $r.start) -}}
{{- fail (printf "proxy.gateway.portPerBroker.nodeIdRanges: range %v ends (%v) before it starts (%v)" (default "" $r.name) $r.end $r.start) -}}
{{- end -}}
{{- range $node := untilStep (int $r.start) (int (add1 $r.end)) 1 }}
- name: broker-{{ $node }}
  port: {{ $port }}
  servicePort: {{ $port }}
{{- $port = add1 $port -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The default topology spread of a component: never two replicas more on one node than on another (N+1 holds only if
one node lost takes one replica), and the same across zones where the nodes are labelled with one. Call with (list $ "proxy"). */}}
{{- define "sluice.topologySpread" -}}
{{- $ := index . 0 -}}
{{- $c := index $.Values (index . 1) -}}
{{- if $c.topologySpreadConstraints -}}
{{- toYaml $c.topologySpreadConstraints -}}
{{- else -}}
- maxSkew: 1
  topologyKey: kubernetes.io/hostname
  whenUnsatisfiable: DoNotSchedule
  labelSelector:
    matchLabels:
      {{- include "sluice.selectorLabels" . | nindent 6 }}
- maxSkew: 1
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "sluice.selectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}

{{/* extraConfig merged at the top of a config: a key the chart writes itself is an error naming it. Call with
(list "proxy.extraConfig" .Values.proxy.extraConfig (list "management" ...)). */}}
{{- define "sluice.extraConfig" -}}
{{- $field := index . 0 -}}
{{- $extra := index . 1 -}}
{{- range $key := index . 2 -}}
{{- if hasKey $extra $key -}}
{{- fail (printf "%s.%s: the chart writes %s itself; set it through the chart's values, or give the whole file in %s" $field $key $key (replace ".extraConfig" ".config" $field)) -}}
{{- end -}}
{{- end -}}
{{- with $extra }}
{{ toYaml . }}
{{- end -}}
{{- end -}}
