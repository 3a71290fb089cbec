// The chain port's contract: what the chain indexer relies on from every ChainClient (the
// simulator now, TRON and Solana RPC adapters later). The driver makes things happen on the chain
// behind the client; the suite only reads through the client.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChainBlock, ChainClient, ChainTransfer, TransferAsset } from '../chain.js'

export interface ChainTestTransfer {
  to: string
  /** decimal amount in whole units of the driver's currency */
  amount: string
  fail?: boolean
}

export interface ChainDriver {
  /** the currency the driver pays with, its decimals and how its transfers appear on chain */
  currency: { code: string; decimals: number; asset: TransferAsset }
  /** a fresh receiving address of the chain */
  newAddress(): string
  submitTransfer(transfer: ChainTestTransfer): Promise<{ txHash: string }>
  /** returns once at least `count` more blocks exist */
  mineBlocks(count: number): Promise<void>
  /** rolls the transaction back before finality; false if the chain does not know it */
  dropTransaction(txHash: string): Promise<boolean>
}

export interface ChainClientContractContext {
  client: ChainClient
  driver: ChainDriver
  /**
   * `omitted`: the adapter reads blocks without instructions (Solana's accounts-only blocks), so a
   * failed transaction, which moves no balance, gives no transfer at all; by default it is
   * reported with success=false
   */
  failedTransactions?: 'reported' | 'omitted'
  teardown(): Promise<void>
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

export function describeChainClientContract(
  adapterName: string,
  setup: () => Promise<ChainClientContractContext>,
): void {
  describe(`ChainClient contract: ${adapterName}`, () => {
    let context: ChainClientContractContext

    beforeEach(async () => {
      context = await setup()
    })

    afterEach(async () => {
      await context.teardown()
    })

    it('reports a head that advances as blocks are produced', async () => {
      const { client, driver } = context
      const before = await client.getHead()
      expect(before.time).toMatch(ISO_TIME)
      await driver.mineBlocks(3)
      const after = await client.getHead()
      expect(after.height).toBeGreaterThanOrEqual(before.height + 3)
      expect(after.hash).not.toBe(before.hash)
      expect(after.time >= before.time).toBe(true)
      const [headBlock] = await client.getBlocks(after.height, after.height)
      expect(headBlock).toMatchObject({ height: after.height, hash: after.hash, time: after.time })
    })

    it('returns inclusive, ascending, linked ranges and only blocks that exist', async () => {
      const { client, driver } = context
      await driver.mineBlocks(5)
      const head = await client.getHead()
      const range = await client.getBlocks(head.height - 4, head.height)
      expect(range.map((block) => block.height)).toEqual(heights(head.height - 4, head.height))
      for (const [position, block] of range.entries()) {
        expect(block.time).toMatch(ISO_TIME)
        const parent = range[position - 1]
        if (parent) {
          expect(block.parentHash).toBe(parent.hash)
          expect(block.time >= parent.time).toBe(true)
        }
      }
      const beyondHead = await client.getBlocks(head.height - 1, head.height + 50)
      expect(beyondHead.map((block) => block.height)).toEqual([head.height - 1, head.height])
      expect(await client.getBlocks(head.height + 1, head.height + 10)).toEqual([])
      expect(await client.getBlocks(head.height, head.height - 1)).toEqual([])
    })

    it('shows a transfer once, in a block after its submission, with the exact amount', async () => {
      const { client, driver } = context
      const to = driver.newAddress()
      const before = await client.getHead()
      const fraction = '3'.repeat(driver.currency.decimals)
      const amount = fraction === '' ? '12' : `12.${fraction}`
      const { txHash } = await driver.submitTransfer({ to, amount })
      await driver.mineBlocks(1)
      const head = await client.getHead()

      const sightings = transfersOf(
        await client.getBlocks(Math.max(1, before.height - 5), head.height),
        txHash,
      )
      expect(sightings).toHaveLength(1)
      const [sighting] = sightings
      expect(sighting?.height).toBeGreaterThan(before.height)
      const expiresAt = sighting?.transfer.expiresAt
      const owner = sighting?.transfer.owner
      expect(sighting?.transfer).toEqual({
        txHash,
        index: 0,
        from: expect.any(String),
        to,
        asset: driver.currency.asset,
        amountUnits: `12${fraction}`,
        success: true,
        // where the chain has one (TRON), after the block that holds it
        ...(expiresAt === undefined ? {} : { expiresAt }),
        // where the chain names one (Solana): the receiving account itself for the native coin
        ...(owner === undefined
          ? {}
          : { owner: driver.currency.asset.kind === 'native' ? to : expect.any(String) }),
      })
      if (expiresAt !== undefined) {
        const block = (await client.getBlocks(sighting?.height ?? 0, sighting?.height ?? 0))[0]
        expect(Date.parse(expiresAt)).toBeGreaterThan(Date.parse(block?.time ?? ''))
      }
    })

    it('keeps the submission order of transfers mined together', async () => {
      const { client, driver } = context
      const before = await client.getHead()
      const first = await driver.submitTransfer({ to: driver.newAddress(), amount: '1' })
      const second = await driver.submitTransfer({ to: driver.newAddress(), amount: '2' })
      await driver.mineBlocks(1)
      const head = await client.getHead()
      const hashes = (await client.getBlocks(before.height + 1, head.height)).flatMap((block) =>
        block.transfers.map((transfer) => transfer.txHash),
      )
      expect(hashes.filter((hash) => hash === first.txHash || hash === second.txHash)).toEqual([
        first.txHash,
        second.txHash,
      ])
    })

    it('carries success=false for a transaction that is on chain but failed (or leaves it out)', async () => {
      const { client, driver, failedTransactions = 'reported' } = context
      const before = await client.getHead()
      const { txHash } = await driver.submitTransfer({ to: driver.newAddress(), amount: '5', fail: true })
      await driver.mineBlocks(1)
      const head = await client.getHead()
      const sightings = transfersOf(await client.getBlocks(before.height + 1, head.height), txHash)
      expect(sightings.map((sighting) => sighting.transfer.success)).toEqual(
        failedTransactions === 'reported' ? [false] : [],
      )
    })

    it('drops a rolled-back transaction from the canonical chain and rehashes from its block on', async () => {
      const { client, driver } = context
      const dropped = await driver.submitTransfer({ to: driver.newAddress(), amount: '7' })
      await driver.mineBlocks(1)
      const kept = await driver.submitTransfer({ to: driver.newAddress(), amount: '8' })
      await driver.mineBlocks(2)
      const head = await client.getHead()
      const before = await client.getBlocks(Math.max(1, head.height - 10), head.height)
      const droppedAt = transfersOf(before, dropped.txHash)[0]?.height
      if (droppedAt === undefined) throw new Error('the transfer to roll back was never mined')

      expect(await driver.dropTransaction(dropped.txHash)).toBe(true)

      const after = await client.getBlocks(Math.max(1, head.height - 10), head.height)
      expect(after.map((block) => block.height)).toEqual(before.map((block) => block.height))
      expect(transfersOf(after, dropped.txHash)).toEqual([])
      expect(transfersOf(after, kept.txHash)).toHaveLength(1)
      for (const [position, block] of after.entries()) {
        const previous = before[position] as ChainBlock
        if (block.height < droppedAt) expect(block.hash).toBe(previous.hash)
        else expect(block.hash).not.toBe(previous.hash)
        const parent = after[position - 1]
        if (parent) expect(block.parentHash).toBe(parent.hash)
      }
      expect((await client.getHead()).height).toBeGreaterThanOrEqual(head.height)
      expect(await driver.dropTransaction(dropped.txHash)).toBe(false)
    })
  })
}

function heights(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, offset) => from + offset)
}

function transfersOf(
  blocks: ChainBlock[],
  txHash: string,
): Array<{ height: number; transfer: ChainTransfer }> {
  return blocks.flatMap((block) =>
    block.transfers
      .filter((transfer) => transfer.txHash === txHash)
      .map((transfer) => ({ height: block.height, transfer })),
  )
}
