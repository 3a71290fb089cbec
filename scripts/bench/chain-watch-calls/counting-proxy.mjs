// A proxy in front of the simulator's node routes that counts what a provider bills: every HTTP
// request by path (TRON) or JSON-RPC method (Solana; each call of a batch counts, as providers count
// them), and the Helius credits of each Solana call. Websocket subscriptions are not calls: the
// simulator's pubsub counts them (world.mjs).

import { Agent, createServer, request } from 'node:http'

/**
 * Helius credits per call (/work/shared/research/chain-facts-2.md section 10; docs/chains.md, "Call
 * budget"): the historical calls 10, getSignatureStatuses 10 with searchTransactionHistory (else 1),
 * getProgramAccounts 10, every other call 1 (getMultipleAccounts and getTokenAccountsByOwner
 * included). getBlocksWithLimit is priced as getBlocks.
 */
const HELIUS_CREDITS = {
  getBlock: 10,
  getBlocks: 10,
  getBlocksWithLimit: 10,
  getBlockTime: 10,
  getTransaction: 10,
  getSignaturesForAddress: 10,
  getProgramAccounts: 10,
}

export function heliusCreditsOf(call) {
  if (call.method === 'getSignatureStatuses') {
    const config = Array.isArray(call.params) ? call.params[1] : undefined
    return config?.searchTransactionHistory === true ? 10 : 1
  }
  return HELIUS_CREDITS[call.method] ?? 1
}

/** counts by name, with the credits they cost; snapshots subtract */
export function createCallCounter() {
  const byName = new Map()
  let calls = 0
  let credits = 0
  return {
    count(name, cost) {
      byName.set(name, (byName.get(name) ?? 0) + 1)
      calls += 1
      credits += cost
    },
    snapshot: () => ({ calls, credits, byName: Object.fromEntries(byName) }),
  }
}

/** what was counted between two snapshots */
export function countedBetween(before, after) {
  const byName = {}
  for (const [name, count] of Object.entries(after.byName)) {
    const delta = count - (before.byName[name] ?? 0)
    if (delta > 0) byName[name] = delta
  }
  return { calls: after.calls - before.calls, credits: after.credits - before.credits, byName }
}

export async function startCountingProxy(target) {
  const counter = createCallCounter()
  const agent = new Agent({ keepAlive: true, maxSockets: 16 })
  const server = createServer(async (incoming, outgoing) => {
    const chunks = []
    for await (const chunk of incoming) chunks.push(chunk)
    const body = Buffer.concat(chunks)
    const path = incoming.url.replace(/^\/chains\/[^/]+\/?/, '').split('?')[0]
    if (path === '') {
      for (const call of [JSON.parse(body.toString('utf8'))].flat())
        counter.count(call.method, heliusCreditsOf(call))
    } else counter.count(path, 1)
    const forward = request(
      new URL(incoming.url, target),
      { method: incoming.method, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forward.on('error', (error) => outgoing.destroy(error))
    forward.end(body)
  })
  server.keepAliveTimeout = 60_000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    counter,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      agent.destroy()
    },
  }
}
