// ADMIN_TOKEN in a service's configuration, the bearer token of the admin API: required, and strong
// (its rules are @chainpay/platform's admin-token.ts; the operator's tools read it with admin-token-source.ts).

import { adminTokenProblem, type EnvReader } from '@chainpay/platform'

export function readAdminToken(read: EnvReader): string {
  const token = read.string('ADMIN_TOKEN')
  if (token !== '') checkAdminToken(read, token)
  return token
}

/** records the problem with a configured token (standalone's optional one included), never the token */
export function checkAdminToken(read: EnvReader, token: string): void {
  const problem = adminTokenProblem(token)
  if (problem !== null) read.problem(`ADMIN_TOKEN: ${problem}`)
}
