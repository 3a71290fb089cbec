// vitest globalSetup: one Kafka, one MongoDB-wire server and (where possible) one EventStoreDB per
// test run, shared by the test files and stopped afterwards. Test files keep out of each other's way
// with their own topics and databases (see testing/servers.ts).
//
// Started on demand: vitest runs every globalSetup before the first test file, so starting the
// servers here would hold up the files that use none (most int files, every unit file) for as long
// as Kafka takes to boot. Instead this opens a small loopback HTTP endpoint and hands its URL to the
// files (provide/inject); the first file that imports @chainpay/local-servers/testing asks it, which
// starts the servers, and every file that imports it waits until they answer. A run in which no
// file asks starts no server at all.
//
// Each project that lists this file (int, e2e) runs it; the endpoint is opened once and shared, held
// on globalThis because each project may load this module anew, and closed by the last one.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { TestProject } from 'vitest/node'
import { startTestServers, type TestServers } from '../test-servers.js'
import type { ProvidedServers } from './servers.js'

interface SharedEndpoint {
  server: Server
  url: string
  /** set by the first request */
  servers: Promise<TestServers> | undefined
  users: number
}

const KEY = Symbol.for('chainpay.test-servers')
const holder = globalThis as { [KEY]?: SharedEndpoint }

/** how long one request waits for the servers before it answers "still starting" (and is asked again) */
const LONG_POLL_MS = 5000

export default async function setup(project: TestProject) {
  let shared = holder[KEY]
  if (!shared) {
    shared = await openEndpoint()
    holder[KEY] = shared
  }
  shared.users += 1
  project.provide('testServersUrl', shared.url)
  return async () => {
    const current = holder[KEY]
    if (!current) return
    current.users -= 1
    if (current.users > 0) return
    delete holder[KEY]
    current.server.closeAllConnections()
    await new Promise<void>((resolve) => current.server.close(() => resolve()))
    // a start that failed has nothing to stop
    const servers = await current.servers?.catch(() => undefined)
    await servers?.stop()
  }
}

function startServers(shared: SharedEndpoint): Promise<TestServers> {
  if (!shared.servers) {
    const starting = startTestServers()
    shared.servers = starting
    starting.then(
      (servers) =>
        process.stdout.write(
          `[chainpay] test servers: Kafka ${servers.kafkaBrokers} (${servers.kafkaSource}), MongoDB ${servers.mongodbUrl} (${servers.mongodbSource}), EventStoreDB ${servers.eventstoreUrl ?? `skipped: ${servers.eventstoreSkipReason}`}\n`,
        ),
      (error: unknown) =>
        process.stderr.write(`[chainpay] test servers could not start: ${describeError(error)}\n`),
    )
  }
  return shared.servers
}

async function openEndpoint(): Promise<SharedEndpoint> {
  const shared: SharedEndpoint = { server: createServer(), url: '', servers: undefined, users: 0 }
  shared.server.on('request', (request, response) => {
    const answer = (status: number, body: ProvidedServers | { starting: true } | { error: string }) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (request.method !== 'GET' || request.url !== '/servers') return answer(404, { error: 'not found' })
    const servers = startServers(shared)
    const waited = Promise.race([servers, sleep(LONG_POLL_MS).then(() => undefined)])
    waited.then(
      (started) => {
        if (!started) return answer(202, { starting: true })
        answer(200, {
          kafkaBrokers: started.kafkaBrokers,
          mongodbUrl: started.mongodbUrl,
          eventstoreUrl: started.eventstoreUrl,
          eventstoreSkipReason: started.eventstoreSkipReason,
        })
      },
      (error: unknown) => answer(500, { error: describeError(error) }),
    )
  })
  await new Promise<void>((resolve, reject) => {
    shared.server.once('error', reject)
    shared.server.listen(0, '127.0.0.1', () => resolve())
  })
  shared.server.unref()
  const { port } = shared.server.address() as AddressInfo
  shared.url = `http://127.0.0.1:${port}/servers`
  return shared
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
