{{/*
The environment of each service beyond its ConfigMaps: the secrets it needs, and nothing it does
not (the wallet reaches payment-command only, the RPC endpoints the chain-indexer only).
Context: dict root, service.
*/}}

{{- define "chainpay.secretEnv" -}}
{{- $root := .root }}
{{- $v := .root.Values }}
- name: MONGODB_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.mongodbSecretName" $root }}
      key: {{ include "chainpay.mongodbSecretKey" $root }}
{{- if $v.kafka.sasl.mechanism }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.kafkaSaslSecretName" $root }}
      key: {{ include "chainpay.kafkaSaslSecretKey" $root }}
{{- end }}
{{- /* payment-command seals merchants' own Solana seeds (docs/security.md, "Merchant wallets") */}}
{{- if has .service (list "gateway" "notifier" "payment-command") }}
- name: CHAINPAY_ENCRYPTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.appSecretName" $root }}
      key: CHAINPAY_ENCRYPTION_KEY
{{- /* during a key rotation only (docs/operations.md, "Rotating the encryption key") */}}
- name: CHAINPAY_ENCRYPTION_KEY_PREVIOUS
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.appSecretName" $root }}
      key: CHAINPAY_ENCRYPTION_KEY_PREVIOUS
      optional: true
{{- end }}
{{- if eq .service "gateway" }}
- name: ADMIN_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.appSecretName" $root }}
      key: ADMIN_TOKEN
{{- end }}
{{- /* the command API's token: its one caller and payment-command, nobody else */}}
{{- if has .service (list "gateway" "payment-command") }}
- name: COMMAND_API_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.appSecretName" $root }}
      key: COMMAND_API_TOKEN
{{- end }}
{{- /* simulated chains: the simulator's routes on the chain-indexer, and the gateway forwarding to them */}}
{{- if and (eq $v.chains.mode "simulator") (has .service (list "gateway" "chain-indexer")) }}
- name: SIMULATOR_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.appSecretName" $root }}
      key: SIMULATOR_TOKEN
{{- end }}
{{- /* every service serves /metrics off loopback, behind this token */}}
- name: METRICS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.appSecretName" $root }}
      key: METRICS_TOKEN
{{- if eq .service "payment-command" }}
{{- if $v.eventStore.enabled }}
- name: EVENTSTORE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.eventStoreSecretName" $root }}
      key: {{ include "chainpay.eventStoreSecretKey" $root }}
{{- end }}
{{- if $v.wallet.fileKey }}
- name: WALLET_FILE
  value: /etc/chainpay/wallet/wallet.json
{{- else }}
{{- /* optional: without them payment-command itself says which key material is missing */}}
- name: TRON_ACCOUNT_XPUB
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.walletSecretName" $root }}
      key: TRON_ACCOUNT_XPUB
      optional: true
- name: SOLANA_SEED
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.walletSecretName" $root }}
      key: SOLANA_SEED
      optional: true
{{- end }}
{{- end }}
{{- if and (eq .service "chain-indexer") (eq $v.chains.mode "rpc") }}
{{- range $network := $v.chains.networks }}
- name: {{ $network }}_RPC_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.rpcSecretName" $root }}
      key: {{ $network }}_RPC_URL
{{- if hasPrefix "TRON" $network }}
- name: {{ $network }}_SOLIDITY_RPC_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.rpcSecretName" $root }}
      key: {{ $network }}_SOLIDITY_RPC_URL
      optional: true
- name: {{ $network }}_RPC_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.rpcSecretName" $root }}
      key: {{ $network }}_RPC_API_KEY
      optional: true
{{- else }}
- name: {{ $network }}_WS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "chainpay.rpcSecretName" $root }}
      key: {{ $network }}_WS_URL
      optional: true
{{- end }}
{{- end }}
{{- end }}
{{- end }}
