// What a test file asks for: the run's servers (started on demand by global-setup.ts), and names that
// are its own so that files running side by side never share a topic, group or database.
//
// Importing this module waits until the servers answer (a top-level await): a file that uses them
// imports it, and only such a file waits for Kafka and FerretDB to start. A file that needs no shared
// server imports nothing from here (uniqueName also comes from @chainpay/local-servers).

import { setTimeout as sleep } from 'node:timers/promises'
import { inject } from 'vitest'

export { uniqueName } from '../names.js'

/** what global-setup.ts answers once the servers run */
export interface ProvidedServers {
  kafkaBrokers: string
  mongodbUrl: string
  /** null when there is no EventStoreDB to test against; then eventstoreSkipReason says why */
  eventstoreUrl: string | null
  eventstoreSkipReason: string | null
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** where global-setup.ts hands out the run's servers, starting them on the first request */
    testServersUrl: string
  }
}

async function runServers(): Promise<ProvidedServers> {
  const url = inject('testServersUrl')
  if (!url) {
    throw new Error(
      'no test servers in this vitest project: only the projects that list packages/local-servers/src/testing/global-setup.ts as globalSetup (int, e2e) have them',
    )
  }
  for (;;) {
    const response = await fetch(url)
    const body = (await response.json()) as ProvidedServers | { starting: true } | { error: string }
    if (response.status === 200) return body as ProvidedServers
    if (response.status !== 202) {
      throw new Error(
        `the test servers could not start: ${(body as { error?: string }).error ?? response.status}`,
      )
    }
    // the endpoint held the request as long as it could; the servers are still starting
    await sleep(50)
  }
}

const servers = await runServers()

export function testKafkaBrokers(): string[] {
  return servers.kafkaBrokers.split(',')
}

export function testMongoDbUrl(): string {
  return servers.mongodbUrl
}

/** the EventStoreDB connection string, or null with the reason the suite is skipped */
export function testEventStore(): { url: string; skipReason: null } | { url: null; skipReason: string } {
  if (servers.eventstoreUrl) return { url: servers.eventstoreUrl, skipReason: null }
  return { url: null, skipReason: servers.eventstoreSkipReason ?? 'no EventStoreDB' }
}
