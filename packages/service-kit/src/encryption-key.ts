// CHAINPAY_ENCRYPTION_KEY, read by every deployable that seals or opens merchants' secrets.

import { createSecretBox, type EnvReader } from '@chainpay/platform'

/** the key, checked now, so that a bad key stops the start instead of the first sealed secret */
export function readEncryptionKey(read: EnvReader): string {
  const key = read.string('CHAINPAY_ENCRYPTION_KEY')
  if (key === '') return key
  try {
    createSecretBox(key)
  } catch (error) {
    read.problem(`CHAINPAY_ENCRYPTION_KEY: ${(error as Error).message}`)
  }
  return key
}
