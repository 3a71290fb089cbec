# shellcheck shell=bash
# Sourced by scripts/admin and scripts/wallet after runtime.sh: points the admin API's clients at
# the instance scripts/start runs with the same environment. DATA_DIR as scripts/start takes it
# (default ./data of the repository; a relative one from the caller's directory), the admin token
# from DATA_DIR/standalone-secrets.json unless CHAINPAY_ADMIN_TOKEN is set, and the admin API at
# ADMIN_HOST:ADMIN_PORT (defaults 127.0.0.1:8081) unless CHAINPAY_ADMIN_URL is set.

# $1: the caller's directory
chainpay_admin_client_env() {
  local caller_dir="$1"
  if [ -n "${DATA_DIR:-}" ]; then
    case "$DATA_DIR" in /*) ;; *) DATA_DIR="$caller_dir/$DATA_DIR" ;; esac
  else
    DATA_DIR="$CHAINPAY_ROOT/data"
  fi
  local secrets_file="$DATA_DIR/standalone-secrets.json"
  if [ -z "${CHAINPAY_ADMIN_TOKEN:-}" ] && [ -f "$secrets_file" ]; then
    # into the environment, which only this user's processes can read; never onto a command line
    CHAINPAY_ADMIN_TOKEN="$(node -e 'process.stdout.write(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).adminToken)' "$secrets_file")"
    export CHAINPAY_ADMIN_TOKEN
  fi
  if [ -z "${CHAINPAY_ADMIN_URL:-}" ]; then
    local host="${ADMIN_HOST:-127.0.0.1}"
    # the address it listens on, as one to connect to: every interface is reached on loopback
    case "$host" in
      0.0.0.0) host=127.0.0.1 ;;
      :: | "[::]") host="[::1]" ;;
      \[*) ;;
      *:*) host="[$host]" ;;
    esac
    CHAINPAY_ADMIN_URL="http://$host:${ADMIN_PORT:-8081}"
    export CHAINPAY_ADMIN_URL
  fi
}
