// What `scripts/start --help` prints: standalone takes no arguments, only environment variables; the
// full table is docs/operations.md, "Standalone".

export const STANDALONE_USAGE = `Usage: scripts/start            (or: node services/standalone/dist/main.js)

Runs chainpay standalone: the five services in one process on one SQLite file in DATA_DIR, with
simulated TRON and Solana (CHAIN_MODE=simulator, the default) or real nodes (CHAIN_MODE=rpc).
It takes no arguments: it is configured by environment variables, for example

  PORT=8080          merchant API, the customer's page (/pay/*) and, simulated, /dev/chains/*, /dev/rates
  HOST=127.0.0.1     address the merchant API binds
  ADMIN_PORT=8081    admin API (scripts/admin, scripts/wallet)
  ADMIN_HOST=127.0.0.1  address the admin API binds: keep it private
  METRICS_PORT=9464  /metrics (METRICS_HOST=127.0.0.1)
  DATA_DIR=./data    secrets, wallet, database, demo merchant (created on the first start)
  PUBLIC_URL=http://localhost:PORT  where customers open the payment pages (checkoutUrl)
  CHAIN_MODE=simulator | rpc
  LOG_LEVEL=info

Every port must be free: a port in use stops the start before anything is written, naming the
variable to change. All variables: docs/operations.md, "Standalone"; going live: docs/going-live.md.`
