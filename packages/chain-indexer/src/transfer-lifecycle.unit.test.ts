import type { TrackedTransfer } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { firstSighting, nextStep } from './transfer-lifecycle.js'

const transfer = (changes: Partial<TrackedTransfer> = {}): TrackedTransfer => ({
  network: 'TRON',
  paymentId: 'p',
  txHash: 'tx-1',
  index: 0,
  address: 'TAddr',
  amountUnits: '10',
  blockHeight: 100,
  blockHash: 'h100',
  blockTime: '2030-01-01T00:00:00.000Z',
  confirmations: 1,
  requiredConfirmations: 20,
  withdrawnUntilHeight: null,
  expiresAt: null,
  foreign: null,
  ...changes,
})

describe('a transfer first seen', () => {
  it('is reported seen, with its count up to the requirement, followed until final', () => {
    expect(
      firstSighting(transfer({ confirmations: 0 }), {
        kind: 'included',
        confirmations: 3,
        finalOnChain: false,
      }),
    ).toEqual({
      transfer: transfer({ confirmations: 3 }),
      report: { status: 'seen', final: false },
      follow: true,
    })
    // a deep block the chain made final: final at once, its count shown as the requirement
    expect(
      firstSighting(transfer({ confirmations: 0 }), {
        kind: 'included',
        confirmations: 500,
        finalOnChain: true,
      }),
    ).toEqual({
      transfer: transfer({ confirmations: 20 }),
      report: { status: 'seen', final: true },
      follow: false,
    })
  })

  it('is not final at its requirement while the chain has not made it final', () => {
    expect(
      firstSighting(transfer(), { kind: 'included', confirmations: 25, finalOnChain: false }).report,
    ).toEqual({
      status: 'seen',
      final: false,
    })
  })

  it('is not final when the chain made it final below the payment’s requirement', () => {
    expect(
      firstSighting(transfer(), { kind: 'included', confirmations: 19, finalOnChain: true }),
    ).toMatchObject({
      report: { status: 'seen', final: false },
      follow: true,
    })
  })
})

describe('a followed transfer', () => {
  it('is reported when its count grows, never when it does not, and never lower', () => {
    expect(
      nextStep(transfer({ confirmations: 5 }), { kind: 'included', confirmations: 5, finalOnChain: false }),
    ).toBeUndefined()
    expect(
      nextStep(transfer({ confirmations: 5 }), { kind: 'included', confirmations: 4, finalOnChain: false }),
    ).toBeUndefined()
    expect(
      nextStep(transfer({ confirmations: 5 }), { kind: 'included', confirmations: 6, finalOnChain: false }),
    ).toEqual({
      transfer: transfer({ confirmations: 6 }),
      report: { status: 'seen', final: false },
      follow: true,
    })
  })

  it('is final once the chain says so at its requirement, said once, and no longer followed', () => {
    expect(
      nextStep(transfer({ confirmations: 20 }), { kind: 'included', confirmations: 20, finalOnChain: true }),
    ).toEqual({
      transfer: transfer({ confirmations: 20 }),
      report: { status: 'seen', final: true },
      follow: false,
    })
  })

  it('moves to the block that holds it now without news when nothing else changed', () => {
    const block = { height: 100, hash: 'h100b', time: '2030-01-01T00:00:03.000Z' }
    expect(
      nextStep(transfer({ confirmations: 5 }), {
        kind: 'included',
        block,
        confirmations: 5,
        finalOnChain: false,
      }),
    ).toEqual({
      transfer: transfer({ confirmations: 5, blockHash: 'h100b', blockTime: block.time }),
      follow: true,
    })
  })

  it('is in doubt once when the chain no longer shows it, and looked for up to a height', () => {
    expect(nextStep(transfer(), { kind: 'missing', gone: false, lookUntilHeight: 140 })).toEqual({
      transfer: transfer({ withdrawnUntilHeight: 140 }),
      report: { status: 'in_doubt' },
      follow: true,
    })
    // in doubt already: said once
    expect(
      nextStep(transfer({ withdrawnUntilHeight: 140 }), {
        kind: 'missing',
        gone: false,
        lookUntilHeight: 150,
      }),
    ).toBeUndefined()
  })

  it('in doubt: seen again in the block that includes it, counted from there', () => {
    const block = {
      height: 104,
      hash: 'h104',
      time: '2030-01-01T00:00:12.000Z',
      expiresAt: '2030-01-01T00:01:00.000Z',
    }
    expect(
      nextStep(transfer({ confirmations: 9, withdrawnUntilHeight: 140 }), {
        kind: 'included',
        block,
        confirmations: 2,
        finalOnChain: false,
      }),
    ).toEqual({
      transfer: transfer({
        blockHeight: 104,
        blockHash: 'h104',
        blockTime: block.time,
        expiresAt: block.expiresAt,
        confirmations: 2,
      }),
      report: { status: 'seen', final: false },
      follow: true,
    })
  })

  it('in doubt: dropped EXPIRED once the chain can no longer include it', () => {
    expect(
      nextStep(transfer({ withdrawnUntilHeight: 140 }), {
        kind: 'missing',
        gone: true,
        lookUntilHeight: 140,
      }),
    ).toEqual({
      transfer: transfer({ withdrawnUntilHeight: 140 }),
      report: { status: 'dropped', reason: 'EXPIRED' },
      follow: false,
    })
  })

  it('dropped REVERTED when the chain has it as a failed transaction, in doubt or not', () => {
    for (const followed of [transfer(), transfer({ withdrawnUntilHeight: 140 })]) {
      expect(nextStep(followed, { kind: 'failed' })).toEqual({
        transfer: followed,
        report: { status: 'dropped', reason: 'REVERTED' },
        follow: false,
      })
    }
  })
})
