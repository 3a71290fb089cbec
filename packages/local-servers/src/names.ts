import { randomBytes } from 'node:crypto'

/** a name no other test uses: `${prefix}-<random>` (lower case, digits, dashes) */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`
}
