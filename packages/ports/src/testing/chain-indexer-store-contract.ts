import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChainIndexerStore, TrackedTransfer, WatchedAddress } from '../chain-indexer-store.js'

/** What every ChainIndexerStore adapter must do; run it against a fresh, empty store per test. */
export function describeChainIndexerStoreContract(
  adapterName: string,
  setup: () => Promise<{ store: ChainIndexerStore; teardown(): Promise<void> }>,
): void {
  describe(`ChainIndexerStore contract: ${adapterName}`, () => {
    let store: ChainIndexerStore
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    it('keeps one cursor per network, the last one saved', async () => {
      expect(await store.loadCursor('TRON')).toBeNull()
      await store.saveCursor('TRON', { height: 100, hash: '00ab' })
      await store.saveCursor('SOLANA', { height: 250_000_000, hash: '5xSolHash' })
      await store.saveCursor('TRON', { height: 99, hash: '00aa' })
      expect(await store.loadCursor('TRON')).toEqual({ height: 99, hash: '00aa' })
      expect(await store.loadCursor('SOLANA')).toEqual({ height: 250_000_000, hash: '5xSolHash' })
    })

    it('watches an address once per network, keeping the latest watch', async () => {
      await store.watch(watched('TRON', 'TAddr1'))
      await store.watch(watched('TRON', 'TAddr1'))
      await store.watch(watched('TRON', 'TAddr2', { assetContract: null }))
      await store.watch(watched('SOLANA', 'SolAddr1', { assetContract: 'MintUsdc' }))
      expect(sortBy(await store.listWatched('TRON'), (item) => item.address)).toEqual([
        watched('TRON', 'TAddr1'),
        watched('TRON', 'TAddr2', { assetContract: null }),
      ])
      const extended = watched('TRON', 'TAddr1', { watchUntil: '2030-01-09T00:00:00.000Z' })
      await store.watch(extended)
      expect(sortBy(await store.listWatched('TRON'), (item) => item.address)[0]).toEqual(extended)
      expect(await store.listWatched('SOLANA')).toEqual([
        watched('SOLANA', 'SolAddr1', { assetContract: 'MintUsdc' }),
      ])
      expect(await store.listWatched('OTHER')).toEqual([])
    })

    it('keeps every field of a watch, and replaces them all when watched again', async () => {
      const reported = watched('TRON', 'TAddr1', {
        requiredConfirmations: 25,
        watchingReportedAt: '2030-01-01T00:00:07.000Z',
      })
      await store.watch(watched('TRON', 'TAddr1'))
      await store.watch(reported)
      expect(await store.listWatched('TRON')).toEqual([reported])
      await store.watch(watched('TRON', 'TAddr1', { requiredConfirmations: 3 }))
      expect(await store.listWatched('TRON')).toEqual([
        watched('TRON', 'TAddr1', { requiredConfirmations: 3 }),
      ])
    })

    it('unwatches an address of one network only, harmlessly when unknown', async () => {
      await store.watch(watched('TRON', 'Shared'))
      await store.watch(watched('SOLANA', 'Shared'))
      await store.unwatch('TRON', 'Shared')
      await store.unwatch('TRON', 'Shared')
      await store.unwatch('TRON', 'Unknown')
      expect(await store.listWatched('TRON')).toEqual([])
      expect(await store.listWatched('SOLANA')).toEqual([watched('SOLANA', 'Shared')])
    })

    it('unwatches the reported addresses of one network whose window ended, earliest first, at most `limit`', async () => {
      const reported = '2030-01-01T00:00:01.000Z'
      const ended = (address: string, watchUntil: string, changes: Partial<WatchedAddress> = {}) =>
        watched('TRON', address, { watchUntil, watchingReportedAt: reported, ...changes })
      await store.watch(ended('TLater', '2030-01-01T03:00:00.000Z'))
      await store.watch(ended('TEarly', '2030-01-01T01:00:00.000Z'))
      await store.watch(ended('TMiddle', '2030-01-01T02:00:00.000Z'))
      await store.watch(ended('TExact', '2030-01-01T05:00:00.000Z'))
      await store.watch(ended('TOpen', '2030-01-09T00:00:00.000Z'))
      // its backfill has yet to run: kept however old
      await store.watch(ended('TUnreported', '2030-01-01T00:30:00.000Z', { watchingReportedAt: null }))
      await store.watch(
        watched('SOLANA', 'SolEnded', {
          watchUntil: '2030-01-01T01:00:00.000Z',
          watchingReportedAt: reported,
        }),
      )

      const before = '2030-01-01T05:00:00.000Z'
      expect(await store.unwatchExpired('TRON', before, 2)).toEqual([
        ended('TEarly', '2030-01-01T01:00:00.000Z'),
        ended('TMiddle', '2030-01-01T02:00:00.000Z'),
      ])
      expect((await store.unwatchExpired('TRON', before, 2)).map((entry) => entry.address)).toEqual([
        'TLater',
      ])
      expect(await store.unwatchExpired('TRON', before, 2)).toEqual([])
      expect(
        sortBy(await store.listWatched('TRON'), (item) => item.address).map((item) => item.address),
      ).toEqual(['TExact', 'TOpen', 'TUnreported'])
      expect((await store.listWatched('SOLANA')).map((item) => item.address)).toEqual(['SolEnded'])
    })

    it('tracks a transfer once per (txHash, index), keeping the latest report', async () => {
      await store.track(tracked('TRON', 'tx1', 0))
      await store.track(tracked('TRON', 'tx1', 0))
      await store.track(tracked('TRON', 'tx1', 1))
      await store.track(tracked('SOLANA', 'tx1', 0))
      const updated = tracked('TRON', 'tx1', 0, { confirmations: 12 })
      await store.track(updated)
      expect(sortBy(await store.listTracked('TRON'), (item) => String(item.index))).toEqual([
        updated,
        tracked('TRON', 'tx1', 1),
      ])
      expect(await store.listTracked('SOLANA')).toEqual([tracked('SOLANA', 'tx1', 0)])
    })

    it('keeps the expiration and the foreign asset of a transfer', async () => {
      const foreign = tracked('TRON', 'tx9', 0, {
        expiresAt: '2030-01-01T00:06:00.000Z',
        foreign: { currency: 'TRX', decimals: 6 },
      })
      await store.track(foreign)
      expect(await store.listTracked('TRON')).toEqual([foreign])
    })

    it('keeps a withdrawn transfer with the height up to which it is looked for', async () => {
      const withdrawn = tracked('TRON', 'tx1', 0, { requiredConfirmations: 32, withdrawnUntilHeight: 1032 })
      await store.track(tracked('TRON', 'tx1', 0))
      await store.track(withdrawn)
      expect(await store.listTracked('TRON')).toEqual([withdrawn])
      const included = tracked('TRON', 'tx1', 0, { blockHeight: 1003, confirmations: 2 })
      await store.track(included)
      expect(await store.listTracked('TRON')).toEqual([included])
    })

    it('untracks exactly one transfer, harmlessly when unknown', async () => {
      await store.track(tracked('TRON', 'tx1', 0))
      await store.track(tracked('TRON', 'tx1', 1))
      await store.track(tracked('SOLANA', 'tx1', 0))
      await store.untrack('TRON', 'tx1', 0)
      await store.untrack('TRON', 'tx1', 0)
      await store.untrack('TRON', 'tx_unknown', 3)
      expect(await store.listTracked('TRON')).toEqual([tracked('TRON', 'tx1', 1)])
      expect(await store.listTracked('SOLANA')).toEqual([tracked('SOLANA', 'tx1', 0)])
    })

    it('keeps the owner of a watched token account', async () => {
      const entry = watched('SOLANA', 'tokenAccount1', { owner: 'owner1' })
      await store.watch(entry)
      await store.watch(watched('SOLANA', 'owner2'))
      expect(await store.listWatched('SOLANA')).toEqual([watched('SOLANA', 'owner2'), entry])
    })

    it('keeps when a watched payment closed, and the owner of a tracked transfer', async () => {
      const closed = watched('SOLANA', 'owner3', { closedAt: '2030-01-01T00:40:00.000Z' })
      await store.watch(watched('SOLANA', 'owner3'))
      await store.watch(closed)
      expect(await store.listWatched('SOLANA')).toEqual([closed])
      const paid = tracked('SOLANA', 'tx1', 0, { address: 'tokenAccount9', owner: 'owner9' })
      await store.track(paid)
      expect(await store.listTracked('SOLANA')).toEqual([paid])
    })

    it('keeps each followed account of a network, the latest saved, until forgotten', async () => {
      const listed = { account: 'acc2', owner: 'owner1', lastSignature: 'sig1', state: '5:' }
      await store.saveFollowedAccount('SOLANA', listed)
      await store.saveFollowedAccount('SOLANA', {
        account: 'acc1',
        owner: null,
        lastSignature: null,
        state: null,
      })
      const relisted = { ...listed, lastSignature: 'sig3', state: '2039280:7000000' }
      await store.saveFollowedAccount('SOLANA', relisted)
      await store.saveFollowedAccount('SOLANA_DEVNET', { ...listed, account: 'acc1' })
      expect(await store.listFollowedAccounts('SOLANA')).toEqual([
        { account: 'acc1', owner: null, lastSignature: null, state: null },
        relisted,
      ])
      await store.forgetFollowedAccount('SOLANA', 'acc1')
      await store.forgetFollowedAccount('SOLANA', 'unknown')
      expect(await store.listFollowedAccounts('SOLANA')).toEqual([relisted])
      expect(await store.listFollowedAccounts('SOLANA_DEVNET')).toEqual([{ ...listed, account: 'acc1' }])
    })

    it('keeps each deposit address of a network once, whoever watches it again', async () => {
      const bob = { network: 'TRON', address: 'TB', merchantId: 'mer_1', merchantUserId: 'bob' }
      const alice = { network: 'TRON', address: 'TA', merchantId: 'mer_1', merchantUserId: 'alice:1' }
      await store.watchDepositAddress(bob)
      await store.watchDepositAddress(alice)
      await store.watchDepositAddress({ ...bob, merchantUserId: 'other' })
      await store.watchDepositAddress({ ...bob, network: 'TRON_NILE' })
      expect(await store.listDepositAddresses('TRON')).toEqual([alice, bob])
      expect(await store.listDepositAddresses('TRON_NILE')).toEqual([{ ...bob, network: 'TRON_NILE' }])
      expect(await store.listDepositAddresses('SOLANA')).toEqual([])
    })
  })
}

function watched(network: string, address: string, changes: Partial<WatchedAddress> = {}): WatchedAddress {
  return {
    network,
    address,
    paymentId: `pay_${address}`,
    assetContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    watchUntil: '2030-01-02T00:00:00.000Z',
    paymentCreatedAt: '2030-01-01T00:00:00.000Z',
    requiredConfirmations: 20,
    watchingReportedAt: null,
    closedAt: null,
    ...changes,
  }
}

function tracked(
  network: string,
  txHash: string,
  index: number,
  changes: Partial<TrackedTransfer> = {},
): TrackedTransfer {
  return {
    network,
    paymentId: 'pay_1',
    txHash,
    index,
    address: 'TAddr1',
    amountUnits: '123456789012345678901234567890',
    blockHeight: 1000 + index,
    blockHash: `hash_${network}_${index}`,
    blockTime: '2030-01-01T00:05:00.000Z',
    confirmations: 1,
    requiredConfirmations: 20,
    withdrawnUntilHeight: null,
    expiresAt: null,
    foreign: null,
    ...changes,
  }
}

function sortBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => key(a).localeCompare(key(b)))
}
