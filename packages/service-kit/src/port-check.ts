// Whether a deployable's ports are free, asked before it writes anything: standalone's first start
// creates secrets, a wallet, a database and a demo merchant, and must not leave them behind for a
// port it could never listen on (docs/operations.md, "Standalone"). The listeners still report a port
// taken in between (http-service.ts); this only makes the usual case fail first and name the setting.

import { createServer } from 'node:net'

export interface PortClaim {
  /** the variable that sets it: PORT, ADMIN_PORT, METRICS_PORT */
  variable: string
  host: string
  /** 0: no listener of its own, nothing to check */
  port: number
}

const REASONS: Record<string, string> = {
  EADDRINUSE: 'is in use',
  EACCES: 'needs privileges this process lacks',
  EADDRNOTAVAIL: 'is on an address that is not one of this machine',
}

/**
 * The first port of `claims` that cannot be listened on, as an operator's sentence naming its
 * variable ("port 8081 (ADMIN_PORT) on 127.0.0.1 is in use (EADDRINUSE): set ADMIN_PORT to a free
 * port"), or undefined when all can. Each is bound and released at once.
 */
export async function unavailablePort(claims: readonly PortClaim[]): Promise<string | undefined> {
  for (const claim of claims) {
    if (claim.port === 0) continue
    const code = await bindError(claim.host, claim.port)
    if (code === undefined) continue
    const reason = REASONS[code] ?? 'cannot be listened on'
    const where = claim.host.includes(':') ? `[${claim.host}]` : claim.host
    const fix =
      code === 'EADDRNOTAVAIL'
        ? `set the host it listens on to one of this machine's addresses`
        : code === 'EACCES'
          ? `set ${claim.variable} to a free port above 1023`
          : `set ${claim.variable} to a free port`
    return `port ${claim.port} (${claim.variable}) on ${where} ${reason} (${code}): ${fix}`
  }
  return undefined
}

/** the error code of listening on host:port, or undefined when it could */
function bindError(host: string, port: number): Promise<string | undefined> {
  const probe = createServer()
  return new Promise((resolve) => {
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EUNKNOWN'))
    // exclusive: a port another process holds in a cluster would otherwise look free
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(undefined)))
  })
}
