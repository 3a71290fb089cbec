{{/*
Names, labels and the small pieces every template shares.
*/}}

{{- define "chainpay.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* the release's full name; every object's name starts with it (component names are appended) */}}
{{- define "chainpay.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "chainpay.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "chainpay.selectorLabels" -}}
app.kubernetes.io/name: {{ include "chainpay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "chainpay.labels" -}}
helm.sh/chart: {{ include "chainpay.chart" . }}
{{ include "chainpay.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: chainpay
{{- end }}

{{/* a service's labels; context: dict root, service */}}
{{- define "chainpay.componentLabels" -}}
{{ include "chainpay.labels" .root }}
app.kubernetes.io/component: {{ .service }}
{{- end }}

{{- define "chainpay.componentSelectorLabels" -}}
{{ include "chainpay.selectorLabels" .root }}
app.kubernetes.io/component: {{ .service }}
{{- end }}

{{/* a service's object name; context: dict root, service */}}
{{- define "chainpay.componentName" -}}
{{- printf "%s-%s" (include "chainpay.fullname" .root) .service }}
{{- end }}

{{- define "chainpay.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "chainpay.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* the five services: name -> key in values */}}
{{- define "chainpay.services" -}}
gateway: gateway
payment-command: paymentCommand
chain-indexer: chainIndexer
projection: projection
notifier: notifier
{{- end }}

{{/* the port a service's /healthz and /readyz are on (its /metrics: metricsPort, the port named metrics) */}}
{{- define "chainpay.httpPort" -}}
{{- $values := index .root.Values (get (include "chainpay.services" .root | fromYaml) .service) }}
{{- if has .service (list "projection" "notifier") }}
{{- $values.healthPort }}
{{- else }}
{{- $values.port }}
{{- end }}
{{- end }}

{{/* image reference; context: dict root, service */}}
{{- define "chainpay.image" -}}
{{- $image := .root.Values.image }}
{{- $repository := printf "%s%s-%s" $image.registry $image.repository .service }}
{{- $digest := get $image.digests .service }}
{{- if $digest }}
{{- printf "%s@%s" $repository $digest }}
{{- else }}
{{- printf "%s:%s" $repository (default .root.Chart.AppVersion $image.tag) }}
{{- end }}
{{- end }}

{{/* the Secret the chart manages (what is not taken from an existing Secret) */}}
{{- define "chainpay.secretName" -}}
{{- include "chainpay.fullname" . }}
{{- end }}

{{/* where the encryption key and admin token come from */}}
{{- define "chainpay.appSecretName" -}}
{{- default (include "chainpay.secretName" .) .Values.secrets.existingSecret }}
{{- end }}

{{- define "chainpay.walletSecretName" -}}
{{- default (include "chainpay.secretName" .) .Values.wallet.existingSecret }}
{{- end }}

{{- define "chainpay.mongodbSecretName" -}}
{{- default (include "chainpay.secretName" .) .Values.mongodb.existingSecret }}
{{- end }}

{{- define "chainpay.mongodbSecretKey" -}}
{{- if .Values.mongodb.existingSecret }}{{ .Values.mongodb.existingSecretKey }}{{ else }}MONGODB_URL{{ end }}
{{- end }}

{{- define "chainpay.eventStoreSecretName" -}}
{{- default (include "chainpay.secretName" .) .Values.eventStore.existingSecret }}
{{- end }}

{{- define "chainpay.eventStoreSecretKey" -}}
{{- if .Values.eventStore.existingSecret }}{{ .Values.eventStore.existingSecretKey }}{{ else }}EVENTSTORE_URL{{ end }}
{{- end }}

{{- define "chainpay.kafkaSaslSecretName" -}}
{{- default (include "chainpay.secretName" .) .Values.kafka.sasl.existingSecret }}
{{- end }}

{{- define "chainpay.kafkaSaslSecretKey" -}}
{{- if .Values.kafka.sasl.existingSecret }}{{ .Values.kafka.sasl.existingSecretKey }}{{ else }}KAFKA_SASL_PASSWORD{{ end }}
{{- end }}

{{- define "chainpay.rpcSecretName" -}}
{{- default (include "chainpay.secretName" .) .Values.chains.rpc.existingSecret }}
{{- end }}

{{/* whether the wallet's keys were given to the chart at all (inline or as a Secret) */}}
{{- define "chainpay.walletConfigured" -}}
{{- if or .Values.wallet.existingSecret (and .Values.wallet.tronAccountXpub .Values.wallet.solanaSeed) }}true{{ end }}
{{- end }}

{{/*
Checks that stop a render that could not work, each with what to do. Called by every template
that depends on the checked values, so that `helm template --show-only` fails as well.
*/}}
{{- define "chainpay.validate" -}}
{{- $v := .Values }}
{{- if not $v.kafka.brokers }}
{{- fail "kafka.brokers: required. chainpay's services talk over Kafka; the chart does not run one: name your brokers (host:port)." }}
{{- end }}
{{- with $v.kafka.tls }}
{{- if and (not .enabled) (or .existingSecret .clientCertificate .serverName) }}
{{- fail "kafka.tls: existingSecret, clientCertificate and serverName take effect with kafka.tls.enabled only: set it to true, or leave them empty." }}
{{- end }}
{{- if and .clientCertificate (not .existingSecret) }}
{{- fail "kafka.tls.clientCertificate: tls.crt and tls.key come from kafka.tls.existingSecret; set it too." }}
{{- end }}
{{- end }}
{{- with $v.kafka.sasl }}
{{- if and (not .mechanism) (or .username .password .existingSecret) }}
{{- fail "kafka.sasl: a username or password without kafka.sasl.mechanism (plain, scram-sha-256 or scram-sha-512)." }}
{{- end }}
{{- if and .mechanism (not .username) }}
{{- fail "kafka.sasl.username: required with kafka.sasl.mechanism." }}
{{- end }}
{{- if and .mechanism (not (or .password .existingSecret)) }}
{{- fail "kafka.sasl: set kafka.sasl.existingSecret (the password under existingSecretKey) or kafka.sasl.password." }}
{{- end }}
{{- end }}
{{- if and $v.secrets.adminToken (lt (len $v.secrets.adminToken) 32) }}
{{- fail "secrets.adminToken: at least 32 characters (the gateway refuses a shorter or patterned token); generate one with `openssl rand -hex 32`, or leave it empty for a generated one." }}
{{- end }}
{{- if not (or $v.mongodb.url $v.mongodb.existingSecret) }}
{{- fail "mongodb: set mongodb.url or mongodb.existingSecret. The read model, merchants, deliveries and cursors live in MongoDB." }}
{{- end }}
{{- if and $v.eventStore.enabled (not (or $v.eventStore.url $v.eventStore.existingSecret)) }}
{{- fail "eventStore.enabled: set eventStore.url or eventStore.existingSecret." }}
{{- end }}
{{- if and (not $v.eventStore.enabled) (not $v.paymentCommand.persistence.enabled) }}
{{- fail "paymentCommand.persistence.enabled: without EventStoreDB (eventStore.enabled) payment-command's volume holds every payment's events, the source of truth: it must be persistent." }}
{{- end }}
{{- if and (or $v.wallet.tronAccountXpub $v.wallet.solanaSeed) (not (and $v.wallet.tronAccountXpub $v.wallet.solanaSeed)) }}
{{- fail "wallet: set both wallet.tronAccountXpub and wallet.solanaSeed (or wallet.existingSecret)." }}
{{- end }}
{{- if and $v.wallet.fileKey (not $v.wallet.existingSecret) }}
{{- fail "wallet.fileKey: names a key of wallet.existingSecret; set wallet.existingSecret too." }}
{{- end }}
{{- /* the services refuse settings of networks they do not serve; say so before installing */}}
{{- range $setting := list "requiredConfirmations" "rpc.endpoints" "rpc.pollIntervalMs" "rpc.startHeights" }}
{{- $map := ternary (index $v.chains $setting | default dict) (index $v.chains.rpc (trimPrefix "rpc." $setting) | default dict) (not (hasPrefix "rpc." $setting)) }}
{{- range $network, $_ := $map }}
{{- if not (has $network $v.chains.networks) }}
{{- fail (printf "chains.%s.%s: %s is not in chains.networks (%s)." $setting $network $network (join ", " $v.chains.networks)) }}
{{- end }}
{{- end }}
{{- end }}
{{- if eq $v.chains.mode "rpc" }}
{{- if not $v.chains.rpc.existingSecret }}
{{- range $network := $v.chains.networks }}
{{- $given := get $v.chains.rpc.endpoints $network | default dict }}
{{- range $endpoint := ternary $given (list $given) (kindIs "slice" $given) }}
{{- if not (get $endpoint "url") }}
{{- fail (printf "chains.rpc.endpoints.%s.url: required in rpc mode, for each endpoint (or put %s_RPC_URL into chains.rpc.existingSecret)." $network $network) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- range $service := list "gateway" "projection" "notifier" }}
{{- $values := index $v $service }}
{{- $fewest := ternary $values.autoscaling.minReplicas $values.replicas $values.autoscaling.enabled | int }}
{{- if and $values.pdb.enabled (not (kindIs "string" $values.pdb.minAvailable)) (gt $fewest 1) (ge (int $values.pdb.minAvailable) $fewest) }}
{{- fail (printf "%s.pdb.minAvailable: %d, but %s may run as few as %d replicas: the budget would block every node drain. Lower it." $service (int $values.pdb.minAvailable) $service $fewest) }}
{{- end }}
{{- end }}
{{- range $service := list "projection" "notifier" }}
{{- $values := index $v $service }}
{{- $most := ternary $values.autoscaling.maxReplicas $values.replicas $values.autoscaling.enabled }}
{{- if gt (int $most) (int $v.kafka.topicPartitions) }}
{{- fail (printf "%s: %d replicas but kafka.topicPartitions is %d. A consumer group never has more active members than partitions: lower the replicas, or create the topics with more partitions and raise kafka.topicPartitions." $service (int $most) (int $v.kafka.topicPartitions)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* a scheduling field as YAML: the service's own value, else the chart-wide default; empty if neither */}}
{{- define "chainpay.scheduling" -}}
{{- $value := index .values .field | default (index .root.Values .field) }}
{{- if $value }}
{{- dict .field $value | toYaml }}
{{- end }}
{{- end }}
