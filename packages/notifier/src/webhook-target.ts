// Where a webhook may go. In production configuration a target must be https and must not reach a
// loopback, private, link-local or metadata address, neither by its literal host nor by what its
// name resolves to (service-kit's publicAddressLookup checks the address connected to).

import type { LookupFunction } from 'node:net'
import { callbackUrlProblem } from '@chainpay/domain'
import { publicAddressLookup as lookupPublicAddress, type ResolveHost } from '@chainpay/service-kit'

export { type ResolveHost, resolveHostWithDns } from '@chainpay/service-kit'

/** null when a webhook may be sent to `url`, otherwise why not */
export function webhookTargetProblem(url: string, options: { allowPrivateTargets: boolean }): string | null {
  const problem = callbackUrlProblem(url, { allowInsecure: options.allowPrivateTargets })
  return problem === null ? null : `webhook target ${problem}`
}

/** a socket lookup that resolves with `resolveHost` and refuses names that reach non-public addresses */
export function publicAddressLookup(resolveHost: ResolveHost): LookupFunction {
  return lookupPublicAddress(resolveHost, 'webhook target')
}
