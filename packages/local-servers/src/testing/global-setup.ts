// vitest globalSetup: one Kafka, one MongoDB-wire server and (where possible) one EventStoreDB per
// test run, handed to the test files through provide/inject and stopped afterwards. Test files keep
// out of each other's way with their own topics and databases (see testing/servers.ts).
//
// Each project that lists this file (int, e2e) runs it; the servers are started once and shared,
// held on globalThis because each project may load this module anew, and stopped by the last one.

import type { TestProject } from 'vitest/node'
import { startTestServers, type TestServers } from '../test-servers.js'

interface SharedServers {
  servers: Promise<TestServers>
  users: number
}

const KEY = Symbol.for('chainpay.test-servers')
const holder = globalThis as { [KEY]?: SharedServers }

export default async function setup(project: TestProject) {
  let shared = holder[KEY]
  if (!shared) {
    shared = { servers: startTestServers(), users: 0 }
    holder[KEY] = shared
    void shared.servers.then((servers) =>
      process.stdout.write(
        `[chainpay] test servers: Kafka ${servers.kafkaBrokers} (${servers.kafkaSource}), MongoDB ${servers.mongodbUrl} (${servers.mongodbSource}), EventStoreDB ${servers.eventstoreUrl ?? `skipped: ${servers.eventstoreSkipReason}`}\n`,
      ),
    )
  }
  shared.users += 1
  const servers = await shared.servers
  project.provide('kafkaBrokers', servers.kafkaBrokers)
  project.provide('mongodbUrl', servers.mongodbUrl)
  project.provide('eventstoreUrl', servers.eventstoreUrl)
  project.provide('eventstoreSkipReason', servers.eventstoreSkipReason)
  return async () => {
    const current = holder[KEY]
    if (!current) return
    current.users -= 1
    if (current.users > 0) return
    delete holder[KEY]
    await (await current.servers).stop()
  }
}
