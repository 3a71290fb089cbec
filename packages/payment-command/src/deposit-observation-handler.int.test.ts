import { randomUUID } from 'node:crypto'
import { type DepositObservation, parseDepositEventMessage } from '@chainpay/contracts'
import { depositIdOf, toDepositStreamId } from '@chainpay/domain'
import { type ConsumedMessage, Topics } from '@chainpay/ports'
import { createSqliteBus, createSqliteCheckpointStore } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadDeposit } from './deposit-observation-handler.js'
import { createDepositRelay } from './deposit-relay.js'
import { openSqliteCommandSide, type SqliteCommandSide } from './testing/sqlite-command-side.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const merchantId = 'merchant-dep'

async function setup(): Promise<SqliteCommandSide> {
  const side = openSqliteCommandSide()
  cleanups.push(() => side.close())
  // 1 % and a fixed 0.5 USDT
  await side.addMerchant(merchantId, { feeBps: 100, fixedFees: { 'TRON:USDT': '0.5' } })
  return side
}

function observed(changes: Partial<DepositObservation> = {}): DepositObservation {
  return {
    kind: 'deposit',
    network: 'TRON',
    merchantId,
    merchantUserId: 'user-7',
    address: 'TDepositAddress1',
    txHash: 'tx-dep-1',
    transferIndex: 0,
    currency: 'USDT',
    decimals: 6,
    amountUnits: '100000000',
    blockHeight: 1000,
    blockTime: '2026-11-28T10:00:00.000Z',
    confirmations: 1,
    requiredConfirmations: 20,
    final: false,
    status: 'seen',
    dropReason: null,
    observedAt: '2026-11-28T10:00:03.000Z',
    ...changes,
  }
}

describe('deposit observations on the command side (decisions.md section 22)', () => {
  it('given a transfer seen at a deposit address, when observed, then one deposit with fee and net under the merchant policy', async () => {
    const side = await setup()
    const events = await side.deposits.record(observed())
    expect(events.map((event) => event.type)).toEqual(['DepositDetected'])
    expect(events[0]?.data).toMatchObject({
      depositId: depositIdOf('TRON', 'tx-dep-1', 0),
      merchantUserId: 'user-7',
      amountUnits: '100000000',
      // 1 % of 100 USDT plus 0.5 USDT
      feeUnits: '1500000',
      netUnits: '98500000',
      feeBps: 100,
      fixedFeeUnits: '500000',
    })
  })

  it('given a deposit detected, when the same observation is redelivered, then nothing is appended', async () => {
    const side = await setup()
    await side.deposits.record(observed())
    expect(await side.deposits.record(observed())).toEqual([])
    const stream = await side.eventStore.readStream(toDepositStreamId(depositIdOf('TRON', 'tx-dep-1', 0)))
    expect(stream.map((event) => event.type)).toEqual(['DepositDetected'])
  })

  it('given a deposit counting, when the chain makes it final, then it is confirmed once', async () => {
    const side = await setup()
    await side.deposits.record(observed())
    await side.deposits.record(observed({ confirmations: 10 }))
    await side.deposits.record(observed({ confirmations: 20, final: true }))
    expect(await side.deposits.record(observed({ confirmations: 20, final: true }))).toEqual([])
    const { state } = await loadDeposit(side.eventStore, depositIdOf('TRON', 'tx-dep-1', 0))
    expect(state).toMatchObject({ status: 'confirmed', confirmations: 20 })
  })

  it('given a deposit detected, when a fork takes it and it never comes back, then in doubt, then dropped', async () => {
    const side = await setup()
    await side.deposits.record(observed())
    await side.deposits.record(observed({ status: 'in_doubt' }))
    await side.deposits.record(observed({ status: 'dropped', dropReason: 'EXPIRED' }))
    const stream = await side.eventStore.readStream(toDepositStreamId(depositIdOf('TRON', 'tx-dep-1', 0)))
    expect(stream.map((event) => event.type)).toEqual(['DepositDetected', 'DepositInDoubt', 'DepositDropped'])
  })

  it('ignores an unknown merchant and an asset outside the registry', async () => {
    const side = await setup()
    expect(await side.deposits.record(observed({ merchantId: 'nobody' }))).toEqual([])
    expect(await side.deposits.record(observed({ currency: 'DOGE' }))).toEqual([])
  })

  it('relays the deposits’ events on the deposit events topic, keyed by deposit', async () => {
    const side = await setup()
    const bus = createSqliteBus(side.db, { logger: side.logger, pollIntervalMs: 20 })
    cleanups.push(() => bus.close())
    const received: ConsumedMessage[] = []
    const subscription = await bus.subscribe({
      topic: Topics.depositEvents,
      groupId: `test-${randomUUID()}`,
      handle: async (message) => {
        received.push(message)
      },
    })
    cleanups.push(() => subscription.stop())
    await side.deposits.record(observed())
    await side.deposits.record(observed({ confirmations: 20, final: true }))
    const relay = createDepositRelay({
      eventStore: side.eventStore,
      bus,
      checkpoints: createSqliteCheckpointStore(side.db),
      logger: side.logger,
    })
    await relay.start()
    cleanups.push(() => relay.stop())

    await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(2), { timeout: 5000 })
    const deposits = received.map((message) => parseDepositEventMessage(message.value))
    expect(received.map((message) => message.key)).toEqual([
      depositIdOf('TRON', 'tx-dep-1', 0),
      depositIdOf('TRON', 'tx-dep-1', 0),
    ])
    expect(deposits.map((message) => [message.type, message.depositId])).toEqual([
      ['DepositDetected', depositIdOf('TRON', 'tx-dep-1', 0)],
      ['DepositConfirmed', depositIdOf('TRON', 'tx-dep-1', 0)],
    ])
  })
})
