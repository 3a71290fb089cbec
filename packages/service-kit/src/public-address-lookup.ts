// Outgoing requests to addresses an operator or a merchant names (webhook targets, merchants' logos)
// must not reach a loopback, private, link-local or metadata address through what a name resolves
// to. The resolved addresses are checked inside the connection's own lookup, so the address checked
// is the address connected to (a DNS answer cannot change in between).

import { lookup } from 'node:dns/promises'
import { isIP, type LookupFunction } from 'node:net'
import { isNonPublicAddress } from '@chainpay/domain'

/**
 * the error a refused name fails the connection with: its message names the host but not what it
 * resolved to, which may be an internal address a merchant must not learn (docs/security.md,
 * "Webhooks"); `resolvedAddresses` is for the operator's logs only
 */
export class NotPublicAddressError extends Error {
  override readonly name = 'NotPublicAddressError'
  readonly code = 'ENOTPUBLIC'
  constructor(
    what: string,
    readonly hostname: string,
    readonly resolvedAddresses: readonly string[],
  ) {
    super(`${what} ${hostname} is not a public address`)
  }
}

/** the addresses a host name resolves to */
export type ResolveHost = (host: string) => Promise<string[]>

export const resolveHostWithDns: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * a socket lookup that resolves with `resolveHost` and refuses names that reach non-public addresses;
 * `what` names the destination in errors, e.g. "webhook target"
 */
export function publicAddressLookup(resolveHost: ResolveHost, what: string): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const refused = addresses.find((address) => isNonPublicAddress(address))
        if (addresses.length === 0 || refused !== undefined) {
          callback(new NotPublicAddressError(what, hostname, addresses), '')
          return
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }))
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined
        const usable = wanted === undefined ? entries : entries.filter((entry) => entry.family === wanted)
        const first = usable[0]
        if (first === undefined) {
          callback(
            Object.assign(new Error(`${what} ${hostname} has no IPv${wanted} address`), {
              code: 'ENOTFOUND',
            }),
            '',
          )
        } else if (options.all) {
          callback(null, usable)
        } else {
          callback(null, first.address, first.family)
        }
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    )
  }
}
