{{/*
The Deployment of a component (proxy or bridge), in the shape `sluice size` writes (sizing's DeploymentYaml) and the
Kustomize base has: probes on the management port, a locked-down security context, the preStop pause, the spread, the
config from its ConfigMap and key material from its Secret. Called with a dict:
  ctx        the root context
  component  "proxy" or "bridge"
  ports      the container's ports besides management, a list of {name, port}
  env        more env entries after SLUICE_JAVA_OPTS (YAML list text)
  volumes    more volumes and their mounts after the base's (lists of {volume, mount})
  checksum   what the pods must roll on (the configs' text)
*/}}
{{- define "sluice.deployment" -}}
{{- $ := .ctx -}}
{{- $name := printf "sluice-%s" .component -}}
{{- $fullname := printf "%s-%s" (include "sluice.fullname" $) .component -}}
{{- $c := index $.Values .component -}}
{{- $selector := list $ .component -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "sluice.componentLabels" $selector | nindent 4 }}
spec:
  replicas: {{ $c.replicas }}
  selector:
    matchLabels:
      {{- include "sluice.selectorLabels" $selector | nindent 6 }}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {{ $name }}
        app.kubernetes.io/part-of: sluice
        app.kubernetes.io/instance: {{ $.Release.Name }}
        {{- with $c.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $c.managementPort | quote }}
        prometheus.io/path: /metrics
        # The config is read at start: a changed ConfigMap rolls the pods.
        checksum/config: {{ .checksum | sha256sum }}
        {{- with $c.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      automountServiceAccountToken: false
      {{- with $.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      # The preStop pause (10 s) and then the drain on SIGTERM (shutdownTimeout, 15 s by default) fit in it.
      terminationGracePeriodSeconds: {{ $c.terminationGracePeriodSeconds }}
      # N+1 holds only if losing one node takes one replica: never two on a node, and across zones where
      # the nodes are labelled with one (nodes without the label do not block scheduling).
      topologySpreadConstraints:
        {{- include "sluice.topologySpread" $selector | nindent 8 }}
      {{- with $c.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $c.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 10001
        runAsGroup: 10001
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: {{ $name }}
          image: {{ include "sluice.image" $ }}
          {{- with $.Values.image.pullPolicy }}
          imagePullPolicy: {{ . }}
          {{- end }}
          args: [{{ .component }}, --config, /etc/sluice/{{ .component }}.yaml]
          envFrom:
            - configMapRef:
                name: {{ include "sluice.fullname" $ }}-env
          env:
            # The collector and processor count are those the runs were measured with, set explicitly:
            # under 2 CPUs or 1792 MB the JVM would pick the Serial collector and fewer threads itself.
            - name: SLUICE_JAVA_OPTS
              value: {{ $c.javaOpts | quote }}
            {{- with .env }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- with $c.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          ports:
            {{- range .ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
            {{- end }}
            - name: management
              containerPort: {{ $c.managementPort }}
          startupProbe:
            httpGet:
              path: /healthz
              port: management
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet:
              path: /healthz
              port: management
            periodSeconds: 10
            timeoutSeconds: 2
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /readyz
              port: management
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
          # A stopping pod leaves the Service's endpoints at once, but kube-proxy, load balancers and
          # ingresses learn it seconds later: new connections keep coming meanwhile. The pause lets them
          # catch up before SIGTERM starts the drain, so no client is sent to a pod that refuses it.
          lifecycle:
            preStop:
              exec:
                command: [sleep, "10"]
          resources:
            {{- toYaml $c.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: [ALL]
          volumeMounts:
            - name: config
              mountPath: /etc/sluice
              readOnly: true
            - name: secrets
              mountPath: /var/run/secrets/sluice
              readOnly: true
            # The JVM's perf data and Netty's native transport library are written here.
            - name: tmp
              mountPath: /tmp
            {{- range .volumes }}
            - {{- toYaml .mount | nindent 14 }}
            {{- end }}
            {{- with $c.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: config
          configMap:
            name: {{ $fullname }}
        # Key material and passwords, read as files (tokenFile, hmacSecretFile, passwordFile, ...).
        - name: secrets
          secret:
            secretName: {{ $fullname }}-secrets
            optional: true
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- range .volumes }}
        - {{- toYaml .volume | nindent 10 }}
        {{- end }}
        {{- with $c.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}
