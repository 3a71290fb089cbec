import { readFileSync } from 'node:fs'
import { type AssetRegistry, defaultAssetRegistry, mergeAssetRegistry, resolveAsset } from '@chainpay/domain'
import { describe, expect, it } from 'vitest'
import { ChainRpcError } from './chain.js'
import {
  type SolanaFullTransaction,
  type SolanaTransactionWithMeta,
  solanaTransferFilter,
  solanaTransfersOf,
} from './solana-transfers.js'

function fixture(name: string): SolanaFullTransaction & Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`./testing/fixtures/${name}`, import.meta.url), 'utf8'))
}

const DEVNET_USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'
const HELP_MINT = 'HeLp6NuQkmYB4pYWo2zYs22mESHXPQYzXbB8n4V98jwC'

const devnet = solanaTransferFilter(defaultAssetRegistry, 'SOLANA_DEVNET')

describe('solanaTransfersOf on real transactions', () => {
  it('reads a SOL payment to a lookup table key from jsonParsed lamport deltas (devnet 2CxN…)', () => {
    const transaction = fixture('devnet-sol-transfer.jsonParsed.json')
    expect(solanaTransfersOf(transaction, devnet)).toEqual([
      {
        txHash: '2CxNRsyRT7y88GBwvAB3hRg8wijMSZh3VNYXAdUesGSyvbRJbRR2q9G1KSEpQENmXHmmMLHiXumw4dp8CvzQMjrM',
        index: 0,
        from: '9aE476sH92Vz7DMPyq5WLPkrKWivxeuTKEFKd2sZZcde',
        to: 'G1wZ113tiUHdSpQEBcid8n1x8BAvcWZoZgxPKxgE5B7o',
        owner: 'G1wZ113tiUHdSpQEBcid8n1x8BAvcWZoZgxPKxgE5B7o',
        asset: { kind: 'native' },
        amountUnits: '10000000',
        success: true,
      },
    ])
  })

  it('reads a devnet USDC payment as the token account receiving it, with its owner (3Zj5…)', () => {
    expect(resolveAsset(defaultAssetRegistry, { network: 'SOLANA_DEVNET', currency: 'USDC' }).contract).toBe(
      DEVNET_USDC,
    )
    const transaction = fixture('devnet-usdc-transfer.json.json')
    expect(solanaTransfersOf(transaction, devnet)).toEqual([
      {
        txHash: '3Zj5XkvE1Uec1frjue6SK2ND2cqhKPvPkZ1ZFPwo2v9iL4NX4b4WWG1wPNEQdnJJU8sVx7MMHjSH1HxoR21vEjoV',
        index: 0,
        from: 'BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP',
        to: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
        // the token balance's owner: what a payment's address is for every token account it owns
        owner: 'BXT1K8kzYXWMi6ihg7m9UqiHW4iJbJ69zumELHE9oBLe',
        asset: { kind: 'token', contract: DEVNET_USDC },
        amountUnits: '10000',
        success: true,
      },
    ])
  })

  it('ignores a mint the network does not register, however the token calls itself', () => {
    // the same transaction read for mainnet, whose USDC is another mint
    const mainnet = solanaTransferFilter(defaultAssetRegistry, 'SOLANA')
    expect(solanaTransfersOf(fixture('devnet-usdc-transfer.json.json'), mainnet)).toEqual([])
    // nor is the rent of the token account the transaction creates SOL for anybody
    expect(solanaTransfersOf(fixture('mainnet-token-2022-transfer-creating-ata.json.json'), mainnet)).toEqual(
      [],
    )
  })

  it('counts a token account created in the transaction from zero, and not its rent as SOL', () => {
    const registry: AssetRegistry = mergeAssetRegistry(defaultAssetRegistry, {
      assets: [
        { network: 'SOLANA', currency: 'HELP', tokenStandard: 'SPL', decimals: 9, contract: HELP_MINT },
      ],
    })
    const transfers = solanaTransfersOf(
      fixture('mainnet-token-2022-transfer-creating-ata.json.json'),
      solanaTransferFilter(registry, 'SOLANA'),
    )
    const receiver = '5k4KRS1HVR5DaQhPzY3P9mRBw1k3TK7fug23utRcqgk1'
    // the new account's rent (2,074,080 lamports, paid by the sender) is no transfer to anybody
    expect(
      transfers.map(({ index, to, owner, asset, amountUnits }) => ({ index, to, owner, asset, amountUnits })),
    ).toEqual([
      {
        index: 0,
        to: receiver,
        owner: 'BYh4CfuGDvFMKaZp3RPmkw9y6qg3sWukA2TiGJDeLKZi',
        asset: { kind: 'token', contract: HELP_MINT },
        amountUnits: '10000000',
      },
    ])
    expect(
      transfers.every((transfer) => transfer.from === 'EMmTjuHsYCYX7vgPcQ2QVbNwYAwcvGoSMCEaHKc19DdE'),
    ).toBe(true)
  })
})

describe('solanaTransfersOf on a failed transaction', () => {
  // The devnet SOL payment as it looks when it fails: the node keeps the instruction, charges
  // the fee, moves nothing else and reports the error.
  function failedSolPayment() {
    const transaction = fixture('devnet-sol-transfer.jsonParsed.json')
    const meta = transaction.meta as NonNullable<SolanaTransactionWithMeta['meta']>
    return {
      ...transaction,
      meta: {
        ...meta,
        err: { InstructionError: [0, { Custom: 1 }] },
        postBalances: [1120663066, 1, 1030000000],
      },
    }
  }

  it('reports what its instructions asked for, with success false', () => {
    expect(solanaTransfersOf(failedSolPayment(), devnet)).toEqual([
      expect.objectContaining({
        to: 'G1wZ113tiUHdSpQEBcid8n1x8BAvcWZoZgxPKxgE5B7o',
        asset: { kind: 'native' },
        amountUnits: '10000000',
        success: false,
      }),
    ])
  })

  it('reports a failed plain token transfer with the mint of its token accounts', () => {
    const transaction = fixture('devnet-usdc-transfer.json.json')
    const meta = transaction.meta as NonNullable<SolanaTransactionWithMeta['meta']>
    const failed: SolanaTransactionWithMeta = {
      transaction: {
        ...transaction.transaction,
        message: {
          ...transaction.transaction.message,
          // the instruction as jsonParsed shows it
          instructions: [
            {
              program: 'spl-token',
              programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
              parsed: {
                type: 'transfer',
                info: {
                  amount: '10000',
                  authority: 'BLw3RweJmfbTapJRgnPRvd962YDjFYAnVGd1p5hmZ5tP',
                  destination: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
                  source: 'G23tQHsbQuh3yqUBoyXDn3TwqEbbbUHAHEeUSvJaVRtA',
                },
              },
            },
          ],
        },
      },
      meta: {
        ...meta,
        err: { InstructionError: [0, { Custom: 1 }] },
        postTokenBalances: meta.preTokenBalances,
      },
    }
    expect(solanaTransfersOf(failed, devnet)).toEqual([
      expect.objectContaining({
        to: '644PJ6UW8e4gQpjKdBVd4MCYasWjSECKjqd2qzdeAJY6',
        asset: { kind: 'token', contract: DEVNET_USDC },
        amountUnits: '10000',
        success: false,
      }),
    ])
    expect(solanaTransfersOf(failed, solanaTransferFilter(defaultAssetRegistry, 'SOLANA'))).toEqual([])
  })
})

describe('solanaTransfersOf on answers it cannot read', () => {
  it('throws a bad-response ChainRpcError', () => {
    const transaction = fixture('devnet-sol-transfer.jsonParsed.json')
    const meta = transaction.meta as NonNullable<SolanaTransactionWithMeta['meta']>
    const broken = [
      { ...transaction, meta: null },
      { ...transaction, meta: { ...meta, postBalances: [1] } },
      { ...transaction, meta: { ...meta, postBalances: [1, 1, '1040000000'] } },
    ]
    for (const answer of broken) {
      expect(() => solanaTransfersOf(answer as SolanaTransactionWithMeta, devnet)).toThrow(
        expect.objectContaining({ name: 'ChainRpcError', failure: 'bad-response' }),
      )
    }
    expect(() => solanaTransfersOf({ ...transaction, meta: null }, devnet)).toThrow(ChainRpcError)
  })
})
