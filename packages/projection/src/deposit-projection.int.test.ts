import { depositEventBusMessage } from '@chainpay/contracts'
import type { DepositEvent } from '@chainpay/domain'
import { createRootLogger } from '@chainpay/platform'
import { sampleDepositRecord } from '@chainpay/ports/testing'
import {
  createSqliteDepositReadModel,
  createSqliteReceivedNetTotals,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { projectDeposit } from './deposit-projection.js'

const logger = createRootLogger({ service: 'deposit-projection-test', level: 'silent' })
const detected = sampleDepositRecord('dep1', 0).state.detected

function message(revision: number, event: DepositEvent): string {
  return depositEventBusMessage({
    eventId: `e${revision}`,
    streamId: 'deposit-dep1',
    depositId: 'dep1',
    revision,
    schemaVersion: 1,
    recordedAt: '2030-01-15T12:00:00.000Z',
    ...event,
  }).value
}

describe('projectDeposit (docs/api.md, "Deposits")', () => {
  it('given a deposit detected and confirmed, when the events are replayed, then the read model holds it confirmed once', async () => {
    const deposits = createSqliteDepositReadModel(openSqliteDatabase(':memory:'))
    const events = [
      message(0, { type: 'DepositDetected', data: detected }),
      message(1, {
        type: 'DepositConfirmed',
        data: { confirmations: 20, confirmedAt: '2030-01-15T12:01:00.000Z' },
      }),
    ]
    for (const value of [...events, ...events]) await projectDeposit(deposits, value, logger)
    expect(await deposits.get('dep1')).toMatchObject({
      revision: 1,
      state: { status: 'confirmed', confirmations: 20, detected: { netUnits: detected.netUnits } },
    })
  })

  it('given nothing stored, when a later event comes first, then nothing is stored', async () => {
    const deposits = createSqliteDepositReadModel(openSqliteDatabase(':memory:'))
    await projectDeposit(
      deposits,
      message(1, { type: 'DepositInDoubt', data: { at: '2030-01-15T12:01:00.000Z' } }),
      logger,
    )
    expect(await deposits.get('dep1')).toBeNull()
  })

  it("given a deposit confirmed, when its events are replayed, then its net counts once in the merchant's received net", async () => {
    const db = openSqliteDatabase(':memory:')
    const deposits = createSqliteDepositReadModel(db)
    const totals = createSqliteReceivedNetTotals(db)
    const detectedMessage = message(0, { type: 'DepositDetected', data: detected })
    await projectDeposit(deposits, detectedMessage, logger, totals)
    // detected is not final: nothing counts yet
    expect(await totals.totalsOf(detected.merchantId)).toEqual([])

    const confirmed = message(1, {
      type: 'DepositConfirmed',
      data: { confirmations: 20, confirmedAt: '2030-01-15T12:01:00.000Z' },
    })
    for (const value of [confirmed, detectedMessage, confirmed]) {
      await projectDeposit(deposits, value, logger, totals)
    }
    expect(await totals.totalsOf(detected.merchantId)).toEqual([
      {
        network: detected.network,
        currency: detected.currency,
        decimals: detected.decimals,
        units: BigInt(detected.netUnits),
      },
    ])
    expect(await totals.countedOf('dep1')).toBe(BigInt(detected.netUnits))
  })

  it('given the count failed after nothing was saved, when the event comes again, then the net counts once', async () => {
    const db = openSqliteDatabase(':memory:')
    const deposits = createSqliteDepositReadModel(db)
    const totals = createSqliteReceivedNetTotals(db)
    await projectDeposit(deposits, message(0, { type: 'DepositDetected', data: detected }), logger, totals)
    const confirmed = message(1, {
      type: 'DepositConfirmed',
      data: { confirmations: 20, confirmedAt: '2030-01-15T12:01:00.000Z' },
    })
    const failing = {
      count: async () => {
        throw new Error('database is locked')
      },
    }
    await expect(projectDeposit(deposits, confirmed, logger, failing)).rejects.toThrow('locked')
    expect((await deposits.get('dep1'))?.state.status).toBe('detected')
    await projectDeposit(deposits, confirmed, logger, totals)
    await projectDeposit(deposits, confirmed, logger, totals)
    expect((await totals.totalsOf(detected.merchantId)).map((total) => total.units)).toEqual([
      BigInt(detected.netUnits),
    ])
  })
})
