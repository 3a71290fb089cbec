// The Solana address reader's contract: every promise of its doc comments (solana-address-reader.ts),
// with exact values, for every adapter (@solana/web3.js against a node, the simulator in process).
// The driver makes things happen on the chain behind the reader, the way wallets make them: signed
// payments to an owner (SOL to it, a token to its associated token account made in the same
// transaction, or to another token account of it), several in one transaction, one that fails on
// chain, a fork that drops one. Call counts and batch sizes are the adapters' own tests.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ChainRpcError, type ChainTransfer } from '../chain.js'
import type { AddressActivity, SolanaAddressReader, SolanaChainTime } from '../solana-address-reader.js'

const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

export interface SolanaTestPayment {
  /** the owner paid: SOL goes to it, a token to its associated token account */
  to: string
  /** decimal amount in whole units of the currency */
  amount: string
  /** SOL or an SPL currency of the driver's mints */
  currency: string
  /** a token account of `to` to pay instead of its associated one */
  tokenAccount?: string
}

export interface SolanaTestTransaction {
  txHash: string
  /** the fee payer, the `from` of each of its transfers */
  payer: string
  /** the block holding it */
  slot: number
  /** that block's time as a node gives it: whole seconds, ISO 8601 */
  blockTime: string
}

export interface SolanaAddressReaderDriver {
  readonly network: string
  /** the mint of each SPL currency the driver pays, by code (USDC, USDT) */
  readonly mints: Readonly<Record<string, string>>
  /** the blocks on top of a transaction's before the node finalizes it */
  readonly finalityDepth: number
  /** a key nobody has paid yet: an owner to pay */
  newOwner(): string
  /** a well-formed signature of no transaction */
  unknownSignature(): string
  associatedTokenAccount(owner: string, currency: string): string
  /**
   * a wallet pays, in one signed transaction, and a new block holds it (confirmed); with `fail`
   * the payer cannot cover it, and it is on chain, failed
   */
  pay(payments: readonly SolanaTestPayment[], options?: { fail?: boolean }): Promise<SolanaTestTransaction>
  /** a new, empty token account of `owner` for the currency, other than its associated one */
  openTokenAccount(owner: string, currency: string): Promise<string>
  mineBlocks(count: number): Promise<void>
  /** the newest block */
  head(): Promise<SolanaChainTime>
  /** a fork takes the transaction back before finality: the node forgets it */
  dropTransaction(txHash: string): Promise<void>
  /** the node keeps no block below `slot` from now on, as one started from a snapshot */
  forgetHistoryBelow(slot: number): Promise<void>
}

export interface SolanaAddressReaderContractContext {
  reader: SolanaAddressReader
  driver: SolanaAddressReaderDriver
  /** resolves once `count` subscriptions of the reader are live: what happens next is notified */
  subscriptionsLive(count: number): Promise<void>
  teardown(): Promise<void>
}

/** the rent-exempt minimum of a token account: what its lamports are */
const TOKEN_ACCOUNT_RENT = 2_039_280n

export function describeSolanaAddressReaderContract(
  adapterName: string,
  setup: () => Promise<SolanaAddressReaderContractContext>,
): void {
  describe(`SolanaAddressReader contract: ${adapterName}`, () => {
    let context: SolanaAddressReaderContractContext
    let reader: SolanaAddressReader
    let driver: SolanaAddressReaderDriver
    /** what each test's subscriptions end with */
    let ends: Array<() => Promise<void>>

    beforeEach(async () => {
      context = await setup()
      ;({ reader, driver } = context)
      ends = []
    })

    afterEach(async () => {
      await Promise.all(ends.map((end) => end()))
      reader.release()
      await context.teardown()
    })

    const sol = (to: string, amount: string): SolanaTestPayment => ({ to, amount, currency: 'SOL' })
    const activity = (paid: SolanaTestTransaction, failed = false): AddressActivity => ({
      signature: paid.txHash,
      slot: paid.slot,
      blockTime: paid.blockTime,
      failed,
    })
    /** a transfer of the transaction as the reader reports it; the first of it, or its only one */
    const transfer = (
      paid: SolanaTestTransaction,
      fields: { to: string; owner: string; currency: string; amountUnits: string },
      success = true,
    ): ChainTransfer => ({
      txHash: paid.txHash,
      index: 0,
      from: paid.payer,
      to: fields.to,
      owner: fields.owner,
      asset:
        fields.currency === 'SOL'
          ? { kind: 'native' }
          : { kind: 'token', contract: driver.mints[fields.currency] as string },
      amountUnits: fields.amountUnits,
      success,
    })

    it('names its network', () => {
      expect(reader.network).toBe(driver.network)
    })

    it('tells the chain time, newest confirmed slot and block time, and the first block the node holds', async () => {
      expect(await reader.chainTime()).toEqual(await driver.head())
      await driver.mineBlocks(3)
      const head = await driver.head()
      expect(await reader.chainTime()).toEqual(head)

      const first = await reader.firstAvailable()
      expect(first.slot).toBeLessThanOrEqual(head.slot - 3)
      expect(first.blockTime <= head.blockTime).toBe(true)
      const owner = driver.newOwner()
      await driver.pay([sol(owner, '1')])
      const kept = await driver.pay([sol(owner, '2')])
      // a node started from a snapshot: nothing older than its first block, listed or not
      await driver.forgetHistoryBelow(kept.slot)
      expect(await reader.firstAvailable()).toEqual({ slot: kept.slot, blockTime: kept.blockTime })
      expect(await reader.activitySince(owner, null)).toEqual([activity(kept)])
    })

    it('lists the transactions holding an address after `until`, oldest first, failed ones too', async () => {
      const owner = driver.newOwner()
      const first = await driver.pay([sol(owner, '1')])
      await driver.pay([sol(driver.newOwner(), '1')])
      const failed = await driver.pay([sol(owner, '2')], { fail: true })
      const last = await driver.pay([sol(owner, '0.25')])

      expect(await reader.activitySince(owner, null)).toEqual([
        activity(first),
        activity(failed, true),
        activity(last),
      ])
      expect(await reader.activitySince(owner, first.txHash)).toEqual([
        activity(failed, true),
        activity(last),
      ])
      expect(await reader.activitySince(owner, last.txHash)).toEqual([])
      expect(await reader.activitySince(driver.newOwner(), null)).toEqual([])
    })

    it('lists a token payment under the token account paid, and under its owner only where the transaction names the owner', async () => {
      const owner = driver.newOwner()
      const associated = driver.associatedTokenAccount(owner, 'USDC')
      // the associated account made in the paying transaction: its creation names the owner
      const created = await driver.pay([{ to: owner, amount: '5', currency: 'USDC' }])
      const other = await driver.openTokenAccount(owner, 'USDC')
      const toOther = await driver.pay([{ to: owner, amount: '6', currency: 'USDC', tokenAccount: other }])

      expect(await reader.activitySince(associated, null)).toEqual([activity(created)])
      expect(await reader.activitySince(other, null)).toEqual([activity(toOther)])
      expect(await reader.activitySince(owner, null)).toEqual([activity(created)])
    })

    it("fails 'behind' when the node has not reached minContextSlot, rather than answer with less", async () => {
      const owner = driver.newOwner()
      const paid = await driver.pay([sol(owner, '1')])
      const { slot } = await driver.head()

      const behind = [
        await failureOf(reader.activitySince(owner, null, { minContextSlot: slot + 1 })),
        await failureOf(reader.accounts([owner], { minContextSlot: slot + 1 })),
      ]
      for (const error of behind) {
        expect(error).toBeInstanceOf(ChainRpcError)
        expect((error as ChainRpcError).failure).toBe('behind')
      }
      expect(await reader.activitySince(owner, null, { minContextSlot: slot })).toEqual([activity(paid)])
      expect((await reader.accounts([owner], { minContextSlot: slot })).contextSlot).toBe(slot)
    })

    it("reads a SOL payment's transfer: the receiving account is the owner", async () => {
      const owner = driver.newOwner()
      const paid = await driver.pay([sol(owner, '1.5')])
      expect(await reader.transaction(paid.txHash)).toEqual({
        txHash: paid.txHash,
        slot: paid.slot,
        blockTime: paid.blockTime,
        transfers: [transfer(paid, { to: owner, owner, currency: 'SOL', amountUnits: '1500000000' })],
      })
    })

    it("reads a token payment into the owner's associated account made in the same transaction: the token, naming the owner, and no SOL for the account's rent", async () => {
      const owner = driver.newOwner()
      const to = driver.associatedTokenAccount(owner, 'USDC')
      const paid = await driver.pay([{ to: owner, amount: '12.5', currency: 'USDC' }])
      expect(await reader.transaction(paid.txHash)).toEqual({
        txHash: paid.txHash,
        slot: paid.slot,
        blockTime: paid.blockTime,
        transfers: [transfer(paid, { to, owner, currency: 'USDC', amountUnits: '12500000' })],
      })
    })

    it('reads a token payment into a token account of the owner other than the associated one, naming the owner', async () => {
      const owner = driver.newOwner()
      const to = await driver.openTokenAccount(owner, 'USDT')
      const paid = await driver.pay([{ to: owner, amount: '3', currency: 'USDT', tokenAccount: to }])
      expect((await reader.transaction(paid.txHash))?.transfers).toEqual([
        transfer(paid, { to, owner, currency: 'USDT', amountUnits: '3000000' }),
      ])
    })

    it('reads every transfer of a transaction with several, numbered from 0', async () => {
      const [first, second] = [driver.newOwner(), driver.newOwner()]
      const paid = await driver.pay([
        sol(first, '0.5'),
        { to: first, amount: '7', currency: 'USDC' },
        { to: second, amount: '8', currency: 'USDT' },
        { to: second, amount: '9', currency: 'USDC' },
      ])
      const read = await reader.transaction(paid.txHash)
      expect(read?.transfers.map((made) => made.index)).toEqual([0, 1, 2, 3])
      const indexless = (made: ChainTransfer) => ({ ...made, index: 0 })
      expect(read?.transfers.map(indexless)).toEqual(
        expect.arrayContaining([
          transfer(paid, { to: first, owner: first, currency: 'SOL', amountUnits: '500000000' }),
          transfer(paid, {
            to: driver.associatedTokenAccount(first, 'USDC'),
            owner: first,
            currency: 'USDC',
            amountUnits: '7000000',
          }),
          transfer(paid, {
            to: driver.associatedTokenAccount(second, 'USDT'),
            owner: second,
            currency: 'USDT',
            amountUnits: '8000000',
          }),
          transfer(paid, {
            to: driver.associatedTokenAccount(second, 'USDC'),
            owner: second,
            currency: 'USDC',
            amountUnits: '9000000',
          }),
        ]),
      )
    })

    it('reads a failed transaction as the transfers it asked for, success false, the owner named where the account exists', async () => {
      const owner = driver.newOwner()
      const associated = driver.associatedTokenAccount(owner, 'USDC')
      await driver.pay([{ to: owner, amount: '1', currency: 'USDC' }])
      const failedSol = await driver.pay([sol(owner, '2')], { fail: true })
      const failedToken = await driver.pay([{ to: owner, amount: '3', currency: 'USDC' }], { fail: true })
      expect((await reader.transaction(failedSol.txHash))?.transfers).toEqual([
        transfer(failedSol, { to: owner, owner, currency: 'SOL', amountUnits: '2000000000' }, false),
      ])
      expect((await reader.transaction(failedToken.txHash))?.transfers).toEqual([
        transfer(failedToken, { to: associated, owner, currency: 'USDC', amountUnits: '3000000' }, false),
      ])
    })

    it('answers null for a transaction the node does not hold', async () => {
      expect(await reader.transaction(driver.unknownSignature())).toBeNull()
    })

    it('forgets a transaction a fork took back: not listed, not read, no status', async () => {
      const owner = driver.newOwner()
      const kept = await driver.pay([sol(owner, '1')])
      const dropped = await driver.pay([sol(owner, '2')])
      await driver.dropTransaction(dropped.txHash)
      expect(await reader.activitySince(owner, null)).toEqual([activity(kept)])
      expect(await reader.transaction(dropped.txHash)).toBeNull()
      expect((await reader.statuses([dropped.txHash])).states).toEqual(new Map([[dropped.txHash, null]]))
    })

    it('tells the statuses of signatures at the slot it read them at: final once the node finalized them, failed, null when unknown', async () => {
      const owner = driver.newOwner()
      const paid = await driver.pay([sol(owner, '1')])
      const failed = await driver.pay([sol(owner, '2')], { fail: true })
      const unknown = driver.unknownSignature()
      const statesAt = async (finalized: [boolean, boolean]) => ({
        contextSlot: (await driver.head()).slot,
        states: new Map([
          [paid.txHash, { slot: paid.slot, finalized: finalized[0], failed: false }],
          [failed.txHash, { slot: failed.slot, finalized: finalized[1], failed: true }],
          [unknown, null],
        ]),
      })
      const signatures = [paid.txHash, failed.txHash, unknown]
      expect(await reader.statuses(signatures)).toEqual(await statesAt([false, false]))
      // the slot after `paid` is `failed`'s: the first is final one block before the second
      await driver.mineBlocks(driver.finalityDepth - 2)
      expect(await reader.statuses(signatures)).toEqual(await statesAt([false, false]))
      await driver.mineBlocks(1)
      expect(await reader.statuses(signatures)).toEqual(await statesAt([true, false]))
      await driver.mineBlocks(1)
      expect(await reader.statuses(signatures)).toEqual(await statesAt([true, true]))
    })

    it("reads accounts at one slot: an owner's lamports, a token account's mint and amount, a mint's program, null for none, more than 100 at once", async () => {
      const owner = driver.newOwner()
      const associated = driver.associatedTokenAccount(owner, 'USDC')
      const other = await driver.openTokenAccount(owner, 'USDT')
      await driver.pay([sol(owner, '1.5'), { to: owner, amount: '12.5', currency: 'USDC' }])
      const missing = Array.from({ length: 146 }, () => driver.newOwner())
      const usdc = driver.mints.USDC as string
      const addresses = [owner, associated, other, usdc, ...missing]

      const { contextSlot, states } = await reader.accounts(addresses)
      expect(contextSlot).toBe((await driver.head()).slot)
      expect(states).toEqual(
        new Map([
          [owner, { lamports: 1_500_000_000n, program: SYSTEM_PROGRAM, token: null }],
          [
            associated,
            {
              lamports: TOKEN_ACCOUNT_RENT,
              program: TOKEN_PROGRAM,
              token: { mint: driver.mints.USDC, amount: 12_500_000n },
            },
          ],
          [
            other,
            {
              lamports: TOKEN_ACCOUNT_RENT,
              program: TOKEN_PROGRAM,
              token: { mint: driver.mints.USDT, amount: 0n },
            },
          ],
          [usdc, { lamports: expect.any(BigInt), program: TOKEN_PROGRAM, token: null }],
          ...missing.map((address) => [address, null] as const),
        ]),
      )
    })

    it('lists the token accounts of an owner: the associated one made by a payment, another opened for it; none of a new key', async () => {
      const owner = driver.newOwner()
      expect(await reader.tokenAccountsOf(owner)).toEqual([])
      const associated = driver.associatedTokenAccount(owner, 'USDC')
      await driver.pay([{ to: owner, amount: '2', currency: 'USDC' }])
      const other = await driver.openTokenAccount(owner, 'USDT')
      expect((await reader.tokenAccountsOf(owner)).sort()).toEqual([associated, other].sort())
      expect(await reader.tokenAccountsOf(driver.newOwner())).toEqual([])
    })

    it('hears each transaction that mentions an address, until the subscription ends', async () => {
      const owner = driver.newOwner()
      const heard: string[] = []
      const slots: number[] = []
      const end = reader.onActivity(owner, (signature, slot) => {
        heard.push(signature)
        slots.push(slot)
      })
      await context.subscriptionsLive(1)
      const paid = await driver.pay([sol(owner, '1')])
      // its associated account made by the paying transaction: the owner is one of its accounts
      const token = await driver.pay([{ to: owner, amount: '2', currency: 'USDC' }])
      const failed = await driver.pay([sol(owner, '3')], { fail: true })
      await vi.waitFor(() => expect(heard).toEqual([paid.txHash, token.txHash, failed.txHash]))
      // the slot the node said it at: the transaction's own
      expect(slots).toEqual([paid.slot, token.slot, failed.slot])

      await end()
      await context.subscriptionsLive(0)
      const probe = driver.newOwner()
      const probed: string[] = []
      ends.push(reader.onActivity(probe, (signature) => probed.push(signature)))
      await context.subscriptionsLive(1)
      const both = await driver.pay([sol(owner, '1'), sol(probe, '1')])
      await vi.waitFor(() => expect(probed).toEqual([both.txHash]))
      expect(heard).toEqual([paid.txHash, token.txHash, failed.txHash])
    })

    it("hears every token account of an owner that changes with its mint: the associated one made and paid in one transaction, another opened later, nobody else's", async () => {
      const owner = driver.newOwner()
      const changes: string[] = []
      ends.push(
        reader.onTokenAccountChange(owner, (account, mint, slot) =>
          changes.push(`${account} ${mint} ${slot}`),
        ),
      )
      await context.subscriptionsLive(1)
      const paid = await driver.pay([
        { to: owner, amount: '12.5', currency: 'USDC' },
        { to: driver.newOwner(), amount: '1', currency: 'USDC' },
      ])
      const associated = `${driver.associatedTokenAccount(owner, 'USDC')} ${driver.mints.USDC} ${paid.slot}`
      await vi.waitFor(() => expect(changes).toEqual([associated]))

      const other = await driver.openTokenAccount(owner, 'USDT')
      const later = await driver.pay([{ to: owner, amount: '3', currency: 'USDT', tokenAccount: other }])
      await vi.waitFor(() =>
        expect(changes).toEqual([associated, `${other} ${driver.mints.USDT} ${later.slot}`]),
      )
    })

    it('tells once when a transaction is finalized, whether it failed and at which slot; nothing after the subscription ended', async () => {
      const owner = driver.newOwner()
      const paid = await driver.pay([sol(owner, '1')])
      const failed = await driver.pay([sol(owner, '2')], { fail: true })
      const ended = await driver.pay([sol(owner, '3')])
      const outcomes: string[] = []
      const follow = (name: string, txHash: string) =>
        reader.onFinalized(txHash, ({ failed, slot }) => outcomes.push(`${name} ${failed} ${slot}`))
      follow('failed', failed.txHash)
      follow('paid', paid.txHash)
      const end = follow('ended', ended.txHash)
      await context.subscriptionsLive(3)
      await end()
      await context.subscriptionsLive(2)

      // `paid` is final, `failed` one slot later is not yet
      await driver.mineBlocks(driver.finalityDepth - 2)
      await vi.waitFor(() => expect(outcomes).toEqual([`paid false ${paid.slot}`]))
      await driver.mineBlocks(3)
      await vi.waitFor(() =>
        expect(outcomes).toEqual([`paid false ${paid.slot}`, `failed true ${failed.slot}`]),
      )
      // one final before it was asked is told at the next finalized slot, as agave checks each
      // signature subscription at every commitment update
      follow('again', paid.txHash)
      await context.subscriptionsLive(1)
      await driver.mineBlocks(1)
      const finalized = (await driver.head()).slot - driver.finalityDepth
      await vi.waitFor(() => expect(outcomes.at(-1)).toBe(`again false ${finalized}`))
      expect(outcomes).toHaveLength(3)
    })

    it('says when its subscriptions connect, and that they are connected', async () => {
      let connects = 0
      const off = reader.onConnect(() => {
        connects += 1
      })
      ends.push(reader.onActivity(driver.newOwner(), () => {}))
      await context.subscriptionsLive(1)
      await vi.waitFor(() => expect(connects).toBe(1))
      expect(reader.connected()).toBe(true)
      off()
    })

    it('fails the calls made while interrupted at once, and serves again once resumed', async () => {
      const resume = reader.interruptCalls()
      expect(await failureOf(reader.chainTime())).toBeInstanceOf(ChainRpcError)
      resume()
      expect(await reader.chainTime()).toEqual(await driver.head())
    })
  })
}

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call
  } catch (error) {
    return error
  }
  throw new Error('the call succeeded')
}
