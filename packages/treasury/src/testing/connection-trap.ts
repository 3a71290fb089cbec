// A listener on loopback that counts every connection it receives and drops it: where a command
// that must stay offline would connect, the count says whether it did (offline-guard.ts).

import { createServer } from 'node:net'

export interface ConnectionTrap {
  port: number
  /** connections received so far */
  connections(): number
  close(): Promise<void>
}

export async function startConnectionTrap(): Promise<ConnectionTrap> {
  let connections = 0
  const server = createServer((socket) => {
    connections += 1
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
