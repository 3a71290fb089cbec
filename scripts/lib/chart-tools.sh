# shellcheck shell=bash
# Sourced by scripts/check-chart (after runtime.sh). Installs the pinned chart tools into the
# project's cache (CHAINPAY_CACHE_DIR, else $XDG_CACHE_HOME/chainpay, else ~/.cache/chainpay, as
# packages/local-servers does): helm and kubeconform built with `go install` from the Go module
# proxy, and the Kubernetes JSON schemas kubeconform validates against, generated offline from the
# OpenAPI document that ships inside the k8s.io/kubernetes module (plus the prometheus-operator CRDs
# for the optional ServiceMonitor and PrometheusRule). Each step checks before it acts: once cached,
# nothing is downloaded or built again (docs/deploy.md, "What the chart checks in CI").

CHART_HELM_VERSION="v3.21.4"
CHART_KUBECONFORM_VERSION="v0.7.0"
# the Kubernetes release whose API the manifests are validated against (helm's client-go is v0.36)
CHART_KUBERNETES_VERSION="1.36.3"
CHART_PROMETHEUS_OPERATOR_VERSION="v0.85.0"

chart_cache_dir() {
  if [ -n "${CHAINPAY_CACHE_DIR:-}" ]; then
    printf '%s\n' "$CHAINPAY_CACHE_DIR"
  else
    printf '%s\n' "${XDG_CACHE_HOME:-$HOME/.cache}/chainpay"
  fi
}

require_go() {
  command -v go >/dev/null 2>&1 || {
    log "Go 1.26+ is needed once to build helm and kubeconform (go install from the Go module proxy)"
    exit 1
  }
}

# go install <package>@<version> into <dir>, atomically: a half-built tool is never left behind.
# Extra arguments go to go install (ldflags).
go_install_into() {
  local dir="$1" package="$2"
  shift 2
  local staging="$dir.partial.$$"
  rm -rf "$staging"
  mkdir -p "$staging"
  # go's download lines only matter when the build fails
  if ! GOBIN="$staging" CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
    go install -trimpath "$@" "$package" >"$staging.log" 2>&1; then
    cat "$staging.log" >&2
    rm -rf "$staging" "$staging.log"
    log "could not build $package (needs Go and the Go module proxy)"
    exit 1
  fi
  rm -f "$staging.log"
  rm -rf "$dir"
  mv "$staging" "$dir"
}

# Prints the path of the pinned helm binary, building it the first time (several minutes).
ensure_helm() {
  local dir binary
  dir="$(chart_cache_dir)/helm-$CHART_HELM_VERSION"
  binary="$dir/helm"
  if [ ! -x "$binary" ]; then
    require_go
    log "building helm $CHART_HELM_VERSION with go install into $dir (first run only; takes minutes)"
    # the release Makefile's ldflags, which go install does not apply: the version helm reports and
    # the Kubernetes version it assumes (1.20 otherwise) for .Capabilities and lint's deprecations
    local ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$CHART_HELM_VERSION"
    local pkg
    for pkg in helm.sh/helm/v3/pkg/chartutil helm.sh/helm/v3/pkg/lint/rules; do
      ldflags="$ldflags -X $pkg.k8sVersionMajor=${CHART_KUBERNETES_VERSION%%.*}"
      ldflags="$ldflags -X $pkg.k8sVersionMinor=$(echo "$CHART_KUBERNETES_VERSION" | cut -d. -f2)"
    done
    go_install_into "$dir" "helm.sh/helm/v3/cmd/helm@$CHART_HELM_VERSION" -ldflags "$ldflags"
  fi
  printf '%s\n' "$binary"
}

# Prints the path of the pinned kubeconform binary, building it the first time.
ensure_kubeconform() {
  local dir binary
  dir="$(chart_cache_dir)/kubeconform-$CHART_KUBECONFORM_VERSION"
  binary="$dir/kubeconform"
  if [ ! -x "$binary" ]; then
    require_go
    log "building kubeconform $CHART_KUBECONFORM_VERSION with go install into $dir (first run only)"
    go_install_into "$dir" "github.com/yannh/kubeconform/cmd/kubeconform@$CHART_KUBECONFORM_VERSION" -ldflags "-s -w"
  fi
  printf '%s\n' "$binary"
}

# The directory of a Go module's files, downloaded through the module proxy into Go's module cache.
go_module_dir() {
  local module="$1" answer dir
  require_go
  answer="$(cd "$(chart_cache_dir)" && go mod download -json "$module")" || {
    log "could not download the Go module $module through the Go module proxy"
    exit 1
  }
  dir="$(printf '%s\n' "$answer" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    log "go mod download $module named no directory"
    exit 1
  fi
  printf '%s\n' "$dir"
}

# Prints kubeconform's -schema-location: a directory holding
# v<kubernetes>-standalone-strict/<kind>-<group>-<version>.json for every Kubernetes kind and for
# the prometheus-operator CRDs, generated once and offline from the sources on the Go module proxy.
ensure_kube_schemas() {
  local dir
  dir="$(chart_cache_dir)/kube-schemas-v$CHART_KUBERNETES_VERSION-prometheus-operator-$CHART_PROMETHEUS_OPERATOR_VERSION"
  if [ ! -f "$dir/v$CHART_KUBERNETES_VERSION-standalone-strict/deployment-apps-v1.json" ]; then
    log "generating Kubernetes $CHART_KUBERNETES_VERSION JSON schemas into $dir (first run only)"
    local kubernetes operator staging="$dir.partial.$$"
    kubernetes="$(go_module_dir "k8s.io/kubernetes@v$CHART_KUBERNETES_VERSION")"
    operator="$(go_module_dir "github.com/prometheus-operator/prometheus-operator@$CHART_PROMETHEUS_OPERATOR_VERSION")"
    rm -rf "$staging"
    mkdir -p "$staging/v$CHART_KUBERNETES_VERSION-standalone-strict"
    node --input-type=module -e "$KUBE_SCHEMA_GENERATOR" \
      "$kubernetes/api/openapi-spec/swagger.json" \
      "$operator/jsonnet/prometheus-operator/servicemonitors-crd.json" \
      "$operator/jsonnet/prometheus-operator/prometheusrules-crd.json" \
      "$staging/v$CHART_KUBERNETES_VERSION-standalone-strict" || {
      rm -rf "$staging"
      log "could not generate the Kubernetes JSON schemas"
      exit 1
    }
    rm -rf "$dir"
    mv "$staging" "$dir"
  fi
  printf '%s\n' "$dir"
}

# Writes kubeconform's "standalone-strict" layout, as openapi2jsonschema does for
# yannh/kubernetes-json-schema: one self-contained file per group/version/kind with the definitions
# it references, apiVersion and kind pinned to that kind, additionalProperties false on every object
# that lists its properties (what -strict means), IntOrString and Quantity accepting numbers too.
# Arguments: swagger.json, then CRD JSON files, then the output directory.
# shellcheck disable=SC2016 # JavaScript, not shell: nothing in it is meant to expand
KUBE_SCHEMA_GENERATOR='
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const args = process.argv.slice(1)
const [swaggerFile, outDir] = [args[0], args.at(-1)]
const crdFiles = args.slice(1, -1)

const strict = (schema) => {
  if (Array.isArray(schema)) return schema.map(strict)
  if (schema === null || typeof schema !== "object") return schema
  const out = {}
  for (const [key, value] of Object.entries(schema)) {
    // property names are data, not schemas: keep their keys, make their values strict
    out[key] = key === "properties" || key === "definitions" || key === "patternProperties"
      ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strict(sub)]))
      : strict(value)
  }
  const open = out["x-kubernetes-preserve-unknown-fields"] === true
  if (out.properties && out.additionalProperties === undefined && !open) out.additionalProperties = false
  return out
}

const fileName = (group, version, kind) =>
  `${kind.toLowerCase()}-${group === "" ? "" : `${group.split(".")[0].toLowerCase()}-`}${version.toLowerCase()}.json`
const apiVersion = (group, version) => (group === "" ? version : `${group}/${version}`)
const pin = (schema, group, version, kind) => {
  const properties = { ...schema.properties }
  properties.apiVersion = { ...properties.apiVersion, type: "string", enum: [apiVersion(group, version)] }
  properties.kind = { ...properties.kind, type: "string", enum: [kind] }
  return { ...schema, properties }
}

let written = 0
const swagger = JSON.parse(readFileSync(swaggerFile, "utf8"))
const definitions = swagger.definitions
definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = { oneOf: [{ type: "string" }, { type: "integer" }] }
definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = { oneOf: [{ type: "string" }, { type: "number" }] }
const refsOf = (schema, found) => {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, found)
  else if (schema && typeof schema === "object") {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "$ref" && typeof value === "string") {
        const name = value.replace("#/definitions/", "")
        if (!found.has(name)) {
          found.add(name)
          refsOf(definitions[name], found)
        }
      } else refsOf(value, found)
    }
  }
  return found
}
for (const [name, definition] of Object.entries(definitions)) {
  for (const gvk of definition["x-kubernetes-group-version-kind"] ?? []) {
    const closure = [...refsOf(definition, new Set())].sort()
    const schema = pin(definition, gvk.group, gvk.version, gvk.kind)
    schema.definitions = Object.fromEntries(closure.map((ref) => [ref, definitions[ref]]))
    writeFileSync(join(outDir, fileName(gvk.group, gvk.version, gvk.kind)), JSON.stringify(strict(schema)))
    written++
  }
  void name
}
for (const file of crdFiles) {
  const crd = JSON.parse(readFileSync(file, "utf8"))
  const { group, names } = crd.spec
  for (const version of crd.spec.versions) {
    const schema = pin(version.schema.openAPIV3Schema, group, version.name, names.kind)
    writeFileSync(join(outDir, fileName(group, version.name, names.kind)), JSON.stringify(strict(schema)))
    written++
  }
}
if (written < 50) throw new Error(`only ${written} schemas written: the OpenAPI document looks wrong`)
console.error(`${written} schemas written`)
'

# Whether each service accepts the environment the chart gives it: the rendered ConfigMaps, Secrets
# and env of one value set, fed to the service's own configuration reader (services/<name>/dist/
# config.js), which names every variable it refuses. Secrets the chart does not render (an
# existingSecret) and optional keys it leaves to the operator get well-formed stand-ins, as the
# operator would provide them. Arguments: the repository root, the directory of the split documents
# (<Kind>-<name>.yaml), the release's full name.
# shellcheck disable=SC2016,SC2034 # JavaScript, not shell; run by scripts/check-chart
CHART_ENV_CHECK='
import { readFileSync, existsSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { randomBytes } from "node:crypto"

const [root, dir, fullname] = process.argv.slice(1)
const { createDevelopmentWallet } = await import(pathToFileURL(join(root, "packages/wallet/dist/index.js")).href)
const wallet = createDevelopmentWallet()
const readers = {
  gateway: "readGatewayConfig",
  "payment-command": "readPaymentCommandConfig",
  "chain-indexer": "readChainIndexerConfig",
  projection: "readProjectionConfig",
  notifier: "readNotifierConfig",
}
// what an operator puts into the Secrets the chart only refers to
const standIn = (key) => {
  if (/MONGODB_URL|connectionString/.test(key)) return "mongodb+srv://chainpay:pw@mongo.example.net/?tls=true"
  if (key === "EVENTSTORE_URL") return "kurrentdb+discover://chainpay:pw@esdb.example.net:2113?tls=true"
  if (key === "CHAINPAY_ENCRYPTION_KEY") return randomBytes(32).toString("base64")
  if (key === "CHAINPAY_ENCRYPTION_KEY_PREVIOUS") return randomBytes(32).toString("base64")
  if (key === "ADMIN_TOKEN") return randomBytes(32).toString("hex")
  if (key === "COMMAND_API_TOKEN" || key === "METRICS_TOKEN" || key === "SIMULATOR_TOKEN") return randomBytes(32).toString("hex")
  if (key === "TRON_ACCOUNT_XPUB") return wallet.tronAccountXpub
  if (key === "SOLANA_SEED") return wallet.solanaSeed
  if (key.endsWith("_SOLIDITY_RPC_URL")) return "https://solidity.node.example/"
  if (key.endsWith("_RPC_URL")) return "https://node.example/key-0000"
  if (key.endsWith("_RPC_API_KEY")) return "00000000-0000-0000-0000-000000000000"
  return undefined
}
const scalar = (text) => (text.startsWith("\"") ? JSON.parse(text) : text.replace(/^\x27(.*)\x27$/, "$1"))
const dataOf = (file) => {
  const data = {}
  let inData = false
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^data:/.test(line)) { inData = true; continue }
    if (/^\S/.test(line)) inData = false
    const entry = inData && /^  ([^\s#][^:]*): (.*)$/.exec(line)
    if (entry) data[entry[1]] = scalar(entry[2])
  }
  return data
}
const secretValue = (name, key) => {
  const file = join(dir, `Secret-${name}.yaml`)
  if (!existsSync(file)) return standIn(key)
  const encoded = dataOf(file)[key]
  return encoded === undefined ? undefined : Buffer.from(encoded, "base64").toString("utf8")
}

let failed = 0
for (const [service, reader] of Object.entries(readers)) {
  const text = readFileSync(join(dir, `Deployment-${fullname}-${service}.yaml`), "utf8")
  const env = {}
  for (const [, name] of text.matchAll(/- configMapRef:\n\s+name: (\S+)/g)) Object.assign(env, dataOf(join(dir, `ConfigMap-${name}.yaml`)))
  const block = /\n( +)env:\n([\s\S]*?)\n\1[a-zA-Z]/.exec(text)?.[2] ?? ""
  const items = []
  for (const line of block.split("\n")) {
    let match
    if ((match = /^\s*- name: (\S+)$/.exec(line))) items.push({ name: match[1] })
    else if ((match = /^\s+value: (.*)$/.exec(line))) items.at(-1).value = scalar(match[1])
    else if ((match = /^\s+name: (\S+)$/.exec(line))) items.at(-1).secret = match[1]
    else if ((match = /^\s+key: (\S+)$/.exec(line))) items.at(-1).key = match[1]
    else if (/^\s+optional: true$/.test(line)) items.at(-1).optional = true
  }
  const problems = []
  for (const item of items) {
    if (item.value !== undefined) { env[item.name] = item.value; continue }
    // an optional key the chart leaves to the operator (the wallet, a TRON API key) is provided
    const value = secretValue(item.secret, item.key) ?? (item.optional ? standIn(item.key) : undefined)
    if (value !== undefined) env[item.name] = value
    else if (!item.optional) problems.push(`Secret ${item.secret} has no key ${item.key}`)
  }
  try {
    const module = await import(pathToFileURL(join(root, `packages/${service}/dist/index.js`)).href)
    const walletJson = JSON.stringify({ tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed })
    // payment-command reads WALLET_FILE through its second argument
    if (service === "payment-command") module[reader](env, () => walletJson)
    else module[reader](env)
  } catch (error) {
    problems.push(String(error.message).replace(/\n/g, "; "))
  }
  if (problems.length === 0) console.log(`ok ${service} (${Object.keys(env).length} variables)`)
  else {
    failed++
    console.log(`FAIL ${service}: ${problems.join("; ")}`)
  }
}
process.exit(failed === 0 ? 0 : 1)
'
