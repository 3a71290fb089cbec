import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChainIndexerStore, ChainTransfer, WatchedAddress } from '@chainpay/ports'
import { createSqliteChainIndexerStore, type DatabaseSync, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createWatchSet } from './watch-set.js'

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'

let directory: string
let db: DatabaseSync
let store: ChainIndexerStore

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'watch-set-'))
  db = openSqliteDatabase(join(directory, 'chainpay.sqlite'))
  store = createSqliteChainIndexerStore(db)
})

afterEach(() => {
  db.close()
  rmSync(directory, { recursive: true, force: true })
})

function watched(address: string, fields: Partial<WatchedAddress> = {}): WatchedAddress {
  return {
    network: 'TRON',
    address,
    paymentId: `payment-${address}`,
    assetContract: USDT,
    watchUntil: '2026-12-01T00:00:00.000Z',
    paymentCreatedAt: '2026-11-21T14:00:00.000Z',
    requiredConfirmations: 20,
    watchingReportedAt: '2026-11-21T14:00:01.000Z',
    closedAt: null,
    ...fields,
  }
}

function transfer(to: string, fields: Partial<ChainTransfer> = {}): ChainTransfer {
  return {
    txHash: 'a'.repeat(64),
    index: 0,
    from: null,
    to,
    asset: { kind: 'token', contract: USDT },
    amountUnits: '1000000',
    success: true,
    ...fields,
  }
}

describe('createWatchSet', () => {
  it('matches a successful transfer of the payment asset to a watched address', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await watchSet.watch(watched('TUsdt'))
    await watchSet.watch(watched('TTrx', { assetContract: null }))

    expect(watchSet.match(transfer('TUsdt'))?.paymentId).toBe('payment-TUsdt')
    expect(watchSet.match(transfer('TTrx', { asset: { kind: 'native' } }))?.paymentId).toBe('payment-TTrx')
  })

  it.each([
    ['to an address nobody watches', transfer('TOther')],
    ['that failed on chain', transfer('TUsdt', { success: false })],
    ['of the native coin to a token payment', transfer('TUsdt', { asset: { kind: 'native' } })],
    ['of another token contract', transfer('TUsdt', { asset: { kind: 'token', contract: 'TFake' } })],
    ['of a token to a native payment', transfer('TTrx')],
  ])('does not match a transfer %s', async (_case, candidate) => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await watchSet.watch(watched('TUsdt'))
    await watchSet.watch(watched('TTrx', { assetContract: null }))

    expect(watchSet.match(candidate)).toBeUndefined()
  })

  it('keeps what it watches in the store, so a new watch set loads it', async () => {
    const first = createWatchSet({ network: 'TRON', store })
    expect(await first.watch(watched('TUsdt'))).toBe(true)
    expect(await first.watch(watched('TUsdt'))).toBe(false)
    await store.watch(watched('SolanaAddress', { network: 'SOLANA' }))

    const second = createWatchSet({ network: 'TRON', store })
    await second.load()
    expect(second.size).toBe(1)
    expect(second.get('TUsdt')).toEqual(watched('TUsdt'))
    expect(second.get('SolanaAddress')).toBeUndefined()
  })

  it('keeps an address watched before load when the store does not list it', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await watchSet.watch(watched('TEarly'))
    await store.unwatch('TRON', 'TEarly')
    await store.watch(watched('TStored'))
    await watchSet.load()
    expect([watchSet.get('TEarly')?.address, watchSet.get('TStored')?.address]).toEqual(['TEarly', 'TStored'])
  })

  it('keeps the report of watching when the same payment is watched again, not for another payment', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await watchSet.watch(watched('TUsdt', { watchingReportedAt: null }))
    expect(watchSet.unreported().map((entry) => entry.address)).toEqual(['TUsdt'])

    await watchSet.markWatchingReported(watched('TUsdt'), '2026-11-21T14:05:00.000Z')
    expect(watchSet.unreported()).toEqual([])
    await watchSet.watch(
      watched('TUsdt', { watchingReportedAt: null, watchUntil: '2026-12-02T00:00:00.000Z' }),
    )
    const kept = watched('TUsdt', {
      watchingReportedAt: '2026-11-21T14:05:00.000Z',
      watchUntil: '2026-12-02T00:00:00.000Z',
    })
    expect(watchSet.get('TUsdt')).toEqual(kept)
    expect(await store.listWatched('TRON')).toEqual([kept])

    expect(await watchSet.watch(watched('TUsdt', { paymentId: 'another', watchingReportedAt: null }))).toBe(
      true,
    )
    expect(watchSet.unreported().map((entry) => entry.paymentId)).toEqual(['another'])
  })

  it('records a report of watching only for the payment still watched at the address', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await watchSet.watch(watched('TUsdt', { watchingReportedAt: null }))
    await watchSet.markWatchingReported(
      watched('TUsdt', { paymentId: 'another' }),
      '2026-11-21T14:05:00.000Z',
    )
    await watchSet.markWatchingReported(watched('TGone'), '2026-11-21T14:05:00.000Z')
    expect(watchSet.get('TUsdt')?.watchingReportedAt).toBeNull()
    expect((await store.listWatched('TRON')).map((entry) => entry.address)).toEqual(['TUsdt'])
  })

  it('keeps both a close and a report of watching made at the same time, in memory and in the store', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    const entry = watched('TUsdt', { watchingReportedAt: null })
    await watchSet.watch(entry)
    await Promise.all([
      watchSet.close(entry.paymentId, '2026-11-21T14:06:00.000Z'),
      watchSet.markWatchingReported(entry, '2026-11-21T14:05:00.000Z'),
    ])
    const both = watched('TUsdt', {
      watchingReportedAt: '2026-11-21T14:05:00.000Z',
      closedAt: '2026-11-21T14:06:00.000Z',
    })
    expect(watchSet.get('TUsdt')).toEqual(both)
    expect(await store.listWatched('TRON')).toEqual([both])
  })

  it('refuses an address of another network', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await expect(watchSet.watch(watched('X', { network: 'SOLANA' }))).rejects.toThrow(/address of SOLANA/)
  })

  it('prunes the addresses past their window from memory and the store, once their watching was reported', async () => {
    const watchSet = createWatchSet({ network: 'TRON', store })
    await watchSet.watch(watched('TOld', { watchUntil: '2026-11-21T14:00:00.000Z' }))
    await watchSet.watch(watched('TExact', { watchUntil: '2026-11-21T15:00:00.000Z' }))
    await watchSet.watch(watched('TNew', { watchUntil: '2026-11-22T14:00:00.000Z' }))
    await watchSet.watch(
      watched('TUnreported', { watchUntil: '2026-11-21T14:00:00.000Z', watchingReportedAt: null }),
    )

    const pruned = await watchSet.prune(new Date('2026-11-21T15:00:00.000Z'))

    expect(pruned.map((entry) => entry.address)).toEqual(['TOld'])
    expect(watchSet.get('TOld')).toBeUndefined()
    expect(watchSet.match(transfer('TOld'))).toBeUndefined()
    expect((await store.listWatched('TRON')).map((entry) => entry.address)).toEqual([
      'TExact',
      'TNew',
      'TUnreported',
    ])
  })
})
