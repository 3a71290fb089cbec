// `chainpay-wallet sign` and `keys` run with a mnemonic in memory: before either reads any key it
// makes every way out of the process fail (docs/treasury.md, "The key ceremony"). A dependency that
// tried to phone home would get an error instead of a connection. This is a second line: the
// signing machine should have no network at all.

import { createRequire, syncBuiltinESMExports } from 'node:module'

// the builtins' own module objects, whose properties every importer reads
const require = createRequire(import.meta.url)
const dgram = require('node:dgram') as typeof import('node:dgram')
const dns = require('node:dns') as typeof import('node:dns')
const net = require('node:net') as typeof import('node:net')
const tls = require('node:tls') as typeof import('node:tls')

export class NetworkRefusedError extends Error {
  readonly code = 'ERR_CHAINPAY_OFFLINE'
  constructor(command: string, what: string) {
    super(`chainpay-wallet ${command} works offline: ${what} refused`)
  }
}

let installed = false

/**
 * makes sockets, TLS, DNS, UDP, fetch and WebSocket throw for the rest of the process, naming
 * `command` (the first one's); idempotent
 */
export function refuseNetwork(command: string): void {
  if (installed) return
  installed = true
  const refuse = (what: string) => () => {
    throw new NetworkRefusedError(command, what)
  }
  net.connect = refuse('net.connect') as typeof net.connect
  net.createConnection = refuse('net.createConnection') as typeof net.createConnection
  net.Socket.prototype.connect = refuse('net.Socket.connect') as typeof net.Socket.prototype.connect
  tls.connect = refuse('tls.connect') as typeof tls.connect
  dgram.createSocket = refuse('dgram.createSocket') as typeof dgram.createSocket
  for (const name of ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'resolveAny'] as const) {
    ;(dns as unknown as Record<string, unknown>)[name] = refuse(`dns.${name}`)
    ;(dns.promises as unknown as Record<string, unknown>)[name] = async () => {
      throw new NetworkRefusedError(command, `dns.promises.${name}`)
    }
  }
  globalThis.fetch = async () => {
    throw new NetworkRefusedError(command, 'fetch')
  }
  Object.defineProperty(globalThis, 'WebSocket', {
    value: refuse('WebSocket'),
    configurable: true,
    writable: true,
  })
  // named ESM imports of node: builtins are copies: bring them in line with the patched objects
  syncBuiltinESMExports()
}
