// vitest globalSetup: one Kafka, one MongoDB-wire server and (where possible) one EventStoreDB per
// test run, handed to the test files through provide/inject and stopped afterwards. Test files keep
// out of each other's way with their own topics and databases (see testing/servers.ts).

import type { TestProject } from 'vitest/node'
import { startTestServers } from '../test-servers.js'

export default async function setup(project: TestProject) {
  const servers = await startTestServers()
  project.provide('kafkaBrokers', servers.kafkaBrokers)
  project.provide('mongodbUrl', servers.mongodbUrl)
  project.provide('eventstoreUrl', servers.eventstoreUrl)
  project.provide('eventstoreSkipReason', servers.eventstoreSkipReason)
  process.stdout.write(
    `[chainpay] test servers: Kafka ${servers.kafkaBrokers} (${servers.kafkaSource}), MongoDB ${servers.mongodbUrl} (${servers.mongodbSource}), EventStoreDB ${servers.eventstoreUrl ?? `skipped: ${servers.eventstoreSkipReason}`}\n`,
  )
  return async () => {
    await servers.stop()
  }
}
