// What a test file asks for: the run's servers (provided by global-setup.ts), and names that are its
// own so that files running side by side never share a topic, group or database.

import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string
    mongodbUrl: string
    eventstoreUrl: string | null
    eventstoreSkipReason: string | null
  }
}

export function testKafkaBrokers(): string[] {
  return inject('kafkaBrokers').split(',')
}

export function testMongoDbUrl(): string {
  return inject('mongodbUrl')
}

/** the EventStoreDB connection string, or null with the reason the suite is skipped */
export function testEventStore(): { url: string; skipReason: null } | { url: null; skipReason: string } {
  const url = inject('eventstoreUrl')
  if (url) return { url, skipReason: null }
  return { url: null, skipReason: inject('eventstoreSkipReason') ?? 'no EventStoreDB' }
}

/** a name no other test uses: `${prefix}-<random>` (lower case, digits, dashes) */
export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`
}
