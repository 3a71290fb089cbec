// CHAINPAY_ENCRYPTION_KEY and CHAINPAY_ENCRYPTION_KEY_PREVIOUS, read by every deployable that seals or
// opens merchants' secrets. The current key seals; the previous ones only open what they sealed, until
// `chainpay-admin secrets reseal` has moved every value to the current key (docs/operations.md,
// "Rotating the encryption key").

import { type EnvReader, type SecretKeys, secretKeyProblem } from '@chainpay/platform'

export interface EncryptionKeys extends SecretKeys {
  previous: string[]
  unbound: 'open' | 'refuse'
}

/** the keys, checked now, so that a bad key stops the start instead of the first sealed secret */
export function readEncryptionKeys(read: EnvReader): EncryptionKeys {
  const current = read.string('CHAINPAY_ENCRYPTION_KEY')
  if (current !== '') {
    const problem = secretKeyProblem(current)
    if (problem !== null) read.problem(`CHAINPAY_ENCRYPTION_KEY: ${problem}`)
  }
  return { current, previous: readPreviousEncryptionKeys(read), unbound: readUnboundSecrets(read) }
}

/**
 * CHAINPAY_UNBOUND_SECRETS: `open` (default) opens values sealed before they were bound to their row
 * (the v1 format); `refuse`, once `chainpay-admin secrets reseal` has moved them all, opens none, so
 * that such a value copied into another row cannot be used there
 */
export function readUnboundSecrets(read: EnvReader): 'open' | 'refuse' {
  return read.oneOf('CHAINPAY_UNBOUND_SECRETS', ['open', 'refuse'] as const, { default: 'open' })
}

/**
 * CHAINPAY_ENCRYPTION_KEY_PREVIOUS: the keys that sealed values before the current one, comma
 * separated (base64 and hex have no comma); empty when unset. A bad key is named by its position,
 * never repeated.
 */
export function readPreviousEncryptionKeys(read: EnvReader): string[] {
  const keys = read.list('CHAINPAY_ENCRYPTION_KEY_PREVIOUS', { default: [] })
  keys.forEach((key, index) => {
    const problem = secretKeyProblem(key)
    if (problem !== null)
      read.problem(`CHAINPAY_ENCRYPTION_KEY_PREVIOUS (key ${index + 1} of ${keys.length}): ${problem}`)
  })
  return keys
}
