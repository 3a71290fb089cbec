// The public port's connections per client address (docs/operations.md, "HTTP limits"). The request
// rate limits never see a caller that opens connections and sends one request on each, or none:
// without a cap per address, 1,000 idle connections from one address took every slot of the port
// and everyone else's connections were reset. IPv6 addresses count per /64, as the rate limits do:
// one host usually holds the whole prefix.

import type { Server } from 'node:http'
import { isIPv6, type Socket } from 'node:net'

/** why a connection was closed as it arrived */
export type ConnectionRefusal = 'per_address' | 'port_full'

export interface ConnectionsPerAddressOptions {
  /** open connections one address may hold; more are closed as they arrive */
  max: number
  /** a connection was closed as it arrived; `address` is its address group (addressGroupOf) */
  refused?: (reason: ConnectionRefusal, address: string) => void
}

/**
 * Closes at once the connections of an address that holds `max` already. Also reports the ones
 * Node closes because the port holds `server.maxConnections`, which never reach 'connection'.
 */
export function limitConnectionsPerAddress(server: Server, options: ConnectionsPerAddressOptions): void {
  const open = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    // undefined once the peer has reset it: Node closes such a socket itself
    if (socket.remoteAddress === undefined) return
    const address = addressGroupOf(socket.remoteAddress)
    const held = open.get(address) ?? 0
    if (held >= options.max) {
      socket.destroy()
      options.refused?.('per_address', address)
      return
    }
    open.set(address, held + 1)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left > 0) open.set(address, left)
      else open.delete(address)
    })
  })
  server.on('drop', (data?: { remoteAddress?: string }) => {
    options.refused?.('port_full', addressGroupOf(data?.remoteAddress ?? ''))
  })
}

/**
 * What counts as one client: an IPv4 address as it is ('::ffff:203.0.113.9' is 203.0.113.9), an IPv6
 * address by its /64 in compressed lower-case form ('2001:db8:0:1::/64'), zone ids left out.
 */
export function addressGroupOf(address: string): string {
  const withoutZone = address.split('%')[0] ?? ''
  if (!isIPv6(withoutZone)) return withoutZone
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(withoutZone)
  if (mapped?.[1] !== undefined) return mapped[1]
  const [head = '', tail] = withoutZone.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':')
  // a dotted IPv4 tail (::1.2.3.4, 64:ff9b::1.2.3.4) fills the last two groups, never the first four
  const tailCount = tailGroups.length + (tailGroups.at(-1)?.includes('.') ? 1 : 0)
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array<string>(8 - headGroups.length - tailCount).fill('0'), ...tailGroups]
  const prefix = groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16))
  return `${compressed(prefix)}/64`
}

/** the four groups of a /64 written with '::' for the rest, as `2001:db8::/64` or `2001:db8:0:1::/64` */
function compressed(prefix: string[]): string {
  // the trailing zero groups join the 64 zero bits that follow
  let end = prefix.length
  while (end > 0 && prefix[end - 1] === '0') end -= 1
  return `${prefix.slice(0, end).join(':')}::`
}
